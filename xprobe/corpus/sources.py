"""Corpus inputs, streamed as paragraphs: MediaWiki dumps, wikiextractor output, plain text.

:func:`iter_paragraphs` detects the kind of each input from its first line:

* a MediaWiki XML dump (``.xml``, ``.xml.bz2``): pages are cleaned with **wikiextractor** 3.1.0
  used as a library (templates, links, tables, references removed); only articles (namespace 0,
  no redirects) are kept. Its quirks are handled here: the module-level template namespace is set
  from the dump's ``<siteinfo>`` (without it no page is yielded); ``&`` is not escaped
  (``html_safe=False``); bold/italic apostrophes (``''x''``, ``'''x'''``) are removed before
  cleaning, because wikiextractor would turn ``''x''`` into ``"x"`` and pollute the text with
  quotes that were never there. Like wikiextractor, the dump must have one XML tag per line (as
  Wikimedia's dumps do).
* wikiextractor output: its text format (``<doc id=... title=...>`` ... ``</doc>``) or ``--json``
  (one JSON object per line with a ``text`` field).
* plain text: one paragraph per line (blank lines ignored).

``.bz2`` and ``.gz`` files are decompressed on the fly; a corrupt or truncated one is an
:class:`~xprobe.errors.InputError`. A dump must end with ``</mediawiki>`` (else the error names
the line where it stopped and the last whole page), and a file named ``.xml`` (``.xml.bz2``...)
that does not start like one is an error, not plain text. Nothing is ever loaded whole.

Example::

    >>> for para in iter_paragraphs(["enwiki-pages-articles.xml.bz2"]):   # doctest: +SKIP
    ...     print(para.doc, para.text[:40])
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from xprobe.errors import InputError, XProbeError

__all__ = ["InputReader", "Paragraph", "detect_kind", "iter_paragraphs"]

_APOSTROPHES = re.compile(r"'{2,5}")


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One paragraph of running text; ``doc`` names its article (title or input:line)."""

    doc: str
    text: str


class InputReader:
    """Open one input (plain, .bz2, .gz) as text lines, tracking compressed bytes consumed."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            self.raw: IO[bytes] = open(self.path, "rb")
        except OSError as e:
            raise XProbeError(f"cannot read input {self.path}: {e.strerror or e}") from None
        self.size = os.fstat(self.raw.fileno()).st_size
        name = self.path.name
        stream: IO[bytes] = self.raw
        if name.endswith(".bz2"):
            stream = bz2.BZ2File(self.raw)
        elif name.endswith(".gz"):
            stream = gzip.GzipFile(fileobj=self.raw)
        self.compressed = stream is not self.raw
        self.stream = stream if self.compressed else io.BufferedReader(self.raw)  # type: ignore[arg-type]
        self.line = 0

    def position(self) -> int:
        """Bytes of the file consumed so far (for progress)."""
        try:
            return self.raw.tell()
        except (OSError, ValueError):
            return self.size

    def lines(self) -> Iterator[str]:
        """Lines with their newline; errors name the file (and line for bad UTF-8)."""
        try:
            for raw in self.stream:
                self.line += 1
                try:
                    yield raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise InputError(
                        str(self.path), self.line, f"not UTF-8 text: {e.reason}"
                    ) from None
        except (OSError, EOFError) as e:
            kind = "compressed file" if self.compressed else "file"
            raise InputError(
                str(self.path), self.line + 1, f"corrupt or truncated {kind}: {e}"
            ) from None

    def close(self) -> None:
        self.raw.close()


def detect_kind(first_line: str) -> str:
    """``"dump"``, ``"wikiextractor"``, ``"json"`` or ``"text"`` from the first non-blank line."""
    s = first_line.lstrip("\ufeff").strip()
    if s.startswith("<mediawiki") or s.startswith("<?xml"):
        return "dump"
    if s.startswith("<doc ") or s == "<doc>":
        return "wikiextractor"
    if s.startswith("{"):
        try:
            if isinstance(json.loads(s), dict):
                return "json"
        except ValueError:
            pass
    return "text"


def iter_paragraphs(
    paths: Sequence[str | os.PathLike[str]],
    on_open: Callable[[InputReader], None] | None = None,
) -> Iterator[Paragraph]:
    """Paragraphs of every input in order. ``on_open(reader)`` is called as each file opens."""
    for path in paths:
        reader = InputReader(path)
        if on_open is not None:
            on_open(reader)
        try:
            yield from _read_one(reader)
        finally:
            reader.close()


def _read_one(reader: InputReader) -> Iterator[Paragraph]:
    lines = reader.lines()
    head: list[str] = []
    for line in lines:
        head.append(line)
        if line.strip():
            break
    if not head:
        return
    kind = detect_kind(head[-1])
    if kind != "dump" and _named_xml(reader.path):
        start = head[-1].strip()[:40]
        raise InputError(
            str(reader.path),
            reader.line,
            f"not a MediaWiki XML dump: expected <mediawiki or <?xml, found {start!r}",
        )
    stream = _chain(head, lines)
    if kind == "dump":
        yield from _dump(stream, reader)
    elif kind == "wikiextractor":
        yield from _wikiextractor_text(stream, reader)
    elif kind == "json":
        yield from _wikiextractor_json(stream, reader)
    else:
        name = reader.path.name
        for i, line in enumerate(stream, 1):
            text = line.strip()
            if text:
                yield Paragraph(f"{name}:{i}", text)


def _named_xml(path: Path) -> bool:
    """``.xml``, ``.xml.bz2``, ``.xml.gz``: a name that promises a dump."""
    name = path.name.lower().removesuffix(".bz2").removesuffix(".gz")
    return name.endswith(".xml")


def _chain(head: list[str], rest: Iterator[str]) -> Iterator[str]:
    yield from head
    yield from rest


def _wikiextractor_text(lines: Iterator[str], reader: InputReader) -> Iterator[Paragraph]:
    title_re = re.compile(r'title="([^"]*)"')
    doc = ""
    expect_title = False
    for line in lines:
        s = line.strip()
        if s.startswith("<doc"):
            m = title_re.search(s)
            doc = m.group(1) if m else f"{reader.path.name}:{reader.line}"
            expect_title = True
        elif s == "</doc>":
            doc = ""
        elif expect_title:
            expect_title = False  # wikiextractor repeats the title as the first line
        elif s:
            yield Paragraph(doc or f"{reader.path.name}:{reader.line}", s)


def _wikiextractor_json(lines: Iterator[str], reader: InputReader) -> Iterator[Paragraph]:
    for line in lines:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            text = obj["text"]
        except (ValueError, KeyError, TypeError):
            raise InputError(
                str(reader.path), reader.line, "expected a wikiextractor --json object with 'text'"
            ) from None
        doc = str(obj.get("title") or obj.get("id") or f"{reader.path.name}:{reader.line}")
        for para in str(text).split("\n"):
            para = para.strip()
            if para:
                yield Paragraph(doc, para)


def _siteinfo(lines: Iterator[str]) -> tuple[str, set[str]]:
    """Template namespace name and known namespaces from the dump header."""
    ns_re = re.compile(r'<namespace key="(-?\d+)"[^>]*>([^<]*)</namespace>')
    template_ns = "Template"
    known = {"Template"}
    for line in lines:
        m = ns_re.search(line)
        if m:
            known.add(m.group(2))
            if m.group(1) == "10":
                template_ns = m.group(2)
        if "</siteinfo>" in line:
            break
        if "<page>" in line:
            raise InputError("dump", None, "page before the end of <siteinfo>")
    return template_ns, known


def _dump(lines: Iterator[str], reader: InputReader) -> Iterator[Paragraph]:
    import wikiextractor.WikiExtractor as wiki_main
    from wikiextractor.extract import Extractor

    try:
        template_ns, known = _siteinfo(lines)
    except InputError:
        raise InputError(str(reader.path), reader.line, "page before </siteinfo>") from None
    # collect_pages() skips titles starting with the module-level templateNamespace: with its
    # default "" that is every title, so set it (and restore it afterwards).
    saved = wiki_main.templateNamespace
    wiki_main.templateNamespace = template_ns
    end = _EndSeen(lines)
    title = ""
    try:
        pages = wiki_main.collect_pages(_strip_apostrophes(end))
        for page_id, revid, title, page in pages:
            extractor = Extractor(
                page_id,
                revid,
                "",
                title,
                page,
                templatePrefix=template_ns + ":",
                knownNamespaces=set(known),
            )
            for para in extractor.clean_text("".join(page), html_safe=False):
                para = para.strip()
                if para:
                    yield Paragraph(title, para)
    finally:
        wiki_main.templateNamespace = saved
    if not end.seen:
        after = f"; the last whole page read was {title!r}" if title else "; no whole page read"
        raise InputError(
            str(reader.path),
            reader.line,
            f"the dump ends before </mediawiki> (truncated, or not a MediaWiki dump){after}",
        )


class _EndSeen:
    """Passes lines through, noting whether the closing ``</mediawiki>`` went by."""

    def __init__(self, lines: Iterator[str]) -> None:
        self.lines = lines
        self.seen = False

    def __iter__(self) -> Iterator[str]:
        for line in self.lines:
            if "</mediawiki>" in line:
                self.seen = True
            yield line


def _strip_apostrophes(lines: Iterator[str]) -> Iterator[str]:
    """Remove wiki bold/italic markup (2, 3, 5 apostrophes; 4 is an apostrophe + bold)."""
    for line in lines:
        if "''" in line:
            line = _APOSTROPHES.sub(lambda m: "'" if len(m.group()) == 4 else "", line)
        yield line

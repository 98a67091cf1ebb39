"""Names from records are text in the report: escaped for Markdown, never markup, a link or a
path.

A record's names (encoder, task, dataset, language, classifier, teacher, reasons, settings) come
from files that people share. :func:`escape_records` escapes them once, as the records enter the
report, so that every table, heading and note built from them is safe: ``T|ask`` stays one cell
(``T\\|ask``), ``![x](/etc/passwd)`` is shown as those characters, not an image. The CSV files
hold the names as they were (:func:`unescape`); ``report.html`` reads the escapes back as text
(:mod:`xprobe.report.html`).

Example::

    >>> escape("T|ask *bold* [x](y)")
    'T\\\\|ask \\\\*bold\\\\* \\\\[x\\\\](y)'
    >>> unescape(escape("a_b _c_ <i>"))
    'a_b _c_ <i>'
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from xprobe.files import atomic_write

__all__ = [
    "PUNCTUATION",
    "escape",
    "escape_records",
    "md_table",
    "slug",
    "split_cells",
    "unescape",
    "write_table",
]

# Markdown's backslash escapes (CommonMark: any ASCII punctuation may be escaped)
PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_ALWAYS = frozenset("\\`*[]<>|~&")
# record fields that are not names: kept byte for byte (digests, packed per-item correctness)
_NOT_NAMES = frozenset({"split", "metric", "dataset_hash", "version", "correct", "control_correct"})


def escape(text: str) -> str:
    """``text`` as literal Markdown text: Markdown's special characters backslash-escaped (``_``
    only where it could start or end emphasis, ``#`` only first), control characters replaced."""
    out = []
    for i, ch in enumerate(text):
        if not ch.isprintable():
            out.append(" " if ch.isspace() else "\ufffd")
        elif ch in _ALWAYS or (ch == "#" and i == 0):
            out.append("\\" + ch)
        elif ch == "_" and not (_alnum(text, i - 1) and _alnum(text, i + 1)):
            out.append("\\_")
        else:
            out.append(ch)
    return "".join(out)


def _alnum(text: str, i: int) -> bool:
    return 0 <= i < len(text) and text[i].isalnum()


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def unescape(text: str) -> str:
    """The text of Markdown ``text``: each backslash escape replaced by its character."""
    return _ESCAPED.sub(r"\1", text)


def split_cells(line: str) -> list[str]:
    """The cells of a Markdown table row, split at ``|`` that are not backslash-escaped."""
    cells, cur, i = [], [], 0
    s = line.strip()
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s):
            cur.append(s[i : i + 2])
            i += 2
            continue
        if ch == "|":
            cells.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    cells.append("".join(cur))
    if s.startswith("|"):
        cells = cells[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        cells = cells[:-1]
    return [c.strip() for c in cells]


def escape_records(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies of ``records`` whose string fields (names, reasons, settings) are escaped."""
    return [
        {k: escape(v) if isinstance(v, str) and k not in _NOT_NAMES else v for k, v in r.items()}
        for r in records
    ]


def md_table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown pipe table of cells that are already Markdown text."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows]) + "\n"


def write_table(out: Path, stem: str, header: list[str], rows: list[list[str]]) -> str:
    """Write ``out/stem.md`` and ``out/stem.csv`` (the same cells, unescaped, CSV-quoted) of one
    table; return the Markdown."""
    md = md_table(header, rows)
    with atomic_write(out / f"{stem}.md") as f:
        f.write(md)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerows([unescape(c) for c in row] for row in [header, *rows])
    with atomic_write(out / f"{stem}.csv") as f:
        f.write(buf.getvalue())
    return md


def slug(text: str) -> str:
    """A file-name part: letters, digits, ``-`` and ``.`` kept, anything else ``_``."""
    return "".join(ch if ch.isalnum() or ch in "-." else "_" for ch in text)

"""A MediaWiki XML export ("dump") wrapping generated sentences in realistic article markup.

Each article is an ``{{Infobox ...}}`` template, paragraphs of sentences under ``== headings ==``,
internal links (``[[dog|dogs]]``), ``'''bold'''`` words, ``<ref>`` citations after sentences, a
``{| wikitable |}`` and a category link, written as the export format does it (one tag per line,
the wikitext XML-escaped inside ``<text>``). wikiextractor cleans it back to the sentences: every
sentence's running text (the ``# text`` of its CoNLL-U) appears unchanged in the extracted text.

Example::

    >>> page_wikitext("Dog", [[["The", "dog", "sleeps", "."]]], random.Random(0))[:12]
    '{{Infobox pl'
"""

from __future__ import annotations

import bz2
import hashlib
import os
import random
from collections.abc import Iterable
from typing import IO
from xml.sax.saxutils import escape

from xprobe.files import atomic_write
from xprobe.sample.tree import detokenize

__all__ = ["page_wikitext", "write_dump"]


_HEADINGS = {
    "en": ("History", "Description", "Geography", "Culture", "Reception"),
    "de": ("Geschichte", "Beschreibung", "Geographie", "Kultur", "Rezeption"),
}
_SITE = {
    "en": ("Wikipedia", "enwiki", "https://en.wikipedia.org/wiki/Main_Page", "Category"),
    "de": (
        "Wikipedia",
        "dewiki",
        "https://de.wikipedia.org/wiki/Wikipedia:Hauptseite",
        "Kategorie",
    ),
}


def _mark_sentence(tokens: list[str], links: dict[int, str], r: random.Random) -> str:
    """Running text of a sentence with a link or a bold word here and there, and maybe a ref."""
    toks = list(tokens)
    for i, target in links.items():
        x = r.random()
        if x < 0.25:
            toks[i] = f"[[{target}|{toks[i]}]]" if target != toks[i] else f"[[{toks[i]}]]"
        elif x < 0.3:
            toks[i] = f"'''{toks[i]}'''"
    text = detokenize(toks)
    if r.random() < 0.15:
        n = r.randrange(1, 40)
        ref = (
            f'<ref name="r{n}" />'
            if r.random() < 0.3
            else f"<ref>{{{{cite book |title=Annals {n} |year={1900 + n} |page={n * 3}}}}}</ref>"
        )
        text += ref
    return text


def page_wikitext(
    title: str,
    paragraphs: list[list[list[str]]],
    r: random.Random,
    lang: str = "en",
    links: list[list[dict[int, str]]] | None = None,
) -> str:
    """The wikitext of one article: infobox, sections of paragraphs, a table, a category."""
    lines = [
        "{{Infobox place",
        f"| name = {title}",
        f"| image = {title.replace(' ', '_')}.jpg",
        f"| population = {r.randrange(100, 99999)}",
        "}}",
    ]
    headings = _HEADINGS.get(lang, _HEADINGS["en"])
    for k, para in enumerate(paragraphs):
        if k and r.random() < 0.6:
            lines += ["", f"== {headings[(k + r.randrange(5)) % len(headings)]} =="]
        para_links = links[k] if links else [{} for _ in para]
        text = " ".join(_mark_sentence(s, para_links[j], r) for j, s in enumerate(para))
        lines += ["", text]
        if r.random() < 0.2:
            lines += ["", '{| class="wikitable"', "|-", "! Year !! Count"]
            for _ in range(r.randrange(1, 4)):
                lines += ["|-", f"| {r.randrange(1800, 2020)} || {r.randrange(1, 999)}"]
            lines.append("|}")
    lines += ["", f"[[{_SITE.get(lang, _SITE['en'])[3]}:{title}]]"]
    return "\n".join(lines)


def _sha1_base36(text: str) -> str:
    n = int(hashlib.sha1(text.encode("utf-8")).hexdigest(), 16)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while n:
        n, d = divmod(n, 36)
        out = digits[d] + out
    return out.rjust(31, "0")


def _header(lang: str) -> str:
    site, db, base, cat = _SITE.get(lang, _SITE["en"])
    return (
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://www.mediawiki.org/xml/export-0.10/ '
        'http://www.mediawiki.org/xml/export-0.10.xsd" version="0.10" '
        f'xml:lang="{lang}">\n'
        "  <siteinfo>\n"
        f"    <sitename>{site}</sitename>\n"
        f"    <dbname>{db}</dbname>\n"
        f"    <base>{base}</base>\n"
        "    <generator>MediaWiki 1.34.0-wmf.20</generator>\n"
        "    <case>first-letter</case>\n"
        "    <namespaces>\n"
        '      <namespace key="0" case="first-letter" />\n'
        '      <namespace key="10" case="first-letter">Template</namespace>\n'
        f'      <namespace key="14" case="first-letter">{cat}</namespace>\n'
        "    </namespaces>\n"
        "  </siteinfo>\n"
    )


def _page(f: IO[bytes], page_id: int, title: str, wikitext: str) -> None:
    body = escape(wikitext, {'"': "&quot;"})
    xml = (
        "  <page>\n"
        f"    <title>{escape(title)}</title>\n"
        "    <ns>0</ns>\n"
        f"    <id>{page_id}</id>\n"
        "    <revision>\n"
        f"      <id>{1000000 + page_id}</id>\n"
        f"      <timestamp>2019-08-01T{page_id % 24:02d}:00:00Z</timestamp>\n"
        "      <contributor>\n"
        "        <username>SampleBot</username>\n"
        "        <id>42</id>\n"
        "      </contributor>\n"
        "      <model>wikitext</model>\n"
        "      <format>text/x-wiki</format>\n"
        f'      <text bytes="{len(wikitext.encode("utf-8"))}" xml:space="preserve">{body}</text>\n'
        f"      <sha1>{_sha1_base36(wikitext)}</sha1>\n"
        "    </revision>\n"
        "  </page>\n"
    )
    f.write(xml.encode("utf-8"))


def write_dump(
    path: str | os.PathLike[str],
    lang: str,
    articles: Iterable[tuple[str, list[list[list[str]]], list[list[dict[int, str]]]]],
    seed: int,
) -> int:
    """Write articles ``(title, paragraphs of token lists, link targets)`` as a dump
    (``.bz2`` compressed when the name says so); returns the number of pages."""
    from xprobe.files import rng

    r = rng(seed, "sample", "wiki", lang)
    n = 0
    with atomic_write(path, "wb") as raw:
        f: IO[bytes] = (
            bz2.BZ2File(raw, "wb", compresslevel=9) if str(path).endswith(".bz2") else raw
        )  # type: ignore[assignment]
        f.write(_header(lang).encode("utf-8"))
        for title, paragraphs, links in articles:
            n += 1
            _page(f, n, title, page_wikitext(title, paragraphs, r, lang, links))
        f.write(b"</mediawiki>\n")
        if f is not raw:
            f.close()
    return n

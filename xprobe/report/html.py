"""``report.html``: the Markdown report as one self-contained page (``xprobe report --html``).

The page is rendered from ``report.md`` itself, so every number, interval, ``ns`` mark and n is
exactly the Markdown's. Figures are embedded as base64 PNGs, styles and a small script are
inline: the page needs no network and no other file. Clicking a table heading sorts the table by
that column (by the leading number of a cell, ``85.0 [80.1, 89.0]``, else as text, numbers
first; again: the other way); rows named ``n_test...`` stay at the bottom.

The page is the Markdown in its order, which leads with the answer (the sentences under the
title, styled as such, then the figure). A cell's value, interval and marks wrap as units, and a
table too wide even so scrolls in its own box: the page fits a 1400 px window however many tasks
a table has. A link to a file of the report folder (``[coverage.md](coverage.md)``) is a link.

Handled Markdown (what the report writes): ``#`` headings, paragraphs, ``*``/``-`` lists with
indented continuation lines, pipe tables, fenced code, ``![alt](file.png)`` images, inline
`` `code` `` and ``**bold**``.

Example::

    write_html(Path("report"))   # report/report.md -> report/report.html
"""

from __future__ import annotations

import base64
import html
import re
import threading
from collections.abc import Iterable
from pathlib import Path

from xprobe.files import atomic_write
from xprobe.report.md import split_cells

__all__ = ["markdown_to_html", "write_html"]

STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1360px;margin:2em auto;
padding:0 1em;color:#1b1b1b}
h1,h2,h3{line-height:1.2}h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
code{background:#f3f3f3;padding:0 .25em;border-radius:3px}
.wide{overflow-x:auto;max-width:100%;margin:.8em 0}
table{border-collapse:collapse;font-size:12px}
th,td{border:1px solid #ccc;padding:.25em .3em;text-align:right;white-space:nowrap}
td{white-space:normal}td .u{white-space:nowrap}
th:first-child,td:first-child{text-align:left;min-width:8em;max-width:18em}
th{background:#f0f3f7;cursor:pointer;user-select:none}th:hover{background:#e2e8f0}
th.asc::after{content:" \\25B2"}th.desc::after{content:" \\25BC"}
tr.pinned td{background:#fafafa;font-style:italic}
.ns{color:#8a8a8a}.quiet{color:#8a8a8a}
figure{margin:1em 0}figure img{max-width:100%;max-height:72vh;width:auto;height:auto;
border:1px solid #eee}
.answer{font-size:1.15em;font-weight:600;margin:.4em 0}
.missing{color:#b00}
"""

SCRIPT = """
(function () {
  function key(text) {
    var m = text.replace(/\\u2212/g, "-").match(/^\\s*[A-Za-z]?([+-]?\\d+(?:\\.\\d+)?)/);
    return m ? parseFloat(m[1]) : null;
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var pinned = rows.filter(function (r) { return r.classList.contains("pinned"); });
    rows = rows.filter(function (r) { return !r.classList.contains("pinned"); });
    var desc = th.classList.contains("asc");
    rows.sort(function (a, b) {
      var x = a.cells[col] ? a.cells[col].textContent : "";
      var y = b.cells[col] ? b.cells[col].textContent : "";
      var kx = key(x), ky = key(y);
      if (kx !== null && ky === null) { return -1; }  // numbers before text, either way
      if (kx === null && ky !== null) { return 1; }
      var c = kx !== null ? kx - ky : x.localeCompare(y);
      return desc ? -c : c;
    });
    Array.prototype.forEach.call(th.parentNode.cells, function (h) {
      h.classList.remove("asc", "desc");
    });
    th.classList.add(desc ? "desc" : "asc");
    rows.concat(pinned).forEach(function (r) { body.appendChild(r); });
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.addEventListener("click", function () { sortBy(table, col, th); });
    });
  });
  window.xprobeSort = function (table, col) { sortBy(table, col, table.tHead.rows[0].cells[col]); };
  document.body.setAttribute("data-sortable-tables", String(tables.length));
})();
"""

_OWN = threading.local()  # the figure files of the report being rendered (write_html)
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")


_PROTECT = re.compile(r"\\([!-/:-@\[-`{-~])")
_PROTECTED = re.compile("\x00(\\d+)\x00")


def _inline(text: str, base: Path) -> str:
    """Escape ``text`` and render inline code, bold, images and ``ns`` marks. A backslash
    escape (``\\|``, ``\\[``: names from records, :mod:`xprobe.report.md`) is its character as
    text, never markup."""
    held: list[str] = []

    def hold(m: re.Match[str]) -> str:
        held.append(m[1])
        return f"\x00{len(held) - 1}\x00"

    page = _markup(_PROTECT.sub(hold, text.replace("\x00", "")), base)
    return _PROTECTED.sub(lambda m: html.escape(held[int(m[1])]), page)


def _markup(text: str, base: Path) -> str:
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        pieces = []
        last = 0
        for m in _IMAGE.finditer(part):
            pieces.append(_plain(part[last : m.start()]))
            pieces.append(_img(m[1], m[2], base))
            last = m.end()
        pieces.append(_plain(part[last:]))
        out.append("".join(pieces))
    return "".join(out)


def _plain(text: str) -> str:
    s = html.escape(text, quote=False)
    s = _LINK.sub(r'<a href="\2">\1</a>', s)  # a file beside the report (coverage.md)
    s = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", s)
    return re.sub(r"(?<![\w-])ns(?![\w-])", '<span class="ns">ns</span>', s)


_FIGURE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\.(png|svg)")
_LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(([A-Za-z0-9][A-Za-z0-9._-]*\.(?:md|json|csv))\)")


def _img(alt: str, src: str, base: Path) -> str:
    """A figure the report wrote, embedded: a plain file name of the report folder (no path,
    no link), resolving inside it, and one of the report's own files where the page knows them
    (:func:`write_html`); anything else is shown as text, and never read."""
    own = getattr(_OWN, "files", None)
    path = base / src
    if (
        not _FIGURE.fullmatch(src)
        or (own is not None and src not in own)
        or path.resolve().parent != base.resolve()
        or not path.is_file()
    ):
        return f'<span class="missing">[figure not found: {html.escape(src)}]</span>'
    kind = "svg+xml" if path.suffix == ".svg" else path.suffix.lstrip(".").lower() or "png"
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/{kind};base64,{data}">'


# a number that is not a finding: not significant, or at chance
_NS = re.compile(r"^[+\-−]?\d.*( ns\b| °$)")
_QUIET = ' class="quiet"'
_UNITS = re.compile(r"(\S+)( \[[^\]]*\](?: \([a-z]\))?)?( .*)?")


def _cell(text: str, base: Path) -> str:
    """A table cell: its value, interval and marks each kept on one line, the cell wrapping
    between them (``85.0 [80.1, 89.0] ns``)."""
    m = _UNITS.fullmatch(text)
    if m is None or m[2] is None:
        return _inline(text, base)
    return " ".join(f'<span class="u">{_inline(p.strip(), base)}</span>' for p in m.groups() if p)


def _table(lines: list[str], base: Path) -> str:
    head = split_cells(lines[0])
    body = [split_cells(x) for x in lines[1:] if not re.fullmatch(r"\|?[\s:|-]+\|?", x.strip())]
    out = ['<table class="sortable"><thead><tr>']
    out += [f"<th>{_inline(h, base)}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for row in body:
        pinned = row and row[0].lower().startswith("n_test")
        out.append('<tr class="pinned">' if pinned else "<tr>")
        out += [f"<td{_QUIET if _NS.search(c) else ''}>{_cell(c, base)}</td>" for c in row]
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _block(kind: str, lines: list[str], base: Path) -> str:
    if kind == "table":  # a wide table scrolls in its own box, the page never sideways
        return f'<div class="wide">{_table(lines, base)}</div>'
    if kind == "list":
        items = "".join(f"<li>{_inline(x, base)}</li>" for x in lines)
        return f"<ul>{items}</ul>"
    if kind == "code":
        return f"<pre><code>{html.escape(chr(10).join(lines))}</code></pre>"
    text = " ".join(x.strip() for x in lines)
    if kind == "answer":
        return f'<p class="answer">{_inline(text, base)}</p>'
    if _IMAGE.fullmatch(text):
        m = _IMAGE.fullmatch(text)
        assert m is not None
        caption = _inline(m[1], base)
        return f"<figure>{_img(m[1], m[2], base)}<figcaption>{caption}</figcaption></figure>"
    return f"<p>{_inline(text, base)}</p>"


def _kind(line: str) -> str:
    s = line.lstrip()
    if s.startswith("|"):
        return "table"
    if s.startswith(("* ", "- ")):
        return "list"
    return "para"


def markdown_to_html(md: str, base: Path, title: str = "Probing report") -> str:
    """The whole page for Markdown ``md``, in its order (the report's answer comes first);
    images are read relative to ``base``; the paragraph under the title is the answer."""
    body: list[str] = []
    kind, buf = "", []  # the block being gathered

    def flush() -> None:
        nonlocal kind, buf
        if buf:
            body.append(_block(kind, buf, base))
        kind, buf = "", []

    lines = md.splitlines()
    i, zone = 0, False
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("```"):
            flush()
            while i < len(lines) and not lines[i].startswith("```"):
                buf.append(lines[i])
                i += 1
            i += 1
            kind = "code"
            flush()
        elif not line.strip():
            flush()
        elif m := re.match(r"^(#{1,6})\s+(.*)$", line):
            flush()
            level = len(m[1])
            body.append(f"<h{level}>{_inline(m[2].strip(), base)}</h{level}>")
            zone = level == 1  # the paragraphs under the title: the answer
        elif kind == "list" and line.startswith((" ", "\t")) and _kind(line) != "list":
            buf[-1] += " " + line.strip()
        else:
            k = _kind(line)
            k = "answer" if zone and k == "para" else k
            if k != kind or k == "list":
                if k != kind:
                    flush()
                kind = k
            if k == "list":
                buf.append(line.lstrip()[2:])
            else:
                buf.append(line)
    flush()
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + f"\n<script>{SCRIPT}</script>\n</body></html>\n"
    )


def write_html(out_dir: str | Path, written: Iterable[str | Path] | None = None) -> Path:
    """Render ``out_dir/report.md`` (figures from ``out_dir``) to ``out_dir/report.html``.
    ``written``: the files the report wrote (:func:`~xprobe.report.build.write_report`); only
    those figures are embedded (without it: figure files directly in ``out_dir``)."""
    out = Path(out_dir)
    md = (out / "report.md").read_text(encoding="utf-8")
    _OWN.files = None if written is None else {Path(p).name for p in written}
    try:
        page = markdown_to_html(md, out)
    finally:
        _OWN.files = None
    with atomic_write(out / "report.html") as f:
        f.write(page)
    return out / "report.html"

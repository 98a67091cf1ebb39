"""report.html: one self-contained page with the Markdown's numbers, ns marks, intervals and n;
checked in headless Chromium (no console errors, sorting works, a screenshot)."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.report.test_report_layer_stats import records as layer_records
from xprobe.cli import main
from xprobe.probe.records import append_records
from xprobe.report.html import markdown_to_html


def _records() -> list[dict]:
    out = layer_records(n_small=8, n_big=400)
    flat = []
    for r in out:  # the same numbers as a one-vector encoder: the main tables and heatmaps
        if r["layer"] == 0:
            flat.append({k: v for k, v in r.items() if k != "layer"} | {"encoder": "bov-x"})
    return out + flat


@pytest.fixture
def report(tmp_path: Path) -> Path:
    append_records(tmp_path / "r.jsonl", _records())
    out = tmp_path / "rep"
    assert main(["report", str(tmp_path / "r.jsonl"), "--out", str(out), "--html"]) == 0
    return out


def _md_cells(md: str) -> list[str]:
    return [c.strip() for line in md.splitlines() if line.startswith("|")
            for c in line.strip().strip("|").split("|")
            if c.strip() and not re.fullmatch(r"-+", c.strip())]  # fmt: skip


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_page_is_self_contained_and_says_what_the_markdown_says(report: Path) -> None:
    page = (report / "report.html").read_text(encoding="utf-8")
    md = (report / "report.md").read_text(encoding="utf-8")
    text = _text(page)
    cells = _md_cells(md)
    assert any(" ns" in c for c in cells) and any("[" in c for c in cells)
    for cell in cells:
        assert _text(cell.replace("`", "")) in text, cell
    figures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(figures) >= 3 and page.count('src="data:image/png;base64,') == len(figures)
    assert not re.search(r"(src|href)=\"(?!data:)", page)  # nothing to fetch
    assert page.count('<table class="sortable">') == sum(
        1 for b in re.split(r"\n\s*\n", md) if b.lstrip().startswith("|")
    )


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("chromium not installed (apt-get install chromium)")
    return exe


def _browse(page: Path, *args: str) -> tuple[str, str]:
    done = subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
         "--v=0", *args, page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return done.stdout, done.stderr


def _console(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


@pytest.mark.slow
def test_chromium_loads_the_page_without_console_errors(report: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.html"  # the check itself can fail
    bad.write_text("<html><body><script>undefinedFn();</script></body></html>")
    assert _console(_browse(bad, "--dump-dom")[1])
    dom, err = _browse(report / "report.html", "--dump-dom")
    assert _console(err) == []
    tables = (report / "report.html").read_text(encoding="utf-8").count('class="sortable"')
    assert f'data-sortable-tables="{tables}"' in dom  # the script ran to its end


@pytest.mark.slow
def test_chromium_sorts_a_table(tmp_path: Path) -> None:
    md = ("| encoder | SentLen |\n|---|---|\n| x | 3.0 [1.0, 4.0] |\n| y | 10.5 |\n"
          "| z | −2.0 [−5.0, 1.0] ns |\n| w | text |\n| n_test | 1 |\n")  # fmt: skip
    probe = """<script>(function(){var t=document.querySelector("table.sortable");
    function order(){var a=[];Array.prototype.forEach.call(t.tBodies[0].rows,
    function(r){a.push(r.cells[0].textContent)});return a.join(",");}
    window.xprobeSort(t, 1);var up=order();window.xprobeSort(t, 1);
    document.body.setAttribute("data-sorted", up+"|"+order());})();</script></body>"""
    page = tmp_path / "sort.html"
    page.write_text(markdown_to_html(md, tmp_path).replace("</body>", probe), encoding="utf-8")
    dom, err = _browse(page, "--dump-dom")
    assert _console(err) == []
    got = re.search(r'data-sorted="([^"]*)"', dom)
    assert got is not None and got[1] == "z,x,y,w,n_test|y,x,z,w,n_test"


@pytest.mark.slow
def test_screenshot_shows_tables_and_figures(report: Path, tmp_path: Path) -> None:
    import matplotlib.image

    shot = tmp_path / "report.png"
    _, err = _browse(report / "report.html", "--window-size=1280,3000", f"--screenshot={shot}")
    assert _console(err) == [] and shot.is_file()
    img = matplotlib.image.imread(shot)
    dark = (img[..., :3].mean(axis=2) < 0.5).mean()  # text and table rules
    blue = ((img[..., 2] - img[..., 0]) > 0.2).sum()  # the heatmap's blue cells, the en curve
    assert dark > 0.005 and blue > 2000
    keep = Path("/tmp/xprobe-report-screenshot.png")  # for a person to look at
    shutil.copy(shot, keep)


REPORT_MD = """# Probing report

de − en (sample, mlp): 0 of 1 differences significant (Holm, α = 0.05); 0 cells at chance.

## de relative to en (sample, mlp)

![de relative to en](missing.png)

Differences de minus en.

## de: test accuracy (%) (sample, mlp)

| encoder | SentLen |
|---|---|
| bilstm-max | 50.0 [40.1, 59.9] ns ° |

## How to read this report

* Every number is a test accuracy in %.
"""


def test_the_page_keeps_the_markdowns_order_and_marks_the_answer(tmp_path: Path) -> None:
    """report.md leads with the answer (the sentences under the title, then the figure); the
    page renders it in that order, the answer styled as such, a cell's value, interval and
    marks each one unit that does not break."""
    page = markdown_to_html(REPORT_MD, tmp_path)
    headings = re.findall(r"<h[12]>([^<]*)</h[12]>", page)
    assert headings == ["Probing report", "de relative to en (sample, mlp)",
                        "de: test accuracy (%) (sample, mlp)",
                        "How to read this report"]  # fmt: skip
    answer = re.search(r'<p class="answer">([^<]*)</p>', page)
    assert answer is not None and answer[1].startswith("de − en (sample, mlp): 0 of 1")
    assert page.count('class="answer"') == 1
    cell = re.search(r'<td class="quiet">(<span.*?)</td>', page)  # ns: grey, not a finding
    assert cell is not None and _text(cell[1]) == "50.0 [40.1, 59.9] ns °"
    assert cell[1].count('<span class="u">') == 3
    assert re.search(r"\.quiet\{color:#[0-9a-f]+", page)


def test_every_table_sits_in_a_scrolling_wrapper(tmp_path: Path) -> None:
    page = markdown_to_html(REPORT_MD + "\n" + _wide_table(3), tmp_path)
    assert page.count("<table") == 2
    assert page.count('<div class="wide"><table') == 2 == page.count("</table></div>")
    assert re.search(r"\.wide\{[^}]*overflow-x:auto", page)


def _wide_table(columns: int) -> str:
    head = "| encoder | " + " | ".join(f"Task{i}WithALongName" for i in range(columns)) + " |"
    rule = "|---|" + "---|" * columns
    row = "| bilstm-max-mapped-from-en | " + " | ".join(["85.0 [80.1, 89.0] ns"] * columns) + " |"
    return "\n".join([head, rule, row, ""])


@pytest.mark.slow
def test_a_wide_table_fits_a_1400px_window(tmp_path: Path) -> None:
    """At 1400 px the page itself never scrolls sideways: a wide table scrolls in its box."""
    measure = """<script>document.body.setAttribute("data-widths",
    document.documentElement.scrollWidth + "," + document.documentElement.clientWidth);</script>
    </body>"""
    page = tmp_path / "wide.html"
    md = "# Probing report\n\n## x relative to en\n\n" + _wide_table(14)
    page.write_text(markdown_to_html(md, tmp_path).replace("</body>", measure), encoding="utf-8")
    dom, err = _browse(page, "--window-size=1400,900", "--dump-dom")
    assert _console(err) == []
    got = re.search(r'data-widths="(\d+),(\d+)"', dom)
    assert got is not None and int(got[1]) <= int(got[2]) <= 1400, got and got.groups()
    _browse(page, "--window-size=1400,900", f"--screenshot={tmp_path / 'wide.png'}")
    shutil.copy(tmp_path / "wide.png", "/tmp/xprobe-report-wide-1400.png")  # to look at

"""The report opens with its answer (issue 41): one sentence with its evidence under the title,
then the figure, then the tables, "How to read" after; n/a cells written "n/a" with a footnote
mark and one table of reasons, never prose in a cell and never dropped from a heatmap; labels
a reader understands. Records from real runs: the demo (tiny) and the ud study's 23 shared
treebanks with a bag-of-vectors encoder (tests/data/report)."""

from __future__ import annotations

import csv
import gzip
import json
import re
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import FIXTURES
from xprobe.report.build import write_report
from xprobe.report.html import write_html

DATA = FIXTURES / "report"
ANSWER = re.compile(
    r"(?P<who>.+?): (?P<sig>\d+) of (?P<m>\d+) differences significant \(Holm(?P<within>[^,]*), "
    r"α = 0\.05\); (?P<chance>\d+) cells? at chance"
)


def load(name: str, langs: set[str] | None = None) -> list[dict]:
    with gzip.open(DATA / name, "rt", encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    return [r for r in recs if langs is None or r["language"] in langs]


def md_rows(block: str) -> list[list[str]]:
    from xprobe.report.md import split_cells

    return [split_cells(x) for x in block.splitlines()
            if x.startswith("|") and not re.fullmatch(r"\|[-|]+\|?", x)]  # fmt: skip


def sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) of every ``## `` section, in order."""
    parts = re.split(r"^## (.*)$", text, flags=re.M)
    return list(zip(parts[1::2], parts[2::2], strict=True))


def relative_tables(text: str) -> list[list[list[str]]]:
    """The tables of differences under the relative figures (rows without the header)."""
    out = []
    for head, body in sections(text):
        if " relative to " in head and "![" in body:
            table = body[body.index("\n|") :].split("\n\n")[0]
            out.append(md_rows(table)[1:])
    return out


def count_cells(tables: list[list[list[str]]]) -> tuple[int, int, int]:
    """(significant, comparisons, at chance) counted in the tables' cells."""
    cells = [c for t in tables for row in t for c in row[1:] if c and not c.startswith("n/a")]
    sig = sum(1 for c in cells if " ns" not in c)
    return sig, len(cells), sum(1 for c in cells if "°" in c)


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("demo")
    write_report(load("demo.jsonl.gz"), out)
    return out


def test_the_answer_opens_the_report_and_its_numbers_are_the_tables(demo: Path) -> None:
    text = (demo / "report.md").read_text(encoding="utf-8")
    lines = [x for x in text.splitlines() if x.strip()]
    assert lines[0].startswith("# ")
    m = ANSWER.search(lines[1])
    assert m is not None, lines[1]
    assert m["who"].startswith("de − en")
    sig, total, chance = count_cells(relative_tables(text))
    assert (int(m["sig"]), int(m["m"]), int(m["chance"])) == (sig, total, chance)
    assert total == 18  # 2 encoder pairs x 9 tasks
    heads = [h for h, _ in sections(text)]
    first_fig = text.index("![")
    assert first_fig < text.index("## How to read") and first_fig < text.index("test accuracy")
    assert heads.index("How to read this report") > max(
        i for i, h in enumerate(heads) if "test accuracy" in h
    )


def test_no_cell_renders_as_a_markdown_link(demo: Path) -> None:
    for path in demo.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        links = [m for m in re.finditer(r"(?<!!)\[[^\]\n]*\]\(", text)]
        assert not links, (path.name, [text[m.start() : m.end() + 8] for m in links])


def test_a_mapped_student_reads_as_one(demo: Path) -> None:
    text = (demo / "report.md").read_text(encoding="utf-8")
    rows = [r[0] for t in relative_tables(text) for r in t]
    assert "bilstm-max (de, mapped from en bilstm-max)" in rows, rows
    assert not any(" vs " in r for r in rows)


def test_headings_carry_only_the_settings_that_differ(demo: Path) -> None:
    text = (demo / "report.md").read_text(encoding="utf-8")
    heads = [h for h, _ in sections(text)]
    assert "de relative to en (sample, mlp)" in heads, heads
    assert not any("grid=" in h or "training_protocol" in h for h in heads), heads
    assert "training_protocol=converged" in text  # said once, with the settings every table shares


def test_settings_that_differ_are_under_the_heading(tmp_path: Path) -> None:
    recs = load("demo.jsonl.gz")
    recs += [r | {"max_train": 50} for r in recs if r["encoder"] != "baseline"]
    write_report(recs, tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    rel = [(h, b) for h, b in sections(text) if h.startswith("de relative to en")]
    assert len(rel) == 2 and rel[0][0] == rel[1][0]
    said = sorted(b.strip().splitlines()[0] for _, b in rel)
    assert said == ["Setting: max_train=50.", "Setting: max_train=all."], said
    assert not any("grid=" in b.strip().splitlines()[0] for _, b in rel)


@pytest.fixture(scope="module")
def ud5(tmp_path_factory) -> Path:
    """Five languages of the ud study, Tamil (7 of 9 tasks n/a) and English among them."""
    out = tmp_path_factory.mktemp("ud5")
    cov = out.parent / "ud5-coverage.json"
    cov.write_bytes(gzip.decompress((DATA / "ud23-coverage.json.gz").read_bytes()))
    write_report(load("ud23-bov.jsonl.gz", {"en", "de", "ta", "vi", "zh"}), out, coverage=cov)
    write_html(out)
    return out


def test_the_report_opens_with_the_coverage_and_links_it(ud5: Path) -> None:
    text = (ud5 / "report.md").read_text(encoding="utf-8")
    heads = [h for h, _ in sections(text)]
    assert heads[:2] == ["bov (ud, mlp): test accuracy (%) by language",
                         "Coverage: languages x tasks"], heads[:3]  # fmt: skip
    cov = dict(sections(text))["Coverage: languages x tasks"]
    assert "[coverage.md](coverage.md)" in cov
    assert json.loads((ud5 / "coverage.json").read_text())["summary"]["languages"] == 23
    assert (ud5 / "coverage.md").read_text().startswith("# Coverage")
    ta = next(r for r in md_rows(cov) if r[0] == "ta")
    assert ta[2:].count("n/a") == 0 and sum(c.startswith("n/a") for c in ta) == 8, ta
    page = (ud5 / "report.html").read_text(encoding="utf-8")
    assert '<a href="coverage.md">coverage.md</a>' in page


def test_na_reasons_are_footnotes_not_cell_prose(ud5: Path) -> None:
    text = (ud5 / "report.md").read_text(encoding="utf-8")
    reasons = dict(sections(text))["Tasks that do not apply"]
    marks = {r[0] for r in md_rows(reasons)[1:]}
    assert marks and all(re.fullmatch("[⁰¹²³⁴⁵⁶⁷⁸⁹]+", m) for m in marks), marks
    used = set()
    for head, body in sections(text):
        if head == "Tasks that do not apply":
            continue
        for row in md_rows(body):
            for cell in row:
                assert "n/a (" not in cell and len(cell) < 60, (head, cell)
                if cell.startswith("n/a") and cell != "n/a":
                    used.add(cell[3:])
    assert used and used <= marks


def test_the_languages_heatmap_drops_no_language_and_no_task(ud5: Path) -> None:
    rows = md_rows((ud5 / "languages_ud_mlp_bov.md").read_text(encoding="utf-8"))
    header, body = rows[0], rows[1:]
    assert header[-1] == "CoordInv" and len(header) == 10, header  # every task, CoordInv too
    assert [r[0] for r in body] == ["de", "en", "ta", "vi", "zh"]
    assert sum(c.startswith("n/a") for c in body[2][1:]) >= 7  # Tamil: mostly n/a, kept
    na = {(r["language"], r["task"]) for r in load("ud23-bov.jsonl.gz", {"de", "en", "ta",
          "vi", "zh"}) if "not_applicable" in r}  # fmt: skip
    for r in body:
        for task, cell in zip(header[1:], r[1:], strict=True):
            assert cell.startswith("n/a") == ((r[0], task) in na), (r[0], task, cell)


def test_a_heatmap_labels_every_empty_cell() -> None:
    from xprobe.report import plots

    plt = plots._plt()
    fig, ax = plt.subplots()
    m = np.array([[50.0, np.nan], [np.nan, 70.0]])
    empty = [["", "n/a"], ["–", ""]]
    plots._draw(ax, m, ["a", "b"], ["X", "Y"], "viridis", 0, 100, "{:.1f}", empty=empty)
    texts = {(round(t.get_position()[0]), round(t.get_position()[1])): t.get_text()
             for t in ax.texts}  # fmt: skip
    plt.close(fig)
    assert texts == {(0, 0): "50.0", (1, 0): "n/a", (0, 1): "–", (1, 1): "70.0"}, texts


def test_layer_csv_is_csv(tmp_path: Path) -> None:
    from tests.report.test_report_layer_stats import records

    write_report(records(n_small=8, n_big=400), tmp_path)
    md = md_rows((tmp_path / "layers_relative_xprobe_lr_hf-tiny_de.md").read_text("utf-8"))
    with open(tmp_path / "layers_relative_xprobe_lr_hf-tiny_de.csv", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows == md and any("," in c for r in rows for c in r)


def test_a_relative_figure_keeps_a_task_that_does_not_apply(ud5: Path) -> None:
    """de's CoordInv is n/a: its column stays in the figure's table, n/a with its mark, and
    is no comparison in the answer's count."""
    text = (ud5 / "report.md").read_text(encoding="utf-8")
    body = dict(sections(text))["de relative to en (ud, mlp)"]
    header, row = md_rows(body[body.index("\n|") :].split("\n\n")[0])[:2]
    cell = row[header.index("CoordInv")]
    assert cell.startswith("n/a") and len(cell) > 3, row
    reasons = dict(sections(text))["Tasks that do not apply"]
    assert f"| {cell[3:]} | ud | de | CoordInv | corpus |" in reasons
    assert "not checked against chance" not in body
    assert "CoordInv: no de result" not in body  # shown as n/a, not "left out"

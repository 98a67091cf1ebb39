"""Names from records are text in every report output: never an image the HTML page embeds (a
report must never read a file a record names), never markup, and a ``|`` never shifts a table's
cells, in report.md and report.html. The records are real ``probe`` records (a toy task in two
languages) with their names changed, as someone could hand over a results file."""

from __future__ import annotations

import base64
import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

from tests.toy_tasks import write_length_task
from xprobe.cli import main
from xprobe.probe.classifiers import TrainConfig
from xprobe.probe.harness import ProbeOptions, run_probe


class LengthEncoder:
    """Sentence length and a constant: a real (if simple) encoder of token lists."""

    id = "length-v1"
    dim = 2

    def encode(self, batch):
        return np.array([[len(s), 1.0] for s in batch], dtype=np.float32)


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """The records ``probe`` writes for one encoder and the majority baseline, en and de."""
    root = tmp_path_factory.mktemp("probed")
    out = root / "r.jsonl"
    for i, lang in enumerate(("en", "de")):
        data = root / "toy" / lang
        data.mkdir(parents=True)
        write_length_task(data / "sentence_length.txt", 40, seed=i)
        write_length_task(data / "bigram_shift.txt", 40, seed=10 + i)
        opts = ProbeOptions(classifiers=("lr", "majority"), language=lang, device="cpu",
                            cache_dir=root / "cache", name="length",
                            train=TrainConfig(max_epochs=5, patience=2))  # fmt: skip
        run_probe(LengthEncoder(), data, out, opts)
    return [json.loads(line) for line in out.read_text("utf-8").splitlines()]


def report(tmp_path: Path, records: list[dict]) -> Path:
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    out = tmp_path / "rep"
    assert main(["report", str(path), "--out", str(out), "--html"]) == 0
    return out


def renamed(records: list[dict], **names: dict[str, str]) -> list[dict]:
    """``field={old: new}``: each record's field renamed where it has the old value."""
    out = []
    for r in records:
        r = dict(r)
        for field, change in names.items():
            r[field] = change.get(r[field], r[field])
        out.append(r)
    return out


def test_report_html_never_reads_a_file_a_record_names(probed: list[dict], tmp_path: Path):
    """The issue's case: an encoder ``![x](/etc/passwd)`` or a task ``![y](/etc/hostname)``
    made report.html embed those files as base64 images."""
    secret = tmp_path / "secret.png"
    secret.write_text("root:x:0:0:TOPSECRET\n")
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "near.png").write_text("NEARBY SECRET\n")  # in the folder, not written
    enc, task = f"![x]({secret})", "![y](near.png)"
    out = report(tmp_path, renamed(probed, encoder={"length": enc}, task={"BShift": task}))
    page = (out / "report.html").read_text("utf-8")
    for content in (secret.read_bytes(), b"NEARBY SECRET\n"):
        assert base64.b64encode(content).decode() not in page
    assert "TOPSECRET" not in page and "NEARBY" not in page
    assert f"![x]({secret})" in page.replace("&quot;", '"')  # shown as the text it is
    assert "![y](near.png)" in page
    md = (out / "report.md").read_text("utf-8")
    assert "![x](" not in md and "![y](" not in md  # no image, no link in report.md either
    assert "!\\[x\\]" in md and "!\\[y\\]" in md
    figures = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert figures and all(base64.b64decode(f).startswith(b"\x89PNG") for f in figures)
    with open(next(out.glob("table4_*_en*.csv")), newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert task in rows[0] and enc in [r[0] for r in rows]  # CSV: the names as they are


def md_cells(line: str) -> int:
    """Cells of a Markdown table row: ``|`` not preceded by a backslash separate them."""
    return len(re.findall(r"(?<!\\)\|", line.strip())) - 1


def test_a_pipe_in_a_name_shifts_no_cell(probed: list[dict], tmp_path: Path) -> None:
    """The issue's case: ``T|ask`` became two headings and a row ``a|b|c`` seven cells under six
    headings, in report.md and report.html."""
    out = report(tmp_path, renamed(probed, encoder={"length": "a|b|c"}, task={"BShift": "T|ask"}))
    md = (out / "report.md").read_text("utf-8")
    tables = [b for b in re.split(r"\n\s*\n", md) if b.lstrip().startswith("|")]
    assert len(tables) >= 4
    for block in tables:
        rows = [x for x in block.splitlines() if x.startswith("|")]
        assert {md_cells(x) for x in rows} == {md_cells(rows[0])}, block
    assert any("T\\|ask" in b.splitlines()[0] for b in tables)
    assert any(x.startswith("| a\\|b\\|c |") for b in tables for x in b.splitlines())
    page = (out / "report.html").read_text("utf-8")
    html_tables = re.findall(r"<table.*?</table>", page, re.S)
    assert len(html_tables) == len(tables)
    for t in html_tables:
        widths = {len(re.findall(r"<t[hd][ >]", row)) for row in re.findall(r"<tr.*?</tr>", t)}
        assert len(widths) == 1, t
    assert "<th>T|ask</th>" in page and "<td>a|b|c</td>" in page


def test_a_reference_language_no_record_has_is_an_error(
    probed: list[dict], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: ``--reference-lang eng`` over en and de records exited 0 with "No eng
    records ... no relative figure" in report.md: the main result dropped silently."""
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in probed), "utf-8")
    capsys.readouterr()
    out = tmp_path / "rep"
    assert main(["report", str(path), "--out", str(out), "--reference-lang", "eng"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "ERROR xprobe: --reference-lang eng: no record has language 'eng', so no relative "
        "figure could be drawn; languages in the records: de, en"
    ]
    assert not out.exists()
    assert main(["report", str(path), "--out", str(out), "--reference-lang", "de"]) == 0
    assert "## en: test accuracy (%) (toy, lr)" in (out / "report.md").read_text("utf-8")
    assert "## en relative to de (toy, lr)" in (out / "report.md").read_text("utf-8")

"""The kind of a not-applicable task (``language``, ``annotation``, ``corpus``: who decided and
why, issue 27) travels with its reason from the profile or extract into the manifest,
``extract --check``, every record, the report and the exports; results written before kinds
still load and report."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.extract.test_extract import write_corpus
from xprobe.cli import main
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.probe.harness import ProbeOptions, run_probe
from xprobe.probe.records import append_records, read_records, validate_record
from xprobe.report.build import write_report

REASON = "UD Test-XX has no Tense feature: past and present auxiliaries share one lemma"


@pytest.fixture(scope="module")
def probing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kinds")
    profile = root / "xx.toml"
    profile.write_text(
        'code = "xx"\nname = "Test"\n\n[tasks.past_present]\napplicable = false\n'
        f'kind = "annotation"\nreason = "{REASON}"\n',
        encoding="utf-8",
    )
    corpus = write_corpus(root / "c.conllu", 600)
    out = root / "data" / "probing"
    # SubjNum: the synthetic corpus has no Number feature: extract finds it, kind annotation
    m = extract(ExtractConfig(lang=str(profile), out=out, inputs=[str(corpus)],
                              tasks=["SentLen", "Tense", "SubjNum"], sizes=(60, 20, 20),
                              allow_partial=True, progress=False))  # fmt: skip
    assert m["tasks"]["past_present"]["kind"] == "annotation"
    assert m["tasks"]["past_present"]["decided_by"] == "profile"
    assert m["tasks"]["subj_number"]["kind"] == "annotation"
    assert m["tasks"]["subj_number"]["decided_by"] == "extract"
    return out


@pytest.fixture(scope="module")
def results(probing: Path) -> Path:
    res = probing.parent.parent / "r.jsonl"
    run_probe(None, probing, res, ProbeOptions(classifiers=("majority",)))
    return res


def test_check_prints_the_kind_and_refuses_an_unknown_one(probing: Path, capsys) -> None:
    assert main(["extract", "--check", str(probing)]) == 0
    out = capsys.readouterr().out
    assert f"past_present: n/a (annotation: {REASON})" in out
    assert "subj_number: n/a (annotation: no noun has Number in Sing, Plur" in out
    manifest = json.loads((probing / "manifest.json").read_text(encoding="utf-8"))
    manifest["tasks"]["past_present"]["kind"] = "treebank"
    bad = probing.parent / "bad"
    bad.mkdir()
    (bad / "manifest.json").write_text(json.dumps({"tasks": {
        "past_present": manifest["tasks"]["past_present"]}}))  # fmt: skip
    assert main(["extract", "--check", str(bad)]) == 1
    assert "past_present: kind must be one of language, annotation, corpus, got 'treebank'" in (
        capsys.readouterr().out
    )


def test_every_record_and_the_report_carry_the_kind(results: Path, tmp_path: Path) -> None:
    recs = read_records(results)
    na = {r["task"]: r for r in recs if "not_applicable" in r}
    assert {t: r["kind"] for t, r in na.items()} == {"Tense": "annotation",
                                                      "SubjNum": "annotation"}  # fmt: skip
    assert all(validate_record(r) == [] for r in recs)
    assert validate_record({**na["Tense"], "kind": "treebank"}) == [
        "kind must be one of language, annotation, corpus, not 'treebank'"
    ]
    write_report(recs, tmp_path / "rep")
    table = next((tmp_path / "rep").glob("baselines_*.md")).read_text(encoding="utf-8")
    mark = _mark(table, "Tense")  # the cell: n/a with the mark of its reason, no prose
    report = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert f"| {mark} | " in report and f"| Tense | annotation | {REASON} |" in report


def _mark(table: str, task: str) -> str:
    """The footnote mark of ``task``'s n/a cell on the n_test row."""
    rows = [[c.strip() for c in x.strip("|").split("|")] for x in table.splitlines()]
    cell = next(r for r in rows if r[0] == "n_test")[rows[0].index(task)]
    assert cell.startswith("n/a") and len(cell) > 3, cell
    return cell[3:]


def test_records_written_before_kinds_still_load_and_report(results: Path, tmp_path: Path):
    old = tmp_path / "old.jsonl"
    recs = [{k: v for k, v in r.items() if k != "kind"} for r in read_records(results)]
    append_records(old, recs)
    back = read_records(old)
    assert all(validate_record(r) == [] for r in back) and not any("kind" in r for r in back)
    write_report(back, tmp_path / "rep")
    table = next((tmp_path / "rep").glob("baselines_*.md")).read_text(encoding="utf-8")
    assert _mark(table, "Tense")  # the reason alone in the report: no kind made up
    assert f"| Tense | unknown | {REASON} |" in (tmp_path / "rep" / "report.md").read_text()


def test_exports_carry_the_kind(probing: Path, results: Path, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("datasets")
    out = tmp_path / "hf"
    assert main(["export", "datasets", str(probing), "--out", str(out)]) == 0
    card = (out / "README.md").read_text(encoding="utf-8")
    assert f"n/a (annotation: {REASON})" in card
    assert f"- **past_present**: not applicable, no configuration: annotation: {REASON}" in card
    tidy = tmp_path / "tidy"
    assert main(["export", "results", str(results), "--out", str(tidy)]) == 0
    with open(tidy / "records.csv", encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["task"] in ("Tense", "SubjNum")]
    kinds = {(r["task"], r["kind"]) for r in rows}
    assert rows and kinds == {("Tense", "annotation"), ("SubjNum", "annotation")}
    assert {r["not_applicable"] for r in rows if r["task"] == "Tense"} == {REASON}

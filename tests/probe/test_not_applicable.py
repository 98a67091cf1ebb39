"""A task that does not apply to a language travels from the profile through extract, the probe
and the report as "n/a (reason)": no file, no number, no missing column (issue 20)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.extract.test_extract import write_corpus
from xprobe.cli import main
from xprobe.errors import XProbeError
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.probe.harness import ProbeOptions, run_probe
from xprobe.probe.records import read_records, validate_record
from xprobe.report.build import write_report

REASON = "the test language marks no tense"


def _profile(tmp_path: Path) -> Path:
    p = tmp_path / "xx.toml"
    p.write_text(
        'code = "xx"\nname = "Test"\n\n[tasks.past_present]\napplicable = false\n'
        f'reason = "{REASON}"\n',
        encoding="utf-8",
    )
    return p


@pytest.fixture
def probing(tmp_path: Path) -> Path:
    corpus = write_corpus(tmp_path / "c.conllu", 600)
    out = tmp_path / "data" / "probing"
    m = extract(ExtractConfig(lang=str(_profile(tmp_path)), out=out, inputs=[str(corpus)],
                              tasks=["SentLen", "BShift", "Tense"], sizes=(60, 20, 20),
                              progress=False))  # fmt: skip
    e = m["tasks"]["past_present"]
    # a profile's declaration without kind: the person who reviewed it says "language"
    assert e == {"task": "Tense", "applicable": False, "reason": REASON, "decided_by": "profile",
                 "kind": "language", "file": None, "lines": 0}  # fmt: skip
    assert not (out / "past_present.txt").exists()
    return out


def test_check_prints_the_reason(probing: Path, capsys) -> None:
    assert main(["extract", "--check", str(probing)]) == 0
    out = capsys.readouterr().out
    assert f"past_present: n/a (language: {REASON})" in out
    (probing / "past_present.txt").write_text("tr\tPAST\tstale line\n")
    assert main(["extract", "--check", str(probing)]) == 1  # a file for an n/a task is wrong


def test_probe_writes_na_records_and_report_shows_the_cell(probing: Path, tmp_path: Path) -> None:
    res = tmp_path / "r.jsonl"
    opts = ProbeOptions(classifiers=("majority", "length"), cache_dir=tmp_path / "cache")
    recs = run_probe(None, probing, res, opts)
    na = [r for r in recs if "not_applicable" in r]
    assert {(r["task"], r["classifier"]) for r in na} == {
        ("Tense", "majority"),
        ("Tense", "length"),
    }
    assert all(r["not_applicable"] == REASON and "value" not in r for r in na)
    assert all(r["kind"] == "language" for r in na)
    assert all(validate_record(r) == [] for r in read_records(res))
    assert {r["task"] for r in recs if "value" in r} == {"SentLen", "BShift"}
    # asked for by name: the n/a record, not "no data for task"
    only = run_probe(None, probing, tmp_path / "t.jsonl",
                     ProbeOptions(tasks=["Tense"], classifiers=("majority",)))  # fmt: skip
    assert [r["not_applicable"] for r in only] == [REASON]
    write_report(read_records(res), tmp_path / "rep")
    table = next((tmp_path / "rep").glob("baselines_*.md")).read_text(encoding="utf-8")
    header = table.splitlines()[0]
    assert "Tense" in header and table.count("n/a¹") == 1  # on n_test: its reason's mark
    report = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert f"| ¹ | data | xx | Tense | language | {REASON} |" in report

    def cells(line: str) -> list[str]:
        return [c.strip() for c in line.strip().strip("|").split("|")]

    col = cells(header).index("Tense")
    rows = [cells(line) for line in table.splitlines()[2:] if line.startswith("|")]
    assert rows and all(r[col].startswith("n/a") for r in rows)
    assert header.index("BShift") < header.index("Tense")  # in task order
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "## Tasks that do not apply" in report
    assert "| dataset | language | task | kind | reason |" in report
    assert f"| Tense | language | {REASON} |" in report


def test_probe_command_prints_na(probing: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "cli.jsonl"
    argv = ["probe", "--data", str(probing), "--classifier", "majority", "--out", str(out)]
    assert main(argv) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()}
    assert rows["Tense"] == ["n/a"] and float(rows["SentLen"][0]) > 0


def test_profile_applicability_is_validated(tmp_path: Path) -> None:
    from xprobe.languages import ProfileError, profile_from_dict

    with pytest.raises(ProfileError, match="needs a reason"):
        profile_from_dict(
            {"code": "x", "name": "X", "tasks": {"past_present": {"applicable": False}}}
        )
    with pytest.raises(ProfileError, match="not applicable = false"):
        profile_from_dict({"code": "x", "name": "X", "tasks": {"past_present": {"reason": "r"}}})
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'code = "x"\nname = "X"\n[tasks.past_presnt]\napplicable = false\nreason = "r"\n'
    )
    corpus = write_corpus(tmp_path / "c.conllu", 50)
    with pytest.raises(XProbeError, match=r"\[tasks.past_presnt\] is not a task"):
        extract(ExtractConfig(lang=str(bad), out=tmp_path / "o", inputs=[str(corpus)],
                              progress=False))  # fmt: skip


def _xprobe_task(folder: Path, va: list[tuple[str, int]], te: list[tuple[str, int]]) -> None:
    folder.mkdir(parents=True)
    for name, rows in (("va.txt", va), ("te.txt", te)):
        body = "".join(f"{s}\t{y}\n" for s, y in rows)
        (folder / name).write_text(body, encoding="utf-8")


def test_task_whose_test_sentences_all_occur_in_training_is_na_not_missing(tmp_path: Path) -> None:
    """X-Probe's own TreeDepth sets (en and de) have every te sentence in va, which trains. Such
    a task cannot be scored; it must stay in the results as n/a with the reason, not vanish
    with exit 0 (the report had no TreeDepth column and said nothing)."""
    words = list("abcdefghijklmnop")
    sents = [(" ".join(words[i % 16 : i % 16 + 2 + i % 5]) + f" w{i}", i % 2) for i in range(80)]
    lens = [(s, len(s.split()) % 3) for s, _ in sents]
    data = tmp_path / "xp" / "en"
    _xprobe_task(data / "sentence_length", lens[:40], lens[40:])
    # every te line is also in va (which trains); te is halved into va and te: 20 test lines
    _xprobe_task(data / "tree_depth", sents, sents[::2])
    res = tmp_path / "r.jsonl"
    opts = ProbeOptions(classifiers=("majority",), language="en")
    recs = run_probe(None, data, res, opts)
    by_task = {r["task"]: r for r in recs if r.get("split", "test") == "test"}
    assert set(by_task) == {"SentLen", "TreeDepth"}
    td = by_task["TreeDepth"]
    assert "value" not in td and "20 of 20 test sentences" in td["not_applicable"]
    assert td["kind"] == "corpus"  # the data leaves nothing to score: not the language
    assert "training split" in td["not_applicable"]
    assert all(validate_record(r) == [] for r in read_records(res))
    write_report(read_records(res), tmp_path / "rep")
    table = next((tmp_path / "rep").glob("baselines_*.md")).read_text(encoding="utf-8")
    assert "TreeDepth" in table.splitlines()[0] and "| n/a¹ |" in table
    report = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "| TreeDepth | corpus | 20 of 20 test sentences" in report

"""Issue 38, the coverage table: per filled cell the items scored (N: under cv:K every line of
the task file, under tr/va/te the test lines), the protocol and the 95 % half-width at 50 %; a
summary (cells filled, median and smallest N, filled per task); per n/a cell what would fill it
in numbers, and where the release folder has no train file for the language's treebank, that."""

from __future__ import annotations

import json
from pathlib import Path

from xprobe.report.coverage import coverage, write_coverage

CV_REASON = (
    "the corpus is too small: 1480 candidates give 46 balanced lines (38/4/4 at 80/10/10): "
    "needs 97 balanced lines for cv:10 (a 95 % interval of at most +/-10 points at 50 %), "
    "46 found"
)


def _filled(task: str, tr: int, va: int, te: int) -> dict:
    written = {s: {"total": n} for s, n in (("tr", tr), ("va", va), ("te", te))}
    return {"task": task, "file": f"{task}.txt", "written": written}


def _na(task: str, reason: str, kind: str = "corpus") -> dict:
    return {"task": task, "applicable": False, "kind": kind, "reason": reason, "file": None}


def _folder(root: Path, code: str, tasks: dict, protocol: str | None) -> str:
    (root / code).mkdir(parents=True)
    tb = {"ratio": [80, 10, 10], **({"protocol": protocol} if protocol else {"min_test": 100})}
    manifest = {"language": code, "tasks": tasks, "treebank": tb}
    (root / code / "manifest.json").write_text(json.dumps(manifest))
    return str(root / code)


def test_n_is_every_line_under_cv_and_the_test_lines_under_splits(tmp_path: Path) -> None:
    folders = {
        "de": _folder(tmp_path, "de", {
            "sentence_length": _filled("SentLen", 320, 40, 40),
            "past_present": _filled("Tense", 80, 10, 10),
            "subj_number": _na("SubjNum", CV_REASON),
        }, "cv:10"),
        "en": _folder(tmp_path, "en", {
            "sentence_length": _filled("SentLen", 800, 100, 100),
            "past_present": _na("Tense", "no Tense in FEATS", "annotation"),
            "subj_number": _filled("SubjNum", 400, 100, 100),
        }, None),
    }  # fmt: skip
    cov = coverage(folders, missing_train={"de": ["UD_German-GSD"]})
    de, en = cov["languages"]["de"]["tasks"], cov["languages"]["en"]["tasks"]
    assert de["SentLen"] == {"n": 400, "protocol": "cv:10", "half_width": 4.9, "test": 40}
    assert de["Tense"]["n"] == 100 and de["Tense"]["half_width"] == 9.8
    assert en["SentLen"] == {"n": 100, "protocol": "tr/va/te", "half_width": 9.8, "test": 100}
    na = de["SubjNum"]
    assert na["n"] is None and na["would_fill"] == "97 balanced lines (46 found)"
    assert na["missing_train"] == ["UD_German-GSD"]
    assert en["Tense"]["would_fill"] is None and "missing_train" not in en["Tense"]
    s = cov["summary"]
    assert (s["filled"], s["cells"], s["median_n"], s["min_n"]) == (4, 6, 100, 100)
    assert s["filled_by_task"] == {"SentLen": 2, "Tense": 1, "SubjNum": 1}
    assert s["protocols"] == {"cv:10": 2, "tr/va/te": 2}
    write_coverage(folders, str(tmp_path / "r"), missing_train={"de": ["UD_German-GSD"]})
    md = (tmp_path / "r" / "coverage.md").read_text()
    assert "4 of 6 cells filled" in md and "median 100 (±9.8 points), smallest 100" in md
    assert "| de | shipped | 400 ±4.9 | 100 ±9.8 | n/a (corpus) |" in md, md
    assert "97 balanced lines (46 found)" in md
    assert "the release's train file for this treebank is not in the folder (UD_German-GSD)" in md
    assert json.loads((tmp_path / "r" / "coverage.json").read_text()) == cov


def test_would_fill_reads_the_fixed_split_reason_too(tmp_path: Path) -> None:
    reason = (
        "the corpus is too small: 300 candidates give 300 balanced lines (240/30/30 at "
        "80/10/10): test would hold 30 lines, fewer than --min-test 100"
    )
    folders = {"ta": _folder(tmp_path, "ta", {"sentence_length": _na("SentLen", reason)}, None)}
    cell = coverage(folders)["languages"]["ta"]["tasks"]["SentLen"]
    assert cell["would_fill"] == "100 test lines (30 found)"

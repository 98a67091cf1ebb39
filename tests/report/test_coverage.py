"""The coverage table (languages x tasks) and the report's heatmap with languages as rows."""

from __future__ import annotations

import json
from pathlib import Path

from xprobe.report.build import write_report
from xprobe.report.coverage import coverage, write_coverage

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _filled(task: str, test: int) -> dict:
    return {"task": task, "file": f"{task}.txt", "written": {"te": {"total": test}}}


def _na(task: str, reason: str, kind: str | None = None) -> dict:
    entry = {"task": task, "applicable": False, "reason": reason, "file": None, "lines": 0}
    return {**entry, "kind": kind} if kind else entry


def _folder(root: Path, code: str, tasks: dict[str, dict]) -> str:
    (root / code).mkdir(parents=True)
    (root / code / "manifest.json").write_text(json.dumps({"language": code, "tasks": tasks}))
    return str(root / code)


def test_coverage_cells_summary_and_markdown(tmp_path: Path) -> None:
    folders = {
        "ta": _folder(tmp_path, "ta", {
            "past_present": _na("Tense", "142 candidates: 12 test lines < 100", "corpus"),
            "sentence_length": _filled("SentLen", 120),
        }),
        "de": _folder(tmp_path, "de", {
            "past_present": _filled("Tense", 300),
            "sentence_length": _filled("SentLen", 400),
        }),
        "vi": _folder(tmp_path, "vi", {
            "past_present": _na("Tense", "no Tense | in FEATS"),  # no kind (older manifests)
            "sentence_length": _filled("SentLen", 200),
        }),
    }  # fmt: skip
    cov = coverage(folders, drafted=["ta", "vi"])
    assert cov["tasks"] == ["SentLen", "Tense"]
    assert list(cov["languages"]) == ["de", "ta", "vi"]
    splits = "tr/va/te"  # no treebank protocol in the manifest: the test lines are scored
    assert cov["languages"]["de"] == {
        "profile": "shipped", "tasks": {
            "Tense": {"n": 300, "protocol": splits, "half_width": 5.7, "test": 300},
            "SentLen": {"n": 400, "protocol": splits, "half_width": 4.9, "test": 400},
        },
    }  # fmt: skip
    assert cov["languages"]["ta"]["tasks"]["Tense"] == {
        "n": None, "test": None, "kind": "corpus", "would_fill": None,
        "reason": "142 candidates: 12 test lines < 100",
    }  # fmt: skip
    assert cov["summary"] == {
        "languages": 3, "tasks": 2, "cells": 6, "filled": 4, "median_n": 250,
        "min_n": 120, "filled_by_task": {"SentLen": 3, "Tense": 1},
        "protocols": {"tr/va/te": 4}, "na_by_kind": {"corpus": 1, "unstated": 1},
    }  # fmt: skip
    write_coverage(folders, str(tmp_path / "report"), ["ta", "vi"])
    assert json.loads((tmp_path / "report" / "coverage.json").read_text()) == cov
    md = (tmp_path / "report" / "coverage.md").read_text()
    assert "| language | profile | SentLen | Tense |" in md
    assert "| de | shipped | 400 ±4.9 | 300 ±5.7 |" in md
    assert "| ta | draft | 120 ±8.9 | n/a (corpus) |" in md
    assert "| vi | draft | 200 ±6.9 | n/a |" in md
    assert "| ta | Tense | corpus |  | 142 candidates: 12 test lines < 100 |" not in md  # escaped
    assert "| ta | Tense | corpus |  | 142 candidates: 12 test lines \\< 100 |" in md
    assert "| vi | Tense |  |  | no Tense \\| in FEATS |" in md


def test_missing_manifest_is_one_line(tmp_path: Path) -> None:
    import pytest

    from xprobe.errors import XProbeError

    (tmp_path / "xx").mkdir()
    with pytest.raises(XProbeError, match=r"xx/manifest\.json: no manifest"):
        coverage({"xx": str(tmp_path / "xx")})


def _rec(lang: str, task: str, value: float, enc: str = "bov") -> dict:
    return {
        "encoder": enc, "encoder_id": enc, "dataset": "ud", "language": lang, "task": task,
        "classifier": "lr", "seed": 0, "split": "test", "metric": "accuracy", "value": value,
        "n_train": 800, "n_test": 100, "dataset_hash": f"h-{lang}-{task}",
        "protocol": "tr/va/te", "grid": "default", "max_train": None, "hyperparameters": {},
        "version": "0.1.0",
    }  # fmt: skip


def test_report_heatmap_has_languages_as_rows(tmp_path: Path) -> None:
    recs = [_rec(lang, task, v) for lang, task, v in [
        ("de", "SentLen", 0.61), ("de", "Tense", 0.82), ("ta", "SentLen", 0.40),
        ("vi", "SentLen", 0.55), ("vi", "Tense", 0.70),
    ]]  # fmt: skip
    write_report(recs, tmp_path / "r", reference="de")
    md = (tmp_path / "r" / "languages_ud_lr_bov.md").read_text()
    assert md.splitlines() == [
        "| language | SentLen | Tense |", "|---|---|---|",
        "| de | 61.0 | 82.0 |", "| ta | 40.0 | – |", "| vi | 55.0 | 70.0 |",
    ]  # fmt: skip
    assert (tmp_path / "r" / "languages_ud_lr_bov.png").read_bytes()[:8] == PNG_MAGIC
    assert "![bov by language](languages_ud_lr_bov.png)" in (tmp_path / "r/report.md").read_text()
    two = [r for r in recs if r["language"] != "vi"]  # two languages: the tables say it
    write_report(two, tmp_path / "r2", reference="de")
    assert not list((tmp_path / "r2").glob("languages_*"))


def test_a_task_name_from_a_manifest_is_text_in_every_cell(tmp_path: Path) -> None:
    """A manifest's task name is a name: a ``|`` in it shifts no column, markup stays text."""
    from xprobe.report.md import split_cells

    folders = {"de": _folder(tmp_path, "de", {
        "x": _filled("T|ask", 150),
        "y": _na("![y](/etc/hostname)", "no such thing", "corpus"),
    })}  # fmt: skip
    write_coverage(folders, str(tmp_path / "report"))
    md = (tmp_path / "report" / "coverage.md").read_text()
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    header, reasons_header = rows[0], rows[2]
    assert len(split_cells(header)) == 4 and "T\\|ask" in header
    assert len(split_cells(rows[1])) == len(split_cells(header))
    assert len(split_cells(rows[3])) == len(split_cells(reasons_header)) == 5
    assert "![y](" not in md and "!\\[y\\](/etc/hostname)" in md

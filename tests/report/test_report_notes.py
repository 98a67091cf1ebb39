"""The report says which test sentences were removed and where vocabulary coverage is low."""

from __future__ import annotations

from xprobe.report.build import write_report
from xprobe.report.notes import data_notes


def _rec(task, value, **extra):
    return {
        "encoder": "bov-en", "encoder_id": "bov-id", "dataset": "xprobe", "language": "en",
        "task": task, "classifier": "mlp", "seed": 0, "split": "test", "metric": "accuracy",
        "value": value, "n_train": 10000, "n_test": 4528, "dataset_hash": "h",
        "protocol": "tr=va; va,te=halves of te (seed 0)", "grid": "default", "max_train": None,
        "hyperparameters": {}, "version": "0.1.0", **extra,
    }  # fmt: skip


def test_report_states_removed_overlap_and_low_coverage(tmp_path):
    recs = [
        _rec("SOMO", 0.6, overlap_removed={"va": 467, "te": 472},
             vocab_coverage={"tokens": 1000, "tokens_found": 900, "types": 50,
                             "types_found": 40}),
        _rec("SentLen", 0.7, overlap_removed={"va": 0, "te": 0},
             vocab_coverage={"tokens": 1000, "tokens_found": 990, "types": 50,
                             "types_found": 49}),
        {**_rec("SOMO", 0.5, overlap_removed={"va": 467, "te": 472}), "split": "dev"},
    ]  # fmt: skip
    write_report(recs, tmp_path)
    md = (tmp_path / "report.md").read_text()
    assert "## Notes on the data" in md
    assert "xprobe / en / SOMO: 472 of 5000 test sentences" in md  # 4528 scored + 472 removed
    assert "SentLen: 0 of" not in md  # nothing removed: no note
    assert "bov-en on xprobe / en / SOMO: 90.0% of tokens (80.0% of types)" in md
    assert "SentLen: 99.0%" not in md


def test_no_notes_without_overlap_or_low_coverage():
    assert data_notes([_rec("SentLen", 0.7)]) == []
    assert data_notes([_rec("SentLen", 0.7, overlap_removed={"va": 3, "te": 0})]) != []

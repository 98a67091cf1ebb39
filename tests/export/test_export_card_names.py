"""The dataset card prints a manifest's task names, labels and reasons as text: a ``|`` shifts
no column of the task table, markup such as ``![x](/etc/hostname)`` stays characters."""

from __future__ import annotations

from pathlib import Path

from xprobe.export.card import dataset_card
from xprobe.report.md import split_cells


def test_card_cells_from_a_manifest_are_text(tmp_path: Path) -> None:
    manifest = {
        "language": "en",
        "tasks": {
            "bigram_shift": {"task": "B|Shift", "labels": ["O", "I|x"], "params": {}},
            "past_present": {"task": "Tense", "applicable": False, "kind": "corpus",
                             "reason": "![x](/etc/hostname) *too* few"},
        },
    }  # fmt: skip
    sizes = {
        "bigram_shift": {"train": 4, "validation": 2, "test": 2},
        "past_present": {"train": 0, "validation": 0, "test": 0},
    }
    card = dataset_card(manifest, sizes, tmp_path, license_id="other", date="2026-11-26")
    rows = [r for r in card.splitlines() if r.startswith("| ")]
    header = next(r for r in rows if r.startswith("| config |"))
    table = [r for r in rows[rows.index(header) + 1 :] if not r.startswith("|---")]
    assert table and all(len(split_cells(r)) == len(split_cells(header)) for r in table[:2])
    assert "B\\|Shift" in card and "![x](" not in card

"""probe's flags for every encoder: --lowercase (lower-cased vector files find capitalised
words), --threads (torch threads), caps on dev/test recorded in the protocol."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from xprobe.cli import main
from xprobe.encoders.spec import parse_encoder


def test_lowercase_finds_capitalised_words(tmp_path: Path) -> None:
    vec = tmp_path / "lc.vec"
    vec.write_text("3 2\nthe 1 0\nhaus 0 1\nsteht 1 1\n", encoding="utf-8")
    sent = [["Das", "Haus", "steht"]]
    cased = parse_encoder(f"bov:{vec}", vocab={"Das", "Haus", "steht"})
    lower = parse_encoder(f"bov:{vec}", vocab={"Das", "Haus", "steht"}, lowercase=True)
    np.testing.assert_allclose(cased.encode(sent)[0], [1, 1])  # only "steht": Haus is skipped
    np.testing.assert_allclose(lower.encode(sent)[0], [0.5, 1])  # haus and steht
    assert cased.id != lower.id


def test_cli_threads_lowercase_and_caps(tmp_path: Path) -> None:
    import torch

    data = tmp_path / "de"
    data.mkdir()
    lines = []
    for split, n in (("tr", 12), ("va", 8), ("te", 8)):
        for i in range(n):
            label, verb = (("PAST", "stand"), ("PRES", "steht"))[i % 2]
            # a number per line: no test sentence repeats a training one (those are not scored)
            lines.append(f"{split}\t{label}\tDas Haus {split}{i} {verb} .")
    (data / "past_present.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    vec = tmp_path / "lc.vec"
    vec.write_text("4 2\ndas 1 0\nhaus 0 1\nsteht 1 1\nstand -1 1\n", encoding="utf-8")
    before = torch.get_num_threads()
    try:
        rc = main(["probe", "--encoder", f"bov:{vec}", "--data", str(data), "--out",
                   str(tmp_path / "r.jsonl"), "--lang", "de", "--classifier", "lr", "--lowercase",
                   "--threads", "1", "--max-dev", "4", "--max-test", "6",
                   "--cache-dir", str(tmp_path / "c"), "--max-epochs", "5"])  # fmt: skip
        assert rc == 0 and torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
    recs = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert {(r["split"], r["n_test"]) for r in recs} == {("dev", 4), ("test", 6)}
    assert all("va capped to 4, te capped to 6" in r["protocol"] for r in recs)
    assert all(":lc" in r["encoder_id"] for r in recs)

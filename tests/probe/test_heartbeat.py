"""A probe step reports its progress at least once a minute (issue 41: inside a study a long
probe step printed nothing for minutes while the study's ETA ran)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

from xprobe.probe import heartbeat
from xprobe.probe.heartbeat import Heartbeat


def test_the_heartbeat_says_what_is_done_and_what_runs(caplog) -> None:
    with caplog.at_level(logging.INFO, logger="xprobe"):
        with Heartbeat("probe bov (de)", units=4, tasks=2, every=0.02) as beat:
            beat.start("SentLen mlp seed 0", layers=7)
            beat.layers_done(3)
            beat.part = "folds 2 of 5 done"
            time.sleep(0.15)
        lines = [r.getMessage() for r in caplog.records if r.name == "xprobe.probe.heartbeat"]
    assert lines and lines[-1] == (
        "probe bov (de): 0 of 4 (task, classifier, seed) done, 0 of 2 tasks; now SentLen mlp "
        "seed 0, layers 3 of 7 done, folds 2 of 5 done"
    )
    n = len(lines)
    time.sleep(0.1)
    assert len(caplog.records) >= n  # stopped: no line after the block
    assert beat._thread is not None and not beat._thread.is_alive()


def test_a_probe_run_beats_with_its_language_and_tasks(tmp_path: Path, monkeypatch, capsys):
    from tests.extract.test_treebank_cv import _unasked, corpus
    from xprobe.cli import main

    data = tmp_path / "data"
    _unasked(data, corpus(tmp_path / "c.conllu", 300, long=5))  # SentLen, SubjNum; cv:10
    monkeypatch.setattr(heartbeat, "EVERY", 0.001)
    capsys.readouterr()
    out = tmp_path / "r.jsonl"
    assert main(["probe", "--data", str(data), "--out", str(out), "--cv", "10",
                 "--classifier", "majority", "length"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    beats = [x for x in err.splitlines() if "xprobe.probe.heartbeat" in x]
    assert beats, err
    assert all("probe baseline (en): " in x and " of 4 (task, classifier, seed) done, " in x
               and " of 2 tasks" in x for x in beats), beats  # fmt: skip


def test_the_n_a_line_names_the_language(tmp_path: Path, capsys) -> None:
    from tests.extract.test_treebank_cv import corpus
    from xprobe.cli import main

    data = tmp_path / "data"
    assert main(["extract", "--lang", "en", "--out", str(data), "--treebank", "--protocol",
                 "cv:10", "--tasks", "SentLen", "--param", "sentence_length.bins=5,13",
                 "--no-progress", str(corpus(tmp_path / "c.conllu", 90))]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["probe", "--data", str(data), "--out", str(tmp_path / "r.jsonl"), "--cv", "10",
                 "--classifier", "majority"]) == 0  # fmt: skip
    said = [x for x in capsys.readouterr().err.splitlines() if "n/a: SentLen" in x]
    assert said and all("xprobe.probe.harness: en: n/a: SentLen (corpus: " in x for x in said)

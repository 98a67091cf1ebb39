"""Records say which teacher a mapped checkpoint came from and which tasks were partly filled."""

from __future__ import annotations

import json

import numpy as np
import pytest

from xprobe.probe.classifiers import TrainConfig
from xprobe.probe.harness import ProbeOptions, run_probe

pytest.importorskip("torch")

from tests.mapping.test_sentmap import _map_args, toy  # noqa: F401 - a real `xprobe map`


def _data(d):
    g = np.random.default_rng(0)
    lines = []
    for split, k in (("tr", 40), ("va", 20), ("te", 20)):
        for _ in range(k):
            n = int(g.integers(2, 9))
            words = " ".join(f"w{int(i)}" for i in g.integers(0, 10, size=n))
            lines.append(f"{split}\t{'long' if n >= 5 else 'short'}\t{words}\n")
    d.mkdir(parents=True)
    (d / "sentence_length.txt").write_text("".join(lines), encoding="utf-8")
    manifest = {"language": "de", "tasks": {"sentence_length.txt": {"partial": True}}}
    (d / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def _student(path, older: bool = False):
    """A checkpoint with the metadata ``xprobe map`` writes (mapping/trainer.py ``_meta``:
    ``teacher``, ``teacher_id`` in ``extra``), or, ``older``, the layout of the trainer before
    it (``extra.mapping.teacher_id``)."""
    from xprobe.encoders.checkpoint import save_encoder
    from xprobe.encoders.neural import random_encoder
    from xprobe.encoders.vectors import WordVectors

    words = [f"w{i}" for i in range(10)]
    vecs = WordVectors(words, np.random.default_rng(1).normal(size=(10, 8)).astype(np.float32))
    enc = random_encoder("bilstm-max", vecs, hidden=8)
    teacher, tid = "/m/en-bilstm-max/", "bilstm-max:teacher123"
    if older:
        extra = {"mapping": {"teacher_id": tid, "config": {"teacher": teacher}}}
    else:
        extra = {"teacher": teacher, "teacher_id": tid, "target_lang": "de",
                 "mapping": {"config": {"teacher": teacher}}}  # fmt: skip
    save_encoder(path, enc, extra=extra)


@pytest.mark.parametrize("older", [False, True])
def test_mapped_checkpoint_and_partial_task_in_records(tmp_path, older):
    _data(tmp_path / "data" / "probing")
    _student(tmp_path / "de-bilstm-max", older)
    opts = ProbeOptions(classifiers=("lr", "majority"), cache_dir=tmp_path / "c", device="cpu",
                        train=TrainConfig(max_epochs=3))  # fmt: skip
    recs = run_probe(str(tmp_path / "de-bilstm-max"), tmp_path / "data" / "probing",
                     tmp_path / "r.jsonl", opts)  # fmt: skip
    lr = [r for r in recs if r["classifier"] == "lr"]
    base = [r for r in recs if r["classifier"] == "majority"]
    assert lr and all(r["mapped_from"] == "bilstm-max:teacher123" for r in lr)
    assert all(r["teacher"] == "en-bilstm-max" and r["language"] == "de" for r in lr)
    assert base and all("mapped_from" not in r for r in base)
    assert all(r["partial"] is True for r in recs)


def test_auto_seeds_one_for_the_converged_lr(tmp_path):
    """lr is solved to convergence: a second seed would repeat the number."""
    _data(tmp_path / "data" / "probing")

    class Length:
        id, dim = "length-v1", 1

        def encode(self, batch):
            return np.array([[len(s)] for s in batch], dtype=np.float32)

    opts = ProbeOptions(classifiers=("lr", "majority"), seeds=None, cache_dir=tmp_path / "c",
                        device="cpu", train=TrainConfig(max_epochs=3))  # fmt: skip
    recs = run_probe(Length(), tmp_path / "data" / "probing", tmp_path / "r.jsonl", opts)
    seeds = {c: sorted({r["seed"] for r in recs if r["classifier"] == c}) for c in ("lr",
             "majority")}  # fmt: skip
    assert seeds == {"lr": [0], "majority": [0]}
    assert {r["training_protocol"] for r in recs if r["classifier"] == "lr"} == {"converged"}
    assert all("training_protocol" not in r for r in recs if r["classifier"] == "majority")


def test_protocols_are_separate_records(tmp_path):
    """A --protocol senteval run is recorded as such and does not count as the converged run
    (nor the converged one as it): both end up in the results file."""
    _data(tmp_path / "data" / "probing")

    class Length:
        id, dim = "length-v1", 1

        def encode(self, batch):
            return np.array([[len(s)] for s in batch], dtype=np.float32)

    out = tmp_path / "r.jsonl"
    for protocol in ("converged", "senteval", "converged"):
        opts = ProbeOptions(classifiers=("lr",), cache_dir=tmp_path / "c", device="cpu",
                            train=TrainConfig(protocol=protocol))  # fmt: skip
        recs = run_probe(Length(), tmp_path / "data" / "probing", out, opts)
        if recs:
            assert {r["training_protocol"] for r in recs} == {protocol}
            hp = recs[0]["hyperparameters"]
            assert ("iterations" in hp) == (protocol == "converged") != ("epochs" in hp)
    from xprobe.probe.records import read_records

    done = read_records(out)
    assert len(done) == 4  # dev + test, per protocol; the third run wrote nothing
    assert {r["training_protocol"] for r in done} == {"converged", "senteval"}


def _length_task(d, words: str, seed: int) -> None:
    """A toy SentLen over ``words`` + 0..39 (the mapping toy's vocabularies), en: e, xx: t."""
    g = np.random.default_rng(seed)
    lines = []
    for split, k in (("tr", 60), ("va", 30), ("te", 30)):
        for _ in range(k):
            n = int(g.integers(2, 9))
            sent = " ".join(f"{words}{int(i)}" for i in g.integers(0, 40, size=n))
            lines.append(f"{split}\t{'long' if n >= 5 else 'short'}\t{sent}\n")
    d.mkdir(parents=True)
    (d / "sentence_length.txt").write_text("".join(lines), encoding="utf-8")


def test_a_real_map_checkpoint_is_paired_with_its_teacher(toy, capsys):  # noqa: F811
    """The issue's case: a student trained by ``xprobe map`` and probed under another name than
    its teacher (``[name=de-student]``) was "Not paired ... no teacher recorded": the trainer
    writes ``extra.teacher_id``, the reader looked in ``extra.mapping``."""
    from xprobe.cli import main
    from xprobe.probe.records import read_records

    assert main(_map_args(toy, "student", "--epochs", "1")) == 0
    _length_task(toy / "probing" / "en", "e", 1)
    _length_task(toy / "probing" / "de", "t", 2)
    out = toy / "r.jsonl"
    for lang, spec in (("en", "teacher[name=en-teacher]"), ("de", "student[name=de-student]")):
        argv = ["probe", "--data", str(toy / "probing" / lang), "--encoder", str(toy / spec),
                "--lang", lang, "--out", str(out), "--classifier", "lr", "majority",
                "--cache-dir", str(toy / "cache"), "--device", "cpu"]  # fmt: skip
        assert main(argv) == 0
    recs = [r for r in read_records(out) if r["classifier"] == "lr"]
    teacher_ids = {r["encoder_id"] for r in recs if r["encoder"] == "en-teacher"}
    student = [r for r in recs if r["encoder"] == "de-student"]
    assert len(teacher_ids) == 1 and student
    assert {r.get("mapped_from") for r in student} == teacher_ids
    assert {r.get("teacher") for r in student} == {"teacher"}
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(toy / "report")]) == 0
    md = (toy / "report" / "report.md").read_text("utf-8")
    assert "Pairs: de-student (de, mapped from en en-teacher): by teacher." in md
    assert "Not paired" not in md

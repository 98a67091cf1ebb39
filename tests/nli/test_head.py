"""NLI heads on frozen encoders (train-nli --frozen) and XNLI evaluation (xprobe xnli)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from xprobe.cli import main
from xprobe.errors import XProbeError

torch = pytest.importorskip("torch")

LABELS = ("entailment", "neutral", "contradiction")


def _toy_nli(d: Path, n: int, seed: int, name: str) -> Path:
    """Pairs whose label a bag of vectors can tell: entailment repeats the premise, contradiction
    adds 'nicht', neutral uses other words."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        prem = [f"w{k}" for k in rng.choice(30, size=4, replace=False)]
        label = LABELS[i % 3]
        if label == "entailment":
            hyp = list(prem)
        elif label == "contradiction":
            hyp = [*prem, "nicht"]
        else:
            hyp = [f"w{k}" for k in rng.choice(30, size=4, replace=False)]
        rows.append(f"{' '.join(prem)} .\t{' '.join(hyp)} .\t{label}\n")
    p = d / name
    p.write_text("".join(rows), encoding="utf-8")
    return p


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(30)] + ["nicht", "."]
    with open(tmp_path / "toy.vec", "w", encoding="utf-8") as f:
        for w in words:
            f.write(w + " " + " ".join(f"{x:.4f}" for x in rng.normal(size=8)) + "\n")
    _toy_nli(tmp_path, 300, 1, "train.tsv")
    _toy_nli(tmp_path, 90, 2, "dev.tsv")
    _toy_nli(tmp_path, 150, 3, "test.tsv")
    return tmp_path


def _head_args(d: Path, out: str, *extra: str) -> list[str]:
    return ["-q", "train-nli", "--frozen", f"bov:{d / 'toy.vec'}", "--train", str(d / "train.tsv"),
            "--dev", str(d / "dev.tsv"), "--out", str(d / out), "--tokenizer", "whitespace",
            "--classifier-hidden", "32", "--lr", "0.01", "--batch-size", "32", "--device", "cpu",
            "--cache-dir", str(d / "cache"), *extra]  # fmt: skip


def test_head_learns_on_a_frozen_encoder_and_caches_vectors(toy, monkeypatch, capsys):
    from xprobe.encoders.bov import BoVEncoder
    from xprobe.nli.head import load_head

    vec_before = (toy / "toy.vec").read_bytes()
    assert main(_head_args(toy, "head", "--test", str(toy / "test.tsv"))) == 0
    out = json.loads(capsys.readouterr().out)
    meta = json.loads((toy / "head" / "head.json").read_text())
    assert meta["encoder_id"].startswith("bov-mean:") and meta["dim"] == 8
    assert meta["pairs"] == {"train": 300, "dev": 90, "test": 150}
    assert meta["best_dev_acc"] >= 0.9 > 1 / 3 + 0.1 >= meta["dev_majority_acc"]
    assert out["test_acc"] == meta["test_acc"] >= 0.85
    assert (toy / "toy.vec").read_bytes() == vec_before  # the encoder's files are untouched
    assert len(list((toy / "cache").rglob("*.npy"))) == 6  # premises + hypotheses per split
    calls = []
    real = BoVEncoder.encode
    monkeypatch.setattr(BoVEncoder, "encode", lambda s, b: calls.append(1) or real(s, b))
    assert main(_head_args(toy, "head2", "--test", str(toy / "test.tsv"))) == 0
    assert calls == []  # second run: every vector from the cache
    again = json.loads((toy / "head2" / "head.json").read_text())
    assert again["history"] == meta["history"]  # seeded: the same run
    clf, m = load_head(toy / "head")
    assert m["encoder_id"] == meta["encoder_id"] and clf.enc_dim == 8


def test_head_cli_errors(toy, capsys):
    assert main([*_head_args(toy, "h"), "--vectors", str(toy / "toy.vec")]) == 2
    assert "--vectors belongs to --encoder" in capsys.readouterr().err
    bad = ["-q", "train-nli", "--frozen", f"npy:{toy / 'x.npy'}", "--train", str(toy / "train.tsv"),
           "--dev", str(toy / "dev.tsv"), "--out", str(toy / "h")]  # fmt: skip
    (toy / "x.npy").write_bytes(b"")
    assert main(bad) == 2
    assert "cannot encode NLI pairs" in capsys.readouterr().err


def test_xnli_command_accuracy_and_bootstrap(toy, capsys):
    from xprobe.mapping.xnli import bootstrap_interval

    assert main(_head_args(toy, "head")) == 0
    capsys.readouterr()
    args = ["-q", "xnli", "--encoder", f"bov:{toy / 'toy.vec'}", "--head", str(toy / "head"),
            "--data", str(toy / "test.tsv"), "--lang", "de", "--out", str(toy / "xnli.json"),
            "--device", "cpu", "--cache-dir", str(toy / "cache"), "--name", "toy"]  # fmt: skip
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    (rec,) = json.loads((toy / "xnli.json").read_text())
    assert rec["n"] == 150 and rec["language"] == "de" and rec["encoder"] == "toy"
    assert rec["accuracy"] == printed["accuracy"] >= 0.85
    lo, hi = rec["ci95"]
    assert lo <= rec["accuracy"] <= hi
    sd = (rec["accuracy"] * (1 - rec["accuracy"]) / 150) ** 0.5  # binomial: width about 3.92 sd
    assert 0.6 * 3.92 * sd <= hi - lo <= 1.4 * 3.92 * sd + 1e-9
    assert main(args) == 0  # a rerun replaces its entry, and gives the same numbers
    assert json.loads((toy / "xnli.json").read_text()) == [rec]
    from xprobe.report.build import load_xnli

    assert load_xnli(toy / "xnli.json") == {("de", "toy"): rec["accuracy"]}
    # by hand: 30 of 40 correct
    c = np.array([1] * 30 + [0] * 10)
    lo, hi = bootstrap_interval(c, 2000, seed=1)
    assert 0.55 < lo < 0.68 and 0.82 < hi < 0.95  # normal approximation: 0.616, 0.884


def test_xnli_dimension_mismatch_is_one_clear_error(toy, capsys, tmp_path):
    assert main(_head_args(toy, "head")) == 0
    rng = np.random.default_rng(1)
    with open(tmp_path / "wide.vec", "w", encoding="utf-8") as f:
        for w in ["w1", "w2", "."]:
            f.write(w + " " + " ".join(f"{x:.3f}" for x in rng.normal(size=5)) + "\n")
    capsys.readouterr()
    assert main(["-q", "xnli", "--encoder", f"bov:{tmp_path / 'wide.vec'}", "--head",
                 str(toy / "head"), "--data", str(toy / "test.tsv"), "--lang", "de",
                 "--device", "cpu", "--cache-dir", str(toy / "cache")]) == 2  # fmt: skip
    assert "reads 8-d vectors" in capsys.readouterr().err
    with pytest.raises(XProbeError, match="needs at least one item"):
        from xprobe.mapping.xnli import bootstrap_interval

        bootstrap_interval(np.zeros(0))


class _Counting:
    """A real (tiny) encoder: vector = [length, number of 'a' tokens]; counts what it encodes."""

    id = "counting-v1"
    dim = 2

    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    def encode(self, batch):
        self.seen += [list(s) for s in batch]
        return np.array([[len(s), s.count("a")] for s in batch], dtype=np.float32)


def test_cached_vectors_encode_each_distinct_sentence_once(tmp_path):
    from xprobe.nli.vectors import cached_vectors

    sents = [["a", "b"], ["c"], ["a", "b"], ["a", "a", "a"], ["c"]]
    enc = _Counting()
    vecs = cached_vectors(enc, sents, tmp_path, desc="t")
    assert vecs.tolist() == [[2, 1], [1, 0], [2, 1], [3, 3], [1, 0]]  # rows in input order
    assert enc.seen == [["a", "b"], ["c"], ["a", "a", "a"]]
    again = cached_vectors(enc, sents, tmp_path, desc="t")
    assert len(enc.seen) == 3 and np.array_equal(again, vecs)  # from the cache
    assert cached_vectors(enc, sents, None).tolist() == vecs.tolist()  # no cache: same rows


def test_cached_vectors_log_progress_when_no_terminal_shows_a_bar(tmp_path, caplog):
    """A long encode run under nohup or a scheduler (no terminal: no progress bar) still says in
    the log how far it is, once per chunk, with counts a reader can check."""
    import logging

    from xprobe.nli.vectors import cached_vectors

    sents = [["w"] * (i % 4 + 1) + [str(i)] for i in range(10)]
    with caplog.at_level(logging.INFO, logger="xprobe.nli.vectors"):
        cached_vectors(_Counting(), sents, tmp_path, desc="teacher vectors", chunk=4)
    lines = [r.getMessage() for r in caplog.records if "of 10 sentences" in r.getMessage()]
    assert lines == [
        "teacher vectors: 4 of 10 sentences encoded",
        "teacher vectors: 8 of 10 sentences encoded",
        "teacher vectors: 10 of 10 sentences encoded",
    ]

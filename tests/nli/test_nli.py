"""NLI readers, features, training (real SNLI), checkpoints + resume, train-nli/encode CLI."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.conftest import shared_path
from xprobe.cli import main
from xprobe.encoders.checkpoint import load_encoder
from xprobe.errors import InputError, XProbeError
from xprobe.nli.data import ReadCounts, make_tokenizer, read_nli
from xprobe.nli.train import NLI_LABELS, TrainConfig, load_classifier, nli_features, train_nli

WORDS = ["a", "b", "c", "d", "e", "f", "g", "h"]


def test_features_layout() -> None:
    u, v = torch.tensor([[1.0, -2.0]]), torch.tensor([[3.0, 1.0]])
    assert nli_features(u, v).tolist() == [[1, -2, 3, 1, 2, 3, 3, -2]]
    assert NLI_LABELS == ("entailment", "neutral", "contradiction")


def test_jsonl_reader_drops_unlabelled_and_tokenises(tmp_path) -> None:
    rows = [
        {"sentence1": "I'm home.", "sentence2": "He didn't.", "gold_label": "contradiction"},
        {"sentence1": "x", "sentence2": "y", "gold_label": "-"},
        {"sentence1": "A dog", "sentence2": "An animal", "gold_label": "entailment"},
    ]
    p = tmp_path / "s.jsonl.gz"
    with gzip.open(p, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    counts = ReadCounts()
    pairs = list(read_nli(p, counts=counts))
    assert [x.label for x in pairs] == [2, 0]
    assert pairs[0].premise == ["I", "'m", "home", "."]
    assert pairs[0].hypothesis == ["He", "didn", "'t", "."]
    assert counts.kept == 2 and counts.no_label == 1


def test_tsv_layouts(tmp_path) -> None:
    plain = tmp_path / "x.tsv"
    plain.write_text("a b\tc\tcontradictory\nd\te\tneutral\nf\tg\t\n", encoding="utf-8")
    ws = make_tokenizer("whitespace")
    assert [(p.premise, p.label) for p in read_nli(plain, ws)] == [(["a", "b"], 2), (["d"], 1)]
    snli = tmp_path / "snli.txt"
    snli.write_text(
        "gold_label\tsentence1_binary_parse\tsentence1\tsentence2\n"
        "neutral\t( a b )\ta b\tc\n-\t( x )\tx\ty\n",
        encoding="utf-8",
    )
    pairs = list(read_nli(snli, ws))
    assert [(p.premise, p.hypothesis, p.label) for p in pairs] == [(["a", "b"], ["c"], 1)]
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\tneutral\nc\td\tmaybe\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.tsv:2: unknown label 'maybe'"):
        list(read_nli(bad, ws))


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """A learnable toy task (whitespace tokens, 6-d vectors): hypothesis word in premise?"""
    tmp_path = tmp_path_factory.mktemp("toy")
    gen = np.random.default_rng(0)
    vec = tmp_path / "toy.vec"
    vec.write_text(
        "".join(
            w + " " + " ".join(f"{x:.4f}" for x in gen.standard_normal(6)) + "\n" for w in WORDS
        )
    )
    r = random.Random(0)
    for name, n in (("train", 160), ("dev", 40)):
        lines = []
        for _ in range(n):
            prem = r.sample(WORDS, 3)
            label = r.choice(NLI_LABELS)
            hyp = prem[0] if label == "entailment" else r.choice(WORDS)
            lines.append(f"{' '.join(prem)}\t{hyp} {r.choice(WORDS)}\t{label}\n")
        (tmp_path / f"{name}.tsv").write_text("".join(lines))
    return tmp_path


def toy_config(d, out: str, **kw) -> TrainConfig:
    base = dict(
        arch="bilstm-max",
        vectors=str(d / "toy.vec"),
        train=[str(d / "train.tsv")],
        dev=str(d / "dev.tsv"),
        out=str(d / out),
        epochs=3,
        batch_size=16,
        patience=5,
        sizes={"hidden": 6, "layers": 2},
        classifier_hidden=8,
        tokenizer="whitespace",
        device="cpu",
    )
    return TrainConfig(**{**base, **kw})


@pytest.fixture(scope="module")
def full_run(toy) -> dict:
    """An uninterrupted 2-epoch run in ``toy/full``: the reference for the resume tests."""
    return train_nli(toy_config(toy, "full", epochs=2))


def test_resume_gives_the_same_result_as_an_uninterrupted_run(toy, full_run) -> None:
    full = full_run
    part = train_nli(toy_config(toy, "part", epochs=1))  # "crashes" after epoch 1
    assert part["epochs_run"] == 1
    with pytest.raises(XProbeError, match="--resume"):
        train_nli(toy_config(toy, "part"))
    with pytest.raises(XProbeError, match=r"settings differ: \['lr'\]"):
        train_nli(toy_config(toy, "part", resume=True, lr=0.01))
    resumed = train_nli(toy_config(toy, "part", epochs=2, resume=True))
    assert resumed["history"] == full["history"] and resumed["epochs_run"] == 2
    a = torch.load(toy / "full" / "train_state.pt", weights_only=True)
    b = torch.load(toy / "part" / "train_state.pt", weights_only=True)
    for key in a["encoder"]:
        assert torch.equal(a["encoder"][key], b["encoder"][key]), key
    assert load_encoder(toy / "full").id == load_encoder(toy / "part").id


def test_crash_mid_epoch_then_resume(toy, full_run, monkeypatch) -> None:
    import xprobe.nli.train

    full = full_run
    real_evaluate, calls = xprobe.nli.train.evaluate, []

    def crashing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:  # epoch 2 trained, then the machine "dies" before saving
            raise KeyboardInterrupt
        return real_evaluate(*args, **kwargs)

    monkeypatch.setattr(xprobe.nli.train, "evaluate", crashing)
    with pytest.raises(KeyboardInterrupt):
        train_nli(toy_config(toy, "crash", epochs=2))
    monkeypatch.setattr(xprobe.nli.train, "evaluate", real_evaluate)
    resumed = train_nli(toy_config(toy, "crash", epochs=2, resume=True))
    assert resumed["history"] == full["history"]
    assert load_encoder(toy / "crash").id == load_encoder(toy / "full").id


def test_output_dir_is_a_usable_encoder_and_classifier(toy) -> None:
    (toy / "probe.txt").write_text("a extra\tO\nb\tI\n")
    toy_vec = (toy / "toy.vec").read_text() + "extra " + " ".join(["0.5"] * 6) + "\n"
    (toy / "toy2.vec").write_text(toy_vec)
    cfg = toy_config(toy, "m", epochs=2, vocab_from=[str(toy / "probe.txt")])
    summary = train_nli(TrainConfig(**{**cfg.__dict__, "vectors": str(toy / "toy2.vec")}))
    enc = load_encoder(toy / "m")
    assert "extra" in enc.vectors and "zzz" not in enc.vectors
    clf = load_classifier(toy / "m")
    pairs = list(read_nli(toy / "dev.tsv", make_tokenizer("whitespace")))
    u = torch.from_numpy(enc.encode([p.premise for p in pairs]))
    v = torch.from_numpy(enc.encode([p.hypothesis for p in pairs]))
    with torch.no_grad():
        pred = clf(nli_features(u, v)).argmax(dim=1).numpy()
    acc = float(np.mean(pred == np.array([p.label for p in pairs])))
    assert acc == pytest.approx(summary["best_dev_acc"], abs=1e-9)
    cfg = json.loads((toy / "m" / "config.json").read_text())
    assert cfg["extra"]["best_dev_acc"] == summary["best_dev_acc"]
    (toy / "m" / "nli_classifier.pt").write_bytes(b"junk")
    with pytest.raises(XProbeError, match=r"nli_classifier\.pt: corrupted"):
        load_classifier(toy / "m")


def test_cli_train_then_encode(toy, capsys) -> None:
    common = ["--vectors", str(toy / "toy.vec"), "--train", str(toy / "train.tsv")]
    args = ["train-nli", "--encoder", "cnn-avg", *common, "--dev", str(toy / "dev.tsv")]
    args += ["--out", str(toy / "c"), "--epochs", "1", "--channels", "4", "--proj-dim", "5"]
    assert main([*args, "--tokenizer", "whitespace", "--device", "cpu"]) == 0
    assert json.loads(capsys.readouterr().out.strip())["epochs_run"] == 1
    (toy / "s.txt").write_text("a b c\n\nh zzz g\n")
    assert (
        main(
            ["encode", "--encoder", str(toy / "c"), str(toy / "s.txt"), "--out", str(toy / "s.npy")]
        )
        == 0
    )
    got = np.load(toy / "s.npy")
    enc = load_encoder(toy / "c")
    np.testing.assert_allclose(got, enc.encode([["a", "b", "c"], [], ["h", "zzz", "g"]]), atol=1e-6)
    assert (
        main(["encode", "--encoder", str(toy / "nope"), str(toy / "s.txt"), "--out", "x.npy"]) == 2
    )


def train_fasttext(text: Path, out: Path, **kw) -> None:
    """fastText skipgram vectors -> ``out`` (.bin), trained in a fresh process: in a process that
    has already done other work, fastText's training here failed with "Encountered NaN"."""
    code = (
        "import sys, fasttext; m = fasttext.train_unsupervised(sys.argv[1], minCount=1, "
        f"thread=1, verbose=0, **{kw!r}); m.save_model(sys.argv[2])"
    )
    subprocess.run([sys.executable, "-c", code, str(text), str(out)], check=True, timeout=300)


@pytest.mark.slow
def test_tiny_real_snli_run_learns(tmp_path) -> None:
    """fastText vectors trained here on SNLI sentences; a tiny BiLSTM beats the majority class.

    ~25 s on an idle 2-core CPU, much more on a busy one: marked slow."""
    pytest.importorskip("fasttext")
    src = {s: shared_path("data", "snli", f"snli_1.0_{s}.jsonl.gz") for s in ("dev", "test")}
    lines = {"train": [], "dev": [], "test": []}
    with gzip.open(src["dev"], "rt", encoding="utf-8") as f:
        for i, line in enumerate(f):
            lines["train" if i < 3000 else "dev"].append(line)
            if i >= 3600:
                break
    with gzip.open(src["test"], "rt", encoding="utf-8") as f:
        lines["test"] = [line for _, line in zip(range(800), f, strict=False)]
    tok = make_tokenizer()
    with open(tmp_path / "text.txt", "w", encoding="utf-8") as out:
        for name, rows in lines.items():
            (tmp_path / f"{name}.jsonl").write_text("".join(rows), encoding="utf-8")
            for p in read_nli(tmp_path / f"{name}.jsonl", tok):
                out.write(" ".join(p.premise) + "\n" + " ".join(p.hypothesis) + "\n")
    train_fasttext(tmp_path / "text.txt", tmp_path / "v.bin", dim=32, epoch=3)
    cfg = TrainConfig(
        arch="bilstm-max",
        vectors=str(tmp_path / "v.bin"),
        train=[str(tmp_path / "train.jsonl")],
        dev=str(tmp_path / "dev.jsonl"),
        test=str(tmp_path / "test.jsonl"),
        out=str(tmp_path / "m"),
        epochs=3,
        sizes={"hidden": 32, "layers": 1},
        classifier_hidden=64,
        device="cpu",
    )
    summary = train_nli(cfg)
    losses = [h["train_loss"] for h in summary["history"]]
    assert losses[-1] < losses[0]
    assert summary["test_acc"] > summary["test_majority_acc"] + 0.05

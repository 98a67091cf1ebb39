"""Layer-wise probing of a tiny transformer: one record per layer, every layer trained at once
with the same result as alone, cached per layer (a second task/seed/classifier never encodes),
checksummed cache entries, and caps that encode only the sentences used."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from xprobe.probe.cache import EmbeddingCache
from xprobe.probe.classifiers import TrainConfig, train_select
from xprobe.probe.harness import ProbeOptions, run_probe
from xprobe.probe.layerwise import train_select_layers

SUBJ = ["the cat", "the dog", "he", "she", "a big dog", "the red house", "two cats", "the mat"]
VERB = {"PAST": ["walked", "sat", "said"], "PRES": ["walks", "sits", "says"]}
REST = ["today", "on the mat", "yesterday", "hello", ""]


def make_probing_dir(root: Path, n_train: int = 48, n_eval: int = 16) -> Path:
    """A SentEval-format Tense file from templates (label = tense of the verb)."""
    rng = np.random.default_rng(0)
    lines = []
    for split, n in (("tr", n_train), ("va", n_eval), ("te", n_eval)):
        for i in range(n):
            label = ("PAST", "PRES")[i % 2]
            words = [
                rng.choice(SUBJ),
                rng.choice(VERB[label]),
                rng.choice(REST),
                ".",
            ]
            lines.append(f"{split}\t{label}\t{' '.join(w for w in words if w)}")
    d = root / "en"
    d.mkdir(parents=True, exist_ok=True)
    (d / "past_present.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return d


def opts(tmp: Path, **kw) -> ProbeOptions:
    base = {
        "classifiers": ("lr",),
        "cache_dir": tmp / "cache",
        "device": "cpu",
        "language": "en",
        "train": TrainConfig(max_epochs=8, patience=3),
    }
    return ProbeOptions(**{**base, **kw})


@pytest.fixture
def encoder(tiny_bert: Path):
    from xprobe.encoders.transformer import load_transformer

    return load_transformer(f"hf:{tiny_bert}", device="cpu", batch_size=16)


def test_layer_records_and_equal_to_one_layer_alone(tiny_bert: Path, tmp_path: Path) -> None:
    data = make_probing_dir(tmp_path)
    recs = run_probe(f"hf:{tiny_bert}", data, tmp_path / "r.jsonl", opts(tmp_path))
    assert sorted({r["layer"] for r in recs}) == [0, 1, 2]
    assert len(recs) == 3 * 2
    for r in recs:
        assert r["encoder_id"].endswith(f":layer={r['layer']}")
        assert 0.0 <= r["value"] <= 1.0 and r["encoder"] == "hf-tiny-bert"
    alone = run_probe(f"hf:{tiny_bert}[layers=1]", data, tmp_path / "one.jsonl", opts(tmp_path))
    joint = {(r["split"]): r["value"] for r in recs if r["layer"] == 1}
    assert {r["split"]: r["value"] for r in alone} == joint
    assert all(r["layer"] == 1 for r in alone)
    # the records file holds them all, readable and keyed by layer
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    assert sorted(json.loads(x)["layer"] for x in lines) == [0, 0, 1, 1, 2, 2]


def test_wide_training_matches_each_layer_alone() -> None:
    rng = np.random.default_rng(1)
    n, d = 300, 12
    y = rng.integers(0, 3, n)
    xs = [(rng.normal(size=(n, d)) + k * np.eye(3, d)[y]).astype(np.float32) for k in range(3)]
    tr, va, te = slice(0, 200), slice(200, 250), slice(250, 300)
    cfg = TrainConfig(max_epochs=10)
    for kind in ("lr", "mlp"):
        joint = train_select_layers(
            [x[tr] for x in xs], y[tr], [x[va] for x in xs], y[va], [x[te] for x in xs], y[te],
            kind=kind, seed=3, config=cfg,
        )  # fmt: skip
        for x, r in zip(xs, joint, strict=True):
            alone = train_select(x[tr], y[tr], x[va], y[va], x[te], y[te], kind, seed=3,
                                 config=cfg)  # fmt: skip
            assert (r.selected, r.dev_acc, r.test_acc) == (
                alone.selected, alone.dev_acc, alone.test_acc,
            )  # fmt: skip
        # the layers are different problems: their accuracies are not all equal
        assert len({r.dev_acc for r in joint}) > 1


def test_cache_hits_do_not_encode(encoder, tmp_path: Path) -> None:
    data = make_probing_dir(tmp_path)
    run_probe(encoder, data, tmp_path / "r.jsonl", opts(tmp_path))
    calls = encoder.calls
    assert calls == 1  # every distinct line of the folder, all layers in one pass
    # another classifier and another seed: nothing is encoded again
    run_probe(encoder, data, tmp_path / "r.jsonl", opts(tmp_path, classifiers=("mlp",), seeds=2))
    assert encoder.calls == calls
    cache = EmbeddingCache(tmp_path / "cache")
    layer_dirs = [p for p in (tmp_path / "cache").iterdir() if p.is_dir()]
    assert len(layer_dirs) == 3  # one folder per layer id, each layer stored once
    assert cache.root == tmp_path / "cache"


def test_corrupted_entry_is_reencoded_with_a_warning(encoder, tmp_path: Path, caplog) -> None:
    data = make_probing_dir(tmp_path)
    first = run_probe(encoder, data, tmp_path / "r.jsonl", opts(tmp_path))
    entry = sorted((tmp_path / "cache").rglob("*.npy"))[0]
    raw = bytearray(entry.read_bytes())
    raw[-8:] = b"\x00\x00\x80\x7f\x00\x00\xc0\x7f"  # same size, different floats (inf, nan)
    entry.write_bytes(bytes(raw))
    calls = encoder.calls
    with caplog.at_level(logging.WARNING):
        again = run_probe(encoder, data, tmp_path / "r.jsonl", opts(tmp_path, force=True))
    assert "corrupted (checksum mismatch)" in caplog.text
    assert encoder.calls == calls + 1
    assert [r["value"] for r in again] == [r["value"] for r in first]
    assert np.isfinite(np.load(entry)).all()  # the entry was written again, verified


def test_entry_without_checksum_is_not_trusted(tmp_path: Path, caplog) -> None:
    cache = EmbeddingCache(tmp_path)
    arr = np.arange(6, dtype=np.float32).reshape(3, 2)
    p = cache.store("enc", "h", arr)
    np.testing.assert_array_equal(cache.load("enc", "h", 3), arr)
    p.with_suffix(".json").unlink()
    with caplog.at_level(logging.WARNING):
        assert cache.load("enc", "h", 3) is None
    assert "no readable checksum" in caplog.text


def test_caps_encode_only_the_sentences_used(encoder, tmp_path: Path) -> None:
    data = make_probing_dir(tmp_path)
    recs = run_probe(
        encoder, data, tmp_path / "r.jsonl",
        opts(tmp_path, max_train=20, max_dev=10, max_test=12),
    )  # fmt: skip
    shapes = [json.loads(p.read_text())["shape"][0] for p in (tmp_path / "cache").rglob("*.json")]
    assert sorted(shapes) == sorted([20, 10, 12] * 3)
    assert {r["n_train"] for r in recs} == {20}
    assert {(r["split"], r["n_test"]) for r in recs} == {("dev", 10), ("test", 12)}
    assert all("capped" in r["protocol"] for r in recs)


def test_float16_entries_are_kept_apart(tmp_path: Path) -> None:
    arr = (np.arange(6, dtype=np.float32) / 3).reshape(3, 2)
    EmbeddingCache(tmp_path, dtype="float16").store("enc", "h", arr)
    assert EmbeddingCache(tmp_path).load("enc", "h", 3) is None  # a float32 cache never reads it
    half = EmbeddingCache(tmp_path, dtype="float16").load("enc", "h", 3)
    assert half is not None and half.dtype == np.float32
    np.testing.assert_allclose(half, arr, rtol=1e-3)
    assert not np.array_equal(half, arr)  # 1/3 is not exact in float16

"""The probe harness end to end on a tiny hand-made probing folder: records, cache, skipping."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.toy_tasks import write_length_task
from xprobe.encoders.bov import BoVEncoder
from xprobe.encoders.spec import CallableEncoder, NpyEmbeddings, default_name, parse_encoder
from xprobe.encoders.vectors import WordVectors
from xprobe.errors import XProbeError
from xprobe.probe.cache import EmbeddingCache, sentences_hash
from xprobe.probe.classifiers import TrainConfig
from xprobe.probe.harness import ProbeOptions, run_probe
from xprobe.probe.records import append_records, read_records, validate_record

pytest.importorskip("torch")

FAST = TrainConfig(max_epochs=40, patience=10, lr=1e-2)


def _write_task(path, n=60):
    """SentLen-like: label 'long' iff the sentence has >= 5 tokens; words w0..w9."""
    write_length_task(path, n)


@pytest.fixture
def data(tmp_path):
    d = tmp_path / "toy" / "xx"
    d.mkdir(parents=True)
    _write_task(d / "sentence_length.txt")
    return d


class CountingEncoder:
    """Counts tokens per sentence (plus a constant): encodes length, as BoV-sum would."""

    id = "counting-v1"
    dim = 2

    def __init__(self):
        self.calls = 0

    def encode(self, batch):
        self.calls += 1
        return np.array([[len(s), 1.0] for s in batch], dtype=np.float32)


def _opts(tmp_path, **kw):
    kw.setdefault("language", "xx")
    return ProbeOptions(cache_dir=tmp_path / "cache", train=FAST, device="cpu", **kw)


def test_records_validate_and_learn(tmp_path, data):
    out = tmp_path / "r.jsonl"
    enc = CountingEncoder()
    recs = run_probe(enc, data, out, _opts(tmp_path, classifiers=("lr", "majority"), name="cnt"))
    assert len(recs) == 4 and all(validate_record(r) == [] for r in recs)
    assert read_records(out) == recs
    test = {r["classifier"]: r for r in recs if r["split"] == "test"}
    assert test["lr"]["value"] > 0.9  # length is linearly readable from the first dimension
    assert test["lr"]["encoder"] == "cnt" and test["majority"]["encoder"] == "baseline"
    assert test["lr"]["language"] == "xx" and test["lr"]["dataset"] == "toy"
    assert test["lr"]["task"] == "SentLen" and test["lr"]["n_train"] == 60
    assert test["lr"]["n_test"] == 30 and "l2" in test["lr"]["hyperparameters"]


def test_cache_hit_on_second_run_and_rerun_skips(tmp_path, data):
    out = tmp_path / "r.jsonl"
    enc = CountingEncoder()
    run_probe(enc, data, out, _opts(tmp_path, classifiers=("lr",)))
    first = enc.calls
    assert first >= 3  # tr, va, te encoded
    # same encoder, new results file: embeddings come from the cache, no encoding
    run_probe(enc, data, tmp_path / "r2.jsonl", _opts(tmp_path, classifiers=("lr",)))
    assert enc.calls == first
    # rerun into the same file: everything already recorded, nothing happens
    assert run_probe(enc, data, out, _opts(tmp_path, classifiers=("lr",))) == []
    assert len(read_records(out)) == 2
    # --force redoes the work and replaces (not duplicates) the records
    again = run_probe(enc, data, out, _opts(tmp_path, classifiers=("lr",), force=True))
    assert len(again) == 2 and len(read_records(out)) == 2


def test_same_seed_identical_records(tmp_path, data):
    enc = CountingEncoder()
    o = _opts(tmp_path, classifiers=("mlp", "nb-unigram"), seeds=2, grid="none")
    a = run_probe(enc, data, tmp_path / "a.jsonl", o)
    b = run_probe(enc, data, tmp_path / "b.jsonl", o)
    assert a == b
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert {r["seed"] for r in a} == {0, 1}


def test_max_train_is_balanced_subsample(tmp_path, data):
    recs = run_probe(CountingEncoder(), data, tmp_path / "r.jsonl",
                     _opts(tmp_path, classifiers=("lr",), max_train=20))  # fmt: skip
    assert {r["n_train"] for r in recs} == {20} and {r["max_train"] for r in recs} == {20}


def test_bov_encoder_and_pmeans():
    vec = WordVectors(["a", "b"], np.array([[1, 0], [3, 2]], dtype=np.float32))
    mean = BoVEncoder(vec, "mean")
    pm = BoVEncoder(vec, "pmeans")
    out = pm.encode([["a", "b", "zz"], ["zz"]])
    assert mean.dim == 2 and pm.dim == 6
    np.testing.assert_allclose(out[0], [2, 1, 1, 0, 3, 2])
    np.testing.assert_allclose(out[1], 0)  # no known token: zero vector
    assert mean.id != pm.id


def test_spec_bov_is_lazy_and_named(tmp_path):
    p = tmp_path / "v.vec"
    p.write_text("2 3\nthe 1 2 3\ncat 0 0 1\n", encoding="utf-8")
    enc = parse_encoder(f"pmeans:{p}")
    assert enc.dim == 9 and enc._vectors is None  # id/dim without loading
    np.testing.assert_allclose(enc.encode([["cat"]])[0, :3], [0, 0, 1])
    assert default_name(f"bov:{p}") == "bov-v"
    assert default_name("random:bilstm-max:/x/en.vec:3") == "random-bilstm-max-en-s3"
    with pytest.raises(XProbeError, match="expected bov:PATH"):
        parse_encoder("what:ever")
    with pytest.raises(XProbeError, match="not found"):
        parse_encoder(f"bov:{tmp_path}/missing.vec")


def count_tokens(batch):
    """A module-level callable for the python: spec."""
    return np.array([[len(s)] for s in batch], dtype=np.float32)


def test_python_and_npy_specs(tmp_path, data):
    enc = parse_encoder(f"python:{__name__}:count_tokens")
    assert isinstance(enc, CallableEncoder) and enc.id.startswith("python:")
    assert enc.encode([["a", "b"]]).tolist() == [[2.0]] and enc.dim == 1
    lines = (data / "sentence_length.txt").read_text(encoding="utf-8").splitlines()
    arr = np.array([[len(x.split("\t")[2].split()), 1] for x in lines], dtype=np.float32)
    np.save(tmp_path / "emb.npy", arr)
    npy = parse_encoder(f"npy:{tmp_path / 'emb.npy'}")
    assert isinstance(npy, NpyEmbeddings)
    recs = run_probe(npy, data, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("lr",)))
    assert next(r for r in recs if r["split"] == "test")["value"] > 0.9
    np.save(tmp_path / "short.npy", arr[:10])
    with pytest.raises(XProbeError, match="aligned"):
        run_probe(parse_encoder(f"npy:{tmp_path / 'short.npy'}"), data, tmp_path / "s.jsonl",
                  _opts(tmp_path, classifiers=("lr",)))  # fmt: skip


def test_random_spec_when_encoders_exist(tmp_path):
    neural = pytest.importorskip("xprobe.encoders.neural")
    p = tmp_path / "v.vec"
    p.write_text("2 4\nthe 1 2 3 4\ncat 0 0 1 1\n", encoding="utf-8")
    arch = neural.ARCHITECTURES[-1]
    enc = parse_encoder(f"random:{arch}:{p}:7")
    assert enc.encode([["the", "cat"]]).shape == (1, enc.dim)
    with pytest.raises(XProbeError, match="unknown architecture"):
        parse_encoder(f"random:nope:{p}")


def test_random_control_takes_the_size_of_its_encoder(tmp_path):
    pytest.importorskip("xprobe.encoders.neural")
    from xprobe.encoders.checkpoint import save_encoder

    p = tmp_path / "v.vec"
    p.write_text("2 4\nthe 1 2 3 4\ncat 0 0 1 1\n", encoding="utf-8")
    small = parse_encoder(f"random:bilstm-max:{p}:1[hidden=8,layers=1]")
    assert small.dim == 16 and small.config["hidden"] == 8 and small.config["layers"] == 1
    save_encoder(tmp_path / "trained", small)
    like = parse_encoder(f"random:bilstm-max:{p}:2[like={tmp_path / 'trained'}]")
    assert like.dim == 16 and like.config["layers"] == 1 and like.id != small.id
    assert parse_encoder(f"random:bilstm-max:{p}").dim == 1024  # default size without options
    assert default_name("random:bilstm-max:/x/en.vec:3[hidden=8,layers=1]") == (
        "random-bilstm-max-en-s3-hidden8-layers1"
    )
    assert (
        default_name("random:cnn-max:/x/en.vec[like=/m/en-cnn]") == "random-cnn-max-en-like-en-cnn"
    )
    with pytest.raises(XProbeError, match="that encoder is a bilstm-max"):
        parse_encoder(f"random:cnn-max:{p}[like={tmp_path / 'trained'}]")
    with pytest.raises(XProbeError, match="not a positive integer"):
        parse_encoder(f"random:bilstm-max:{p}[hidden=x]")


def test_cache_atomic_and_corrupt_entry(tmp_path):
    cache = EmbeddingCache(tmp_path)
    enc = CountingEncoder()
    sents = [("a", "b"), ("c",)]
    x = cache.get_or_encode(enc, sents)
    path = cache.path(enc.id, sentences_hash(sents))
    assert path.is_file() and not list(path.parent.glob("*.tmp"))
    path.write_bytes(b"garbage")  # a damaged entry is a miss, not a crash
    np.testing.assert_array_equal(cache.get_or_encode(enc, sents), x)
    assert enc.calls == 2 and cache.misses == 2


def test_cache_dir_from_environment(monkeypatch, tmp_path):
    from xprobe.download import cache_dir
    from xprobe.probe.cache import default_cache_dir

    # one cache root for everything: downloads in their subfolders, embeddings in theirs
    monkeypatch.setenv("XPROBE_CACHE", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c" / "embeddings"
    assert cache_dir() == tmp_path / "c"
    monkeypatch.delenv("XPROBE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert default_cache_dir() == tmp_path / "x" / "xprobe" / "embeddings"


def test_results_validation_and_bad_lines(tmp_path):
    good = {
        "encoder": "e", "encoder_id": "e1", "dataset": "d", "language": "en", "task": "WC",
        "classifier": "lr", "seed": 0, "split": "test", "metric": "accuracy", "value": 0.5,
        "n_train": 10, "n_test": 5, "dataset_hash": "h", "protocol": "tr/va/te",
        "grid": "default", "max_train": None, "hyperparameters": {}, "version": "0",
    }  # fmt: skip
    assert validate_record(good) == []
    assert "accuracy must lie in [0, 1]" in validate_record({**good, "value": 1.5})
    assert any("seed must be int" in p for p in validate_record({**good, "seed": "0"}))
    assert "unknown field 'x'" in validate_record({**good, "x": 1})
    p = tmp_path / "r.jsonl"
    assert append_records(p, [good]) == 1 and append_records(p, [good]) == 0
    with open(p, "a", encoding="utf-8") as f:
        f.write(json.dumps(good)[:30])  # a truncated last line
    with pytest.raises(XProbeError, match=r"r\.jsonl:2: not JSON"):
        read_records(p)
    assert read_records(p, on_error="skip") == [good]
    with pytest.raises(ValueError, match="invalid record"):
        append_records(p, [{**good, "split": "train"}])


def test_cli_probe_baselines_and_summary(tmp_path, data, capsys):
    from xprobe.cli import main

    out = tmp_path / "r.jsonl"
    rc = main(["probe", "--data", str(data), "--out", str(out), "--classifier", "majority",
               "length", "--cache-dir", str(tmp_path / "c"), "--lang", "xx"])  # fmt: skip
    assert rc == 0
    text = capsys.readouterr().out
    assert "SentLen" in text and "majority" in text and "length" in text
    assert main(["probe", "--data", str(data), "--out", str(out)]) == 2  # mlp needs --encoder


def test_a_probe_records_the_dataset_its_extraction_names(tmp_path, fixtures):
    """A study extracts OUT/probing/en with `--dataset sample`; an ad-hoc probe of that folder
    records "sample" (and so pairs with the study's records), not "probing" (the folder's
    parent); without a dataset in the manifest the parent folder's name stays the default."""
    from xprobe.cli import main

    out = tmp_path / "study" / "probing" / "en"
    args = ["extract", "--lang", "en", "--out", str(out), "--sizes", "2,2,2", "--allow-partial",
            "--no-exclusive", "--dataset", "sample", str(fixtures / "tasks_en.conllu")]  # fmt: skip
    assert main(args) == 0
    assert json.loads((out / "manifest.json").read_text())["dataset"] == "sample"
    opts = _opts(tmp_path, classifiers=("majority",), language=None, tasks=["SentLen"])
    recs = run_probe(CountingEncoder(), out, tmp_path / "r.jsonl", opts)
    assert recs and {r["dataset"] for r in recs} == {"sample"}
    plain = tmp_path / "toy" / "en"
    plain.mkdir(parents=True)
    write_length_task(plain / "sentence_length.txt", 40)
    (plain / "manifest.json").write_text('{"language": "en"}')
    recs = run_probe(CountingEncoder(), plain, tmp_path / "r2.jsonl", opts)
    assert {r["dataset"] for r in recs} == {"toy"}

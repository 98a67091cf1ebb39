"""Vocabulary coverage per task in every record (issue 11, item 8) and test sentences that also
occur in training removed before scoring (issue 11, item 9)."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from conftest import shared_path

from xprobe.probe.classifiers import TrainConfig
from xprobe.probe.datasets import ensure_train, load_probing_dir
from xprobe.probe.harness import ProbeOptions, run_probe
from xprobe.probe.records import read_records, validate_record

pytest.importorskip("torch")

FAST = TrainConfig(max_epochs=5, patience=2, lr=1e-2)


def _opts(tmp_path, **kw):
    kw.setdefault("language", "en")  # folders without a manifest name no language
    return ProbeOptions(cache_dir=tmp_path / "cache", train=FAST, device="cpu", **kw)


def _folder(tmp_path, lines, name="bigram_shift.txt"):
    d = tmp_path / "set" / "en"
    d.mkdir(parents=True)
    (d / name).write_text("".join(lines), encoding="utf-8")
    (d / "manifest.json").write_text('{"language": "en", "tasks": {}}')
    return d


def _vec(path, words, dim=3):
    g = np.random.default_rng(0)
    path.write_text(
        f"{len(words)} {dim}\n"
        + "".join(w + " " + " ".join(f"{x:.3f}" for x in g.normal(size=dim)) + "\n" for w in words)
    )


# ------------------------------------------------------------------ coverage


WORDS = [f"w{i}" for i in range(10)] + [f"n{j}" for j in range(40)]


def _coverage_lines():
    # 40 sentences "w{j%10} x{j%4} n{j}": types w0..w9, x0..x3, n0..n39 (54 types)
    out, j = [], 0
    for split, k in (("tr", 20), ("va", 10), ("te", 10)):
        for i in range(k):
            out.append(f"{split}\t{'OI'[i % 2]}\tw{j % 10} x{j % 4} n{j}\n")
            j += 1
    return out


def test_records_carry_token_and_type_coverage_and_low_coverage_warns(tmp_path, caplog):
    d = _folder(tmp_path, _coverage_lines())
    _vec(tmp_path / "v.vec", WORDS)  # no vector for x0..x3
    with caplog.at_level(logging.WARNING):
        recs = run_probe(f"bov:{tmp_path / 'v.vec'}", d, tmp_path / "r.jsonl",
                         _opts(tmp_path, classifiers=("lr", "majority")))  # fmt: skip
    lr = [r for r in recs if r["classifier"] == "lr"]
    assert len(lr) == 2
    # by hand: 120 tokens, 80 with a vector (w*, n*); 54 types, 50 with a vector
    for r in lr:
        assert r["vocab_coverage"] == {"tokens": 120, "tokens_found": 80, "types": 54,
                                       "types_found": 50}  # fmt: skip
        assert validate_record(r) == []
    assert all("vocab_coverage" not in r for r in recs if r["classifier"] == "majority")
    assert any("66.7% of tokens" in r.message and "Tense" not in r.message
               for r in caplog.records if r.levelno == logging.WARNING)  # fmt: skip
    assert read_records(tmp_path / "r.jsonl") == recs


def test_full_coverage_gives_no_warning(tmp_path, caplog):
    d = _folder(tmp_path, _coverage_lines())
    _vec(tmp_path / "v.vec", WORDS + [f"x{i}" for i in range(4)])
    with caplog.at_level(logging.WARNING):
        recs = run_probe(f"bov:{tmp_path / 'v.vec'}", d, tmp_path / "r.jsonl",
                         _opts(tmp_path, classifiers=("lr",)))  # fmt: skip
    assert recs[0]["vocab_coverage"]["tokens_found"] == 120
    assert not any("of tokens" in r.message for r in caplog.records)


def test_encoder_without_word_vectors_has_no_coverage_field(tmp_path):
    class Length:
        id = "length-v1"
        dim = 1

        def encode(self, batch):
            return np.array([[len(s)] for s in batch], dtype=np.float32)

    d = _folder(tmp_path, _coverage_lines())
    recs = run_probe(Length(), d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("lr",)))
    assert recs and all("vocab_coverage" not in r for r in recs)


# ------------------------------------------------------------------ overlap removed


def _overlap_lines():
    tr = [f"tr\t{'OI'[i % 2]}\ttrain sentence {i} .\n" for i in range(20)]
    va = [f"va\t{'OI'[i % 2]}\tdev sentence {i} .\n" for i in range(10)]
    va += ["va\tO\ttrain sentence 2 .\n"]  # one dev sentence also in training
    te = [f"te\t{'OI'[i % 2]}\ttest sentence {i} .\n" for i in range(10)]
    te += [
        "te\tO\ttrain sentence 4 .\n",
        "te\tI\ttrain sentence 5 .\n",
        "te\tO\ttrain sentence 4 .\n",
    ]
    return tr + va + te


def test_test_sentences_seen_in_training_are_removed_and_counted(tmp_path, caplog):
    d = _folder(tmp_path, _overlap_lines())
    with caplog.at_level(logging.WARNING):
        recs = run_probe(None, d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("majority",)))
    test = next(r for r in recs if r["split"] == "test")
    dev = next(r for r in recs if r["split"] == "dev")
    # by hand: 3 test lines repeat training sentences 4, 5, 4; one dev line repeats sentence 2
    assert test["overlap_removed"] == {"te": 3, "va": 1}
    assert test["n_test"] == 10 and dev["n_test"] == 10
    assert dev["overlap_removed"] == {"te": 3, "va": 1}
    assert validate_record(test) == []
    assert any("3 of 13 test sentences" in r.message for r in caplog.records)


def test_no_overlap_records_zero(tmp_path):
    lines = [x for x in _overlap_lines() if "train sentence" not in x or x.startswith("tr")]
    d = _folder(tmp_path, lines)
    recs = run_probe(None, d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("majority",)))
    assert all(r["overlap_removed"] == {"te": 0, "va": 0} for r in recs)


def test_a_task_whose_test_is_all_training_is_not_scored(tmp_path, caplog):
    d = tmp_path / "xp" / "en"
    (d / "tree_depth").mkdir(parents=True)
    (d / "odd_man_out").mkdir()
    va = "".join(f"sentence number {i} .\t{3 + i % 2}\n" for i in range(20))
    (d / "tree_depth" / "va.txt").write_text(va)
    (d / "tree_depth" / "te.txt").write_text(va)  # X-Probe's te.txt is a copy of va.txt
    (d / "odd_man_out" / "va.txt").write_text(
        "".join(f"a b {i}\t{'OC'[i % 2]}\n" for i in range(20))
    )
    (d / "odd_man_out" / "te.txt").write_text(
        "".join(f"c d {i}\t{'OC'[i % 2]}\n" for i in range(20))
    )
    with caplog.at_level(logging.WARNING):
        recs = run_probe(None, d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("majority",)))
    assert {r["task"] for r in recs if "value" in r} == {"SOMO"}
    (na,) = [r for r in recs if r["task"] == "TreeDepth"]  # recorded n/a, not dropped
    assert na["not_applicable"].startswith("10 of 10 test sentences also occur in the training")
    assert any("TreeDepth" in r.message and "not scored" in r.message for r in caplog.records)


def test_real_xprobe_sets_score_only_unseen_test_sentences(tmp_path):
    data = shared_path("data", "xprobe", "en")
    opts = _opts(tmp_path, classifiers=("majority",), tasks=["SOMO", "TreeDepth"])
    recs = run_probe(None, data, tmp_path / "r.jsonl", opts)
    assert {r["task"] for r in recs if "value" in r} == {"SOMO"}  # TreeDepth: te is va's copy
    assert [r["task"] for r in recs if "not_applicable" in r] == ["TreeDepth"]
    (ps,) = [ensure_train(p) for p in load_probing_dir(data, tasks=["SOMO"], language="en")]
    train = set(ps.tokens["tr"])
    shared_te = sum(s in train for s in ps.tokens["te"])
    shared_va = sum(s in train for s in ps.tokens["va"])
    assert shared_te > 100  # SOMO's va and te share several hundred sentences
    test = next(r for r in recs if r.get("split") == "test" and "value" in r)
    assert test["overlap_removed"] == {"te": shared_te, "va": shared_va}
    assert test["n_test"] == ps.size("te") - shared_te


def test_input_fields_do_not_split_a_stability_study():
    from xprobe.probe.robustness import study_key

    base = {"dataset": "x", "language": "en", "protocol": "tr/va/te", "encoder": "e"}
    a = {
        **base,
        "task": "SOMO",
        "overlap_removed": {"va": 1, "te": 2},
        "vocab_coverage": {"tokens": 9, "tokens_found": 8, "types": 3, "types_found": 2},
    }
    b = {
        **base,
        "task": "WC",
        "overlap_removed": {"va": 0, "te": 0},
        "vocab_coverage": {"tokens": 7, "tokens_found": 7, "types": 2, "types_found": 2},
    }
    assert study_key(a) == study_key(b)
    assert study_key(a) != study_key({**b, "language": "de"})


def test_bov_low_coverage_warning_names_the_vector_file_not_vocab_from(tmp_path, caplog):
    """Issue 23: ``train-nli --vocab-from`` does not apply to a bag of vectors; its words are
    missing from the vector file itself."""
    d = _folder(tmp_path, _coverage_lines())
    _vec(tmp_path / "v.vec", WORDS)  # no vector for x0..x3
    with caplog.at_level(logging.WARNING):
        run_probe(f"bov:{tmp_path / 'v.vec'}", d, tmp_path / "r.jsonl",
                  _opts(tmp_path, classifiers=("lr",)))  # fmt: skip
    warned = [r.message for r in caplog.records if "of tokens" in r.message]
    assert len(warned) == 1
    assert "vocab-from" not in warned[0] and "train" not in warned[0], warned[0]
    assert str(tmp_path / "v.vec") in warned[0]


def test_trained_encoder_low_coverage_warning_suggests_vocab_from(tmp_path, caplog):
    from xprobe.encoders.vectors import WordVectors
    from xprobe.probe.coverage import warn_low_coverage

    ps = load_probing_dir(_folder(tmp_path, _coverage_lines()))[0]
    saved = WordVectors(["w0"], np.zeros((1, 3), np.float32), source="m/vectors.npy", saved=True)
    with caplog.at_level(logging.WARNING):
        warn_low_coverage({"tokens": 10, "tokens_found": 5, "types": 4, "types_found": 2},
                          "en-bilstm-max", ps, saved)  # fmt: skip
    assert "--vocab-from" in caplog.records[-1].message

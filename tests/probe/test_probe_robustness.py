"""Eger et al.'s robustness study: subsamples, sklearn classifiers, stability, ranking support."""

from __future__ import annotations

import numpy as np
import pytest

from xprobe.errors import XProbeError
from xprobe.probe.design import RF_DEPTHS, balanced_subsample, fit_sklearn, stratified_subsample
from xprobe.probe.robustness import stability


def test_balanced_subsample_water_fills():
    y = np.array([0] * 50 + [1] * 30 + [2] * 5)
    idx = balanced_subsample(y, 40, 0, "en", "WC")
    counts = np.bincount(y[idx], minlength=3)
    assert counts.tolist() == [18, 17, 5]  # class 2 gives what it lacks to the others
    assert len(set(idx.tolist())) == 40 and (np.diff(idx) > 0).all()
    assert balanced_subsample(y, 40, 0, "en", "WC").tolist() == idx.tolist()
    assert balanced_subsample(y, 40, 1, "en", "WC").tolist() != idx.tolist()
    assert len(balanced_subsample(y, 500, 0)) == len(y)


def test_stratified_subsample_keeps_proportions():
    y = np.array([0] * 50 + [1] * 30 + [2] * 5)
    idx = stratified_subsample(y, 40, 0, "en", "WC")
    # exact shares 23.53, 14.12, 2.35 -> 23, 14, 2 and the one left to the largest remainder
    assert np.bincount(y[idx], minlength=3).tolist() == [24, 14, 2]
    assert len(set(idx.tolist())) == 40 and (np.diff(idx) > 0).all()
    assert stratified_subsample(y, 40, 0, "en", "WC").tolist() == idx.tolist()
    assert stratified_subsample(y, 40, 1, "en", "WC").tolist() != idx.tolist()


def test_rf_depth_tuned_nb_untuned():
    g = np.random.default_rng(0)
    x = g.normal(size=(300, 4))
    y = (x[:, 0] > 0).astype(int)
    rf = fit_sklearn("rf", x[:200], y[:200], x[200:250], y[200:250], x[250:], y[250:], seed=0)
    nb = fit_sklearn("nb", x[:200], y[:200], x[200:250], y[200:250], x[250:], y[250:], seed=0)
    assert rf.params["max_depth"] in RF_DEPTHS and nb.params == {"var_smoothing": 1e-9}


@pytest.mark.parametrize("kind", ["nb", "rf"])
def test_sklearn_classifiers_learn(kind):
    g = np.random.default_rng(0)
    x = g.normal(size=(600, 5))
    y = (x[:, 0] > 0).astype(int)
    res = fit_sklearn(kind, x[:400], y[:400], x[400:500], y[400:500], x[500:], y[500:], seed=0)
    assert res.test_acc > 0.85 and res.params


def _records(scores):
    """scores: (classifier, size) -> task -> encoder -> accuracy."""
    out = []
    for (clf, size), tasks in scores.items():
        for task, encs in tasks.items():
            for enc, v in encs.items():
                out.append({"encoder": enc, "task": task, "classifier": clf, "split": "test",
                            "max_train": size, "n_train": size, "value": v})  # fmt: skip
    return out


def test_stability_scores_hand_checked():
    up = {"a": 0.5, "b": 0.6, "c": 0.7, "d": 0.8}
    down = {"a": 0.8, "b": 0.7, "c": 0.6, "d": 0.5}
    scores = {
        ("lr", 2000): {"T1": up, "T2": up},
        ("lr", 10000): {"T1": up, "T2": up},
        ("nb", 2000): {"T1": down, "T2": up},
    }
    rep = stability(_records(scores))
    assert rep.encoders == ["a", "b", "c", "d"] and rep.tasks == ["T1", "T2"]
    # LR agrees with itself across sizes: rho = 1 on both tasks
    assert rep.size_sim["lr"][(2000, 10000)] == pytest.approx(1.0)
    assert rep.size_stability["lr"][2000] == pytest.approx(1.0)
    # LR vs NB: T1 rho = -1 (p < .2 with 4 points? p = 0 for a perfect rank correlation), T2 +1
    assert rep.classifier_sim[("lr", "nb")]["avg"] == pytest.approx(0.0)
    # consensus = 'up' on both tasks (2 of 3 settings on T1); mu: lr 2 + 2, nb only T2
    assert rep.mu[("lr", 2000)] == pytest.approx(2.0)
    assert rep.mu[("nb", 2000)] == pytest.approx(1.0)
    assert rep.most_stable[-1][0] == ("nb", 2000)


def test_stability_needs_three_encoders():
    scores = {("lr", 1): {"T": {"a": 0.1, "b": 0.2}}, ("lr", 2): {"T": {"a": 0.1, "b": 0.2}}}
    with pytest.raises(XProbeError, match=">= 3 encoders"):
        stability(_records(scores))


class _NoisyLength:
    """Length plus noise of a given strength: a family of encoders with a known ranking."""

    dim = 2

    def __init__(self, noise: float):
        self.noise, self.id = noise, f"noisy-length-{noise}"

    def encode(self, batch):
        g = np.random.default_rng(len(batch))
        n = np.array([len(s) for s in batch], dtype=np.float32)
        return np.stack([n + self.noise * g.normal(size=len(n)), g.normal(size=len(n))], 1)


def test_robustness_study_end_to_end(tmp_path):
    from test_probe import _write_task

    from xprobe.probe.classifiers import TrainConfig
    from xprobe.probe.harness import ProbeOptions
    from xprobe.probe.robustness import robustness_study

    data = tmp_path / "toy" / "xx"
    data.mkdir(parents=True)
    _write_task(data / "sentence_length.txt", n=80)
    encs = [_NoisyLength(v) for v in (0.0, 1.0, 8.0)]
    opts = ProbeOptions(cache_dir=tmp_path / "c", device="cpu", language="xx",
                        train=TrainConfig(max_epochs=30, patience=10, lr=1e-2))  # fmt: skip
    recs = []
    for e in encs:  # one encoder object at a time; records are named by its id
        recs += robustness_study([e], data, tmp_path / "r.jsonl", sizes=(40, 80),
                                 classifiers=("lr", "nb"), opts=opts)  # fmt: skip
    recs = [r for r in recs if r["split"] == "test"]
    assert {(r["classifier"], r["max_train"]) for r in recs} == {
        (c, s) for c in ("lr", "nb") for s in (40, 80)
    }
    assert {r["n_train"] for r in recs} == {40, 80}
    rep = stability(recs)
    assert len(rep.encoders) == 3 and set(rep.mu) == {("lr", 40), ("lr", 80), ("nb", 40),
                                                      ("nb", 80)}  # fmt: skip


def _bits_records(accs, n=1000, sizes=(100, 1000)):
    from xprobe.probe.records import pack_correct

    g = np.random.default_rng(0)
    out = []
    for size in sizes:
        for task, encs in accs.items():
            for enc, p in encs.items():
                hits = g.random(n) < p
                out.append({"encoder": enc, "task": task, "classifier": "lr", "split": "test",
                            "max_train": size, "n_train": size, "value": float(hits.mean()),
                            "n_test": n, "correct": pack_correct(hits), "language": "en",
                            "dataset": "x"})  # fmt: skip
    return out


def test_ranking_support_separated_vs_tied():
    from xprobe.probe.robustness import ranking_support

    recs = _bits_records({"WC": {"a": 0.9, "b": 0.7, "c": 0.5},
                          "SentLen": {"a": 0.700, "b": 0.701, "c": 0.702}})  # fmt: skip
    sup = ranking_support(recs)
    assert sup[("lr", 100)]["WC"] == 1.0
    assert sup[("lr", 100)]["SentLen"] < 0.75  # three encoders within noise: order often breaks
    with pytest.raises(XProbeError, match="language"):
        ranking_support([*recs, {**recs[0], "language": "de"}])

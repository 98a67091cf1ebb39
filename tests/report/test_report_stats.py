"""Intervals and tests with known answers: binomial coverage, Holm, a signal vs a random encoder,
random labels at chance."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from xprobe.probe.records import pack_correct, unpack_correct, validate_record
from xprobe.report.group import group_experiments
from xprobe.report.stats import Stats, bootstrap_interval, holm, wilson


def test_bootstrap_coverage_on_a_binomial_is_near_95():
    rng = np.random.default_rng(0)
    p, n, reps = 0.7, 300, 300
    hits = 0
    for _ in range(reps):
        x = rng.random(n) < p
        lo, hi = bootstrap_interval(x, rng, b=400)
        hits += lo <= p <= hi
    assert 0.91 <= hits / reps <= 0.985, hits / reps


def test_wilson_and_holm_hand_checked():
    lo, hi = wilson(0.5, 100)  # 0.5 +- 1.96 * 0.05 / (1 + 0.0384), centred at 0.5
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    # sorted: .01 * 3 = .03; .03 * 2 = .06; .04 * 1 = .04 -> running max .06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def test_pack_roundtrip_and_validation():
    bits = np.array([1, 0, 1, 1, 0, 0, 0, 1, 1], dtype=bool)
    assert unpack_correct(pack_correct(bits), 9).tolist() == bits.tolist()
    rec = {"encoder": "e", "encoder_id": "e", "dataset": "d", "language": "en", "task": "WC",
           "classifier": "lr", "seed": 0, "split": "test", "metric": "accuracy",
           "value": round(5 / 9, 6), "n_train": 1, "n_test": 9, "dataset_hash": "h",
           "protocol": "p", "grid": "default", "max_train": None, "hyperparameters": {},
           "version": "0", "correct": pack_correct(bits)}  # fmt: skip
    assert validate_record(rec) == []
    assert "agree" in validate_record({**rec, "value": 0.9})[0]
    assert "bits" in validate_record({**rec, "n_test": 20})[0]


class _Signal:
    """The label plus noise: feature 0 is 1 when the sentence contains 'yes', plus N(0, 0.5)."""

    dim = 3

    def __init__(self, noise: float, signal: bool = True):
        self.noise, self.signal = noise, signal
        self.id = f"signal-{noise}" if signal else "random"

    def encode(self, batch):
        out = []
        for s in batch:
            g = np.random.default_rng(zlib.crc32(" ".join(s).encode()))
            v = g.normal(size=3) * self.noise
            v[0] += float("yes" in s) if self.signal else 0.0
            out.append(v)
        return np.asarray(out, dtype=np.float32)


def _task(path, random_labels=False, n=(300, 150, 400)):
    g = np.random.default_rng(1)
    lines = []
    for split, k in zip(("tr", "va", "te"), n, strict=True):
        for i in range(k):
            yes = bool(g.integers(2))
            words = [f"w{int(j)}" for j in g.integers(0, 30, size=5)] + [f"u{split}{i}"]
            words[int(g.integers(5))] = "yes" if yes else "no"
            label = bool(g.integers(2)) if random_labels else yes
            lines.append(f"{split}\t{'Y' if label else 'N'}\t{' '.join(words)}\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines), encoding="utf-8")


def _probe(tmp_path, encs, random_labels=False):
    from xprobe.probe.classifiers import TrainConfig
    from xprobe.probe.harness import ProbeOptions, run_probe

    data = tmp_path / "d" / "xx"
    _task(data / "bigram_shift.txt", random_labels)
    recs = []
    for e in encs:
        opts = ProbeOptions(classifiers=("lr",), language="xx", device="cpu", cache_dir=tmp_path
                            / "c", train=TrainConfig(max_epochs=20, lr=1e-2))  # fmt: skip
        recs += run_probe(e, data, tmp_path / "r.jsonl", opts)
    return [r for r in recs if r["split"] == "test"]


def test_signal_encoder_is_separable_from_a_random_one(tmp_path):
    recs = _probe(tmp_path, [_Signal(0.5), _Signal(0.5, signal=False)])
    assert all("correct" in r for r in recs)
    sig, rnd = sorted(group_experiments(recs), key=lambda e: e.get("encoder") == "random")
    st = Stats()
    assert st.paired(sig, rnd)
    d, lo, hi, p = st.compare(sig, rnd)
    assert hi > lo
    assert sig.mean > 0.8 and d > 0.25 and lo > 0 and p < 1e-6
    lo_r, hi_r, how = st.interval(rnd)
    assert how == "bootstrap" and lo_r <= 0.5 <= hi_r


def test_random_labels_give_chance_and_intervals_cover_it(tmp_path):
    recs = _probe(tmp_path, [_Signal(0.5)], random_labels=True)
    [exp] = group_experiments(recs)
    lo, hi, _ = Stats().interval(exp)
    assert abs(exp.mean - 0.5) < 0.08 and lo <= 0.5 <= hi and hi - lo < 0.12


def _rec_items(enc, lang, task, hits):
    from tests.report.test_report_mixing import _rec

    hits = np.asarray(hits, dtype=bool)
    r = _rec(enc, lang, task, round(float(hits.mean()), 6), correct=pack_correct(hits))
    return {**r, "n_test": len(hits), "dataset_hash": f"{lang}-{task}"}


def test_relative_figure_marks_what_is_not_significant(tmp_path):
    from xprobe.report.build import write_report

    g = np.random.default_rng(0)
    recs = [
        _rec_items("bov", "en", "WC", g.random(2000) < 0.60),
        _rec_items("bov", "de", "WC", g.random(2000) < 0.40),  # 20 points lower: significant
        _rec_items("bov", "en", "SentLen", g.random(2000) < 0.700),
        _rec_items("bov", "de", "SentLen", g.random(2000) < 0.705),  # noise: not significant
    ]
    paths = write_report(recs, tmp_path)
    assert "relative_xprobe_mlp_de.png" in {p.name for p in paths}
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "2 comparisons, Holm-corrected at α = 0.05: 1 significant" in text
    row = next(ln for ln in text.splitlines() if ln.startswith("| bov | ") and "ns" in ln)
    sentlen, wc = row.split(" | ")[1:3]  # SentLen before WC
    assert sentlen.endswith(" ns") and wc.startswith("-") and not wc.endswith("ns")

"""Uncertainty for the report: bootstrap intervals, paired and unpaired tests, Holm's correction.

* **Interval** of a test accuracy: 95% percentile bootstrap over the *test items* (B = 1000
  resamples). With several seeds, each item's correctness is first averaged over the seeds
  (seeds combined), then items are resampled. Records without per-item correctness (``correct``,
  written by ``probe`` since this version) get a Wilson binomial interval on ``n_test`` instead,
  marked ``(b)``.
* **Tests** of a difference of accuracies: a z-test on the per-item differences. *Paired* when
  both experiments scored the same test items (same data hash and ``n_test``; two encoders of one
  language): the standard error is that of the item-wise differences, which is what a paired
  bootstrap estimates. *Unpaired* between languages (different test sets): the standard errors of
  both means combined. The 95% interval of a difference is ``d ± 1.96 se``.
* **Few test items** (fewer than :data:`MIN_TEST` = 30 on a side; the normal approximation and
  a bootstrap on two to thirty items give intervals that are too narrow or leave the possible
  range, e.g. ``+12.5 [-91.9, +116.9]`` on 2 against 8 items): exact methods on the hit counts
  (``round(accuracy * n_test)``; with several seeds, the seed-averaged count), marked ``(e)``:
  a Clopper-Pearson interval for one accuracy (:func:`clopper_pearson`); for a difference
  between languages Newcombe's hybrid score interval (:func:`newcombe`, inside [-1, 1]) and
  Fisher's exact test (:func:`fisher_exact`); for a paired difference an exact sign test on the
  item-wise differences with a percentile bootstrap interval (inside [-1, 1]).
* **Multiple comparisons**: Holm's step-down correction (:func:`holm`) over every comparison of
  one figure or table; the report states how many there were. The printed intervals are per
  comparison (95%, not adjusted); the report's legends say so next to the Holm-corrected marks.

Everything is deterministic: the bootstrap generator is seeded from the experiment's key.

Example::

    st = Stats()
    lo, hi, how = st.interval(exp)
    d, lo, hi, p = st.compare(exp_a, exp_b)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

from xprobe.files import np_rng
from xprobe.probe.records import unpack_correct
from xprobe.report.group import Experiment

__all__ = [
    "ALPHA",
    "MIN_TEST",
    "Stats",
    "bootstrap_interval",
    "clopper_pearson",
    "fisher_exact",
    "holm",
    "newcombe",
    "wilson",
]

ALPHA = 0.05
Z95 = 1.959963984540054
MIN_TEST = 30  # below this many test items (on either side), exact methods: see above


def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``p`` measured on ``n`` items."""
    if n <= 0:
        return float("nan"), float("nan")
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def _binom_pmf(n: int, p: float) -> list[float]:
    return [math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(n + 1)]


def _solve(f, target: float) -> float:
    """p in [0, 1] with f(p) = target for an increasing f (bisection)."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
    return (lo + hi) / 2


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval of a proportion: ``k`` hits of ``n`` items."""
    if n <= 0:
        return float("nan"), float("nan")
    tail = (1 - level) / 2
    lo = 0.0 if k <= 0 else _solve(lambda p: sum(_binom_pmf(n, p)[k:]), tail)
    hi = 1.0 if k >= n else _solve(lambda p: -sum(_binom_pmf(n, p)[: k + 1]), -tail)
    return lo, hi


def newcombe(p1: float, n1: int, p2: float, n2: int) -> tuple[float, float]:
    """Newcombe's hybrid score interval of ``p1 - p2`` (independent samples; from the two Wilson
    intervals; always inside [-1, 1])."""
    l1, u1 = wilson(p1, n1)
    l2, u2 = wilson(p2, n2)
    d = p1 - p2
    return d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2)


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def fisher_exact(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided p of Fisher's exact test of ``k1/n1`` against ``k2/n2`` (hits of two samples):
    the probability, given the margins, of a table at most as likely as the one observed."""
    hits = k1 + k2
    support = range(max(0, hits - n2), min(n1, hits) + 1)
    logp = {x: _log_comb(n1, x) + _log_comb(n2, hits - x) for x in support}
    top = max(logp.values())
    w = {x: math.exp(v - top) for x, v in logp.items()}
    obs = w[k1] * (1 + 1e-7)
    return min(1.0, sum(v for v in w.values() if v <= obs) / sum(w.values()))


def sign_test(diff: np.ndarray) -> float:
    """Two-sided exact sign test of item-wise differences (ties dropped)."""
    pos, neg = int((diff > 0).sum()), int((diff < 0).sum())
    m = pos + neg
    if m == 0:
        return 1.0
    return min(1.0, 2 * sum(_binom_pmf(m, 0.5)[: min(pos, neg) + 1]))


def bootstrap_interval(
    per_item: np.ndarray, rng: np.random.Generator, b: int = 1000, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``per_item.mean()`` (items resampled with replacement)."""
    x = np.asarray(per_item, dtype=np.float64)
    n = len(x)
    if n == 0:
        return float("nan"), float("nan")
    means = np.empty(b)
    chunk = max(1, min(b, 2_000_000 // n))
    for i in range(0, b, chunk):
        k = min(chunk, b - i)
        idx = rng.integers(0, n, size=(k, n), dtype=np.int32 if n < 2**31 else np.int64)
        means[i : i + k] = x[idx].mean(1)
    tail = (1 - level) / 2
    lo, hi = np.quantile(means, [tail, 1 - tail])
    return float(lo), float(hi)


def holm(pvalues: list[float]) -> list[float]:
    """Holm-adjusted p-values (same order as given; NaN stays NaN)."""
    idx = [i for i, p in enumerate(pvalues) if not math.isnan(p)]
    order = sorted(idx, key=lambda i: pvalues[i])
    m = len(order)
    out = [float("nan")] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def _p_from_z(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2)) if math.isfinite(z) else float("nan")


@dataclass
class Stats:
    """Intervals and tests on experiments, with per-experiment caches."""

    resamples: int = 1000
    _items: dict[int, np.ndarray | None] = field(default_factory=dict, repr=False)
    _ci: dict[int, tuple[float, float, str]] = field(default_factory=dict, repr=False)

    def items(self, e: Experiment) -> np.ndarray | None:
        """Per test item, the share of seeds that got it right; None without ``correct``."""
        if id(e) not in self._items:
            rows = []
            for r in e.records:
                if "correct" not in r:
                    rows = []
                    break
                try:
                    rows.append(unpack_correct(r["correct"], int(r["n_test"])))
                except ValueError:
                    rows = []
                    break
            self._items[id(e)] = np.mean(rows, axis=0) if rows else None
        return self._items[id(e)]

    def interval(self, e: Experiment) -> tuple[float, float, str]:
        """95% interval of the experiment's accuracy: (lo, hi, "bootstrap" | "binomial" |
        "exact"); exact (Clopper-Pearson) below :data:`MIN_TEST` test items."""
        if id(e) not in self._ci:
            x = self.items(e)
            n = int(e.get("n_test", 0))
            if 0 < n < MIN_TEST:
                self._ci[id(e)] = (*clopper_pearson(round(e.mean * n), n), "exact")
            elif x is not None:
                rng = np_rng(0, json.dumps(e.fields, sort_keys=True, default=str), "bootstrap")
                self._ci[id(e)] = (*bootstrap_interval(x, rng, self.resamples), "bootstrap")
            else:
                self._ci[id(e)] = (*wilson(e.mean, int(e.get("n_test", 0))), "binomial")
        return self._ci[id(e)]

    def control_items(self, e: Experiment) -> np.ndarray | None:
        """Per test item, the share of seeds right on the control task; None when missing."""
        try:
            rows = [unpack_correct(r["control_correct"], int(r["n_test"])) for r in e.records]
        except (KeyError, ValueError):
            return None
        return np.mean(rows, axis=0) if rows else None

    def selectivity(self, e: Experiment) -> tuple[float, float, float, str] | None:
        """Accuracy minus control accuracy with a 95% bootstrap interval over test items
        (paired: the same items on both tasks) and the control kind; None without controls."""
        if not e.records or any("control_value" not in r for r in e.records):
            return None
        kind = "/".join(sorted({str(r.get("control", "?")) for r in e.records}))
        sel = float(np.mean([r["value"] - r["control_value"] for r in e.records]))
        x, c = self.items(e), self.control_items(e)
        if x is None or c is None:
            return sel, float("nan"), float("nan"), kind
        rng = np_rng(0, json.dumps(e.fields, sort_keys=True, default=str), "selectivity")
        lo, hi = bootstrap_interval(x - c, rng, self.resamples)
        return sel, lo, hi, kind

    def interval_text(self, e: Experiment) -> str:
        lo, hi, how = self.interval(e)
        return f" [{100 * lo:.1f}, {100 * hi:.1f}]" + {"binomial": " (b)", "exact": " (e)"}.get(
            how, ""
        )

    def _se(self, e: Experiment) -> float:
        x = self.items(e)
        if x is not None and len(x) > 1:
            return float(np.std(x, ddof=1) / math.sqrt(len(x)))
        n = int(e.get("n_test", 0))
        return math.sqrt(e.mean * (1 - e.mean) / n) if n > 0 else float("nan")

    def paired(self, a: Experiment, b: Experiment) -> bool:
        """Whether a and b scored the same test items (same data and size, correctness kept)."""
        same = all(a.get(k) == b.get(k) for k in ("dataset_hash", "n_test", "protocol"))
        return same and self.items(a) is not None and self.items(b) is not None

    def exact(self, a: Experiment, b: Experiment) -> bool:
        """Whether a comparison of a and b uses the exact methods (fewer than :data:`MIN_TEST`
        test items on a side)."""
        return min(int(a.get("n_test", 0)), int(b.get("n_test", 0))) < MIN_TEST

    def compare(self, a: Experiment, b: Experiment) -> tuple[float, float, float, float]:
        """a - b: (difference, 95% lo, 95% hi, two-sided p); paired when possible; exact
        methods below :data:`MIN_TEST` test items (:meth:`exact`)."""
        d = a.mean - b.mean
        if self.exact(a, b):
            return (d, *self._compare_exact(a, b))
        if self.paired(a, b):
            xa, xb = self.items(a), self.items(b)
            assert xa is not None and xb is not None
            diff = xa - xb
            se = float(np.std(diff, ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else 0.0
        else:
            se = math.sqrt(self._se(a) ** 2 + self._se(b) ** 2)
        if se == 0:
            return d, d, d, 1.0 if d == 0 else 0.0
        return d, d - Z95 * se, d + Z95 * se, _p_from_z(d / se)

    def _compare_exact(self, a: Experiment, b: Experiment) -> tuple[float, float, float]:
        """(lo, hi, p) of a - b on few items: sign test and bootstrap when paired, else
        Newcombe's interval and Fisher's exact test on the (rounded) hit counts."""
        na, nb = int(a.get("n_test", 0)), int(b.get("n_test", 0))
        if na <= 0 or nb <= 0:
            return float("nan"), float("nan"), float("nan")
        if self.paired(a, b):
            xa, xb = self.items(a), self.items(b)
            assert xa is not None and xb is not None
            key = json.dumps([a.fields, b.fields], sort_keys=True, default=str)
            lo, hi = bootstrap_interval(xa - xb, np_rng(0, key, "paired"), self.resamples)
            return lo, hi, sign_test(xa - xb)
        lo, hi = newcombe(a.mean, na, b.mean, nb)
        return lo, hi, fisher_exact(round(a.mean * na), na, round(b.mean * nb), nb)

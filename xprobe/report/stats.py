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
* **Multiple comparisons**: Holm's step-down correction (:func:`holm`) over every comparison of
  one figure or table; the report states how many there were.

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

__all__ = ["ALPHA", "Stats", "bootstrap_interval", "holm", "wilson"]

ALPHA = 0.05
Z95 = 1.959963984540054


def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``p`` measured on ``n`` items."""
    if n <= 0:
        return float("nan"), float("nan")
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


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
        """95% interval of the experiment's accuracy: (lo, hi, "bootstrap" | "binomial")."""
        if id(e) not in self._ci:
            x = self.items(e)
            if x is not None:
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
        return f" [{100 * lo:.1f}, {100 * hi:.1f}]" + ("(b)" if how == "binomial" else "")

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

    def compare(self, a: Experiment, b: Experiment) -> tuple[float, float, float, float]:
        """a - b: (difference, 95% lo, 95% hi, two-sided p); paired when possible."""
        d = a.mean - b.mean
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

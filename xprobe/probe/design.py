"""The classifiers and training subsamples of Eger, Daxenberger & Gurevych (2020), used by the
probe harness for ``--classifier nb rf`` and ``--max-train`` and by the robustness study
(:mod:`xprobe.probe.robustness`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xprobe.errors import XProbeError
from xprobe.files import np_rng

__all__ = [
    "MIN_PER_CLASS",
    "RF_DEPTHS",
    "SkResult",
    "balanced_subsample",
    "fit_sklearn",
    "stratified_subsample",
    "warn_few_per_class",
]

log = logging.getLogger(__name__)

RF_DEPTHS = (10, 50, 100, None)  # Eger et al.: max depth tuned on dev over these


def balanced_subsample(y: np.ndarray, n: int, seed: int, *purpose: object) -> np.ndarray:
    """Sorted indices of ``n`` items with classes as equal as the data allows (water-filling:
    a class with too few items gives its share to the others); seeded by (seed, *purpose)."""
    y = np.asarray(y)
    if n >= len(y):
        return np.arange(len(y))
    gen = np_rng(seed, *purpose, "subsample")
    classes = np.unique(y)
    pools = {c: gen.permutation(np.flatnonzero(y == c)) for c in classes}
    quota = dict.fromkeys(classes, 0)
    left, open_ = n, [c for c in classes]
    while left > 0 and open_:
        share, extra = divmod(left, len(open_))
        for i, c in enumerate(list(open_)):
            want = share + (1 if i < extra else 0)
            take = min(want, len(pools[c]) - quota[c])
            quota[c] += take
            left -= take
            if quota[c] == len(pools[c]):
                open_.remove(c)
    return np.sort(np.concatenate([pools[c][: quota[c]] for c in classes]))


def stratified_subsample(y: np.ndarray, n: int, seed: int, *purpose: object) -> np.ndarray:
    """Sorted indices of ``n`` items that keep the class proportions of ``y`` (Eger et al.'s
    subsamples): quotas ``n * share`` rounded by largest remainder (ties: label order), items of
    each class drawn at random, seeded by (seed, *purpose)."""
    y = np.asarray(y)
    if n >= len(y):
        return np.arange(len(y))
    gen = np_rng(seed, *purpose, "subsample")
    classes, counts = np.unique(y, return_counts=True)
    exact = n * counts / counts.sum()
    quota = np.floor(exact).astype(int)
    extra = n - int(quota.sum())
    for i in sorted(range(len(classes)), key=lambda i: (-(exact[i] - quota[i]), i))[:extra]:
        quota[i] += 1
    parts = [gen.permutation(np.flatnonzero(y == c))[:q] for c, q in zip(classes, quota,
             strict=True)]  # fmt: skip
    return np.sort(np.concatenate(parts))


MIN_PER_CLASS = 10  # fewer training examples per class under a --max-train cap: warned


def warn_few_per_class(y: np.ndarray, n: int | None, where: str) -> bool:
    """Warn (and return True) when a cap of ``n`` training items over the classes of ``y``
    leaves fewer than :data:`MIN_PER_CLASS` per class (2,000 over WC's 1,000 targets: 2)."""
    if n is None or len(y) <= n:
        return False
    k = len(np.unique(np.asarray(y)))
    if not k or n / k >= MIN_PER_CLASS:
        return False
    log.warning(
        "%s: --max-train %d over %d classes leaves about %d training examples per class (fewer "
        "than %d): the accuracy then says little about the encoder; raise --max-train or leave "
        "this task out of the capped run",
        where, n, k, n // k, MIN_PER_CLASS,
    )  # fmt: skip
    return True


@dataclass
class SkResult:
    dev_acc: float
    test_acc: float
    params: dict[str, Any] = field(default_factory=dict)
    test_correct: np.ndarray | None = None


def fit_sklearn(
    kind: str, xtr, ytr, xva, yva, xte, yte, seed: int = 0, n_jobs: int = 1
) -> SkResult:
    """``nb``: Gaussian naive Bayes, untuned (scikit-learn's defaults, as Eger et al.);
    ``rf``: a random forest of 100 trees (max_features sqrt, seeded) with its maximum depth
    selected on dev from :data:`RF_DEPTHS` (10, 50, 100, unlimited), as Eger et al."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.naive_bayes import GaussianNB

    if kind == "nb":
        cands = [({"var_smoothing": 1e-9}, GaussianNB())]
    elif kind == "rf":
        cands = [
            ({"n_estimators": 100, "max_depth": d}, RandomForestClassifier(
                n_estimators=100, max_depth=d, random_state=seed % (2**32), n_jobs=n_jobs))
            for d in RF_DEPTHS
        ]  # fmt: skip
    else:
        raise XProbeError(f"unknown scikit-learn classifier {kind!r}; valid: nb, rf")
    best: SkResult | None = None
    for params, clf in cands:
        clf.fit(xtr, ytr)
        dev = float(np.mean(clf.predict(xva) == yva))
        if best is None or dev > best.dev_acc:
            hit = clf.predict(xte) == yte
            best = SkResult(dev, float(np.mean(hit)), params, hit)
    assert best is not None
    return best

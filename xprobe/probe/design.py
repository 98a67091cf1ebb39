"""The classifiers and training subsamples of Eger, Daxenberger & Gurevych (2020), used by the
probe harness for ``--classifier nb rf`` and ``--max-train`` and by the robustness study
(:mod:`xprobe.probe.robustness`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xprobe.errors import XProbeError
from xprobe.files import np_rng

__all__ = ["SkResult", "balanced_subsample", "fit_sklearn"]


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


@dataclass
class SkResult:
    dev_acc: float
    test_acc: float
    params: dict[str, Any] = field(default_factory=dict)
    test_correct: np.ndarray | None = None


def fit_sklearn(
    kind: str, xtr, ytr, xva, yva, xte, yte, seed: int = 0, n_jobs: int = 1
) -> SkResult:
    """``nb``: Gaussian naive Bayes (var_smoothing selected on dev from 1e-9, 1e-6, 1e-3);
    ``rf``: a random forest of 100 trees (max_features sqrt, seeded)."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.naive_bayes import GaussianNB

    if kind == "nb":
        cands = [({"var_smoothing": v}, GaussianNB(var_smoothing=v)) for v in (1e-9, 1e-6, 1e-3)]
    elif kind == "rf":
        rf = RandomForestClassifier(n_estimators=100, random_state=seed % (2**32), n_jobs=n_jobs)
        cands = [({"n_estimators": 100}, rf)]
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

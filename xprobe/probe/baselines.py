"""Baselines that need no encoder (Conneau et al. 2018, Table 2, top block).

* ``majority``: the most frequent training label (ties: the first in label order);
* ``length``: a (multinomial) logistic regression whose sole feature is the sentence length in
  tokens;
* ``nb-unigram`` / ``nb-bigram``: multinomial naive Bayes on tf-idf of unigrams, resp. unigrams
  and bigrams, of the tokens as written (no lower-casing); the smoothing ``alpha`` is selected on
  the validation split from (0.01, 0.1, 1.0).

Each returns a :class:`BaselineResult` with validation and test accuracy.

Example::

    res = run_baseline("nb-bigram", probing_set)
    res.test_acc, res.params
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xprobe.errors import XProbeError
from xprobe.probe.datasets import ProbingSet

__all__ = ["BASELINES", "BaselineResult", "run_baseline"]

BASELINES = ("majority", "length", "nb-unigram", "nb-bigram")
NB_ALPHAS = (0.01, 0.1, 1.0)


@dataclass
class BaselineResult:
    dev_acc: float
    test_acc: float
    n_train: int
    n_test: int
    params: dict[str, Any] = field(default_factory=dict)
    test_correct: np.ndarray | None = None


def _acc(pred: np.ndarray, y: np.ndarray) -> float:
    return int((np.asarray(pred) == y).sum()) / len(y) if len(y) else float("nan")


def run_baseline(name: str, ps: ProbingSet, seed: int = 0) -> BaselineResult:
    """Train baseline ``name`` on ``ps``'s tr split, select on va, score on te."""
    ytr, yva, yte = ps.y("tr"), ps.y("va"), ps.y("te")
    n = (len(ytr), len(yte))
    if name == "majority":
        counts = np.bincount(ytr, minlength=len(ps.labels))
        top = int(np.argmax(counts))
        return BaselineResult(
            _acc(np.full(len(yva), top), yva),
            _acc(np.full(len(yte), top), yte),
            *n,
            {"label": ps.labels[top]},
            np.asarray(yte) == top,
        )
    if name == "length":
        return _length(ps, ytr, yva, yte, seed)
    if name in ("nb-unigram", "nb-bigram"):
        return _naive_bayes(ps, ytr, yva, yte, 1 if name == "nb-unigram" else 2)
    raise XProbeError(f"unknown baseline {name!r}; valid: {', '.join(BASELINES)}")


def _lengths(sents: Sequence[Sequence[str]]) -> np.ndarray:
    return np.asarray([[len(s)] for s in sents], dtype=np.float64)


def _length(ps: ProbingSet, ytr, yva, yte, seed: int) -> BaselineResult:
    from sklearn.linear_model import LogisticRegression

    xtr = _lengths(ps.tokens["tr"])
    mu, sd = xtr.mean(), xtr.std() or 1.0
    clf = LogisticRegression(C=1e4, max_iter=2000, random_state=seed % (2**32))
    if len(np.unique(ytr)) < 2:
        pred_va, pred_te = np.full(len(yva), ytr[0]), np.full(len(yte), ytr[0])
    else:
        clf.fit((xtr - mu) / sd, ytr)
        pred_va = clf.predict((_lengths(ps.tokens["va"]) - mu) / sd)
        pred_te = clf.predict((_lengths(ps.tokens["te"]) - mu) / sd)
    return BaselineResult(
        _acc(pred_va, yva), _acc(pred_te, yte), len(ytr), len(yte), {}, np.asarray(pred_te) == yte
    )


def _naive_bayes(ps: ProbingSet, ytr, yva, yte, order: int) -> BaselineResult:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.naive_bayes import MultinomialNB

    vec = TfidfVectorizer(
        analyzer=lambda toks: _ngrams(toks, order), lowercase=False, sublinear_tf=False
    )
    xtr = vec.fit_transform(ps.tokens["tr"])
    xva, xte = vec.transform(ps.tokens["va"]), vec.transform(ps.tokens["te"])
    best: tuple[float, float, Any] | None = None
    for alpha in NB_ALPHAS:
        clf = MultinomialNB(alpha=alpha).fit(xtr, ytr)
        dev = _acc(clf.predict(xva), yva)
        if best is None or dev > best[0]:
            best = (dev, alpha, clf)
    assert best is not None
    dev, alpha, clf = best
    pred = clf.predict(xte)
    params = {"alpha": alpha, "ngram": order}
    return BaselineResult(dev, _acc(pred, yte), len(ytr), len(yte), params, pred == yte)


def _ngrams(toks: Sequence[str], order: int) -> list[str]:
    out = list(toks)
    if order >= 2:
        out += [f"{a} {b}" for a, b in itertools.pairwise(toks)]
    return out

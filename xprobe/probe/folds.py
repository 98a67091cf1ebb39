"""Cross-validation folds over every line of a probing set (``--cv K``, protocol ``cv:K``).

The three splits of a task file are pooled and every line is dealt to one of K folds:

* **grouped**: lines that share a lexical key (Tense's verb, SubjNum's and ObjNum's noun,
  SOMO's replacement: the ``key`` column of ``TASK.provenance.tsv``, case-folded as extract
  wrote it) or the same text are one group, and a group sits in one fold, so no key and no
  sentence is ever on both the training and the test side (the rule the splits keep);
* **stratified**: groups are dealt largest first, each to the fold where its labels are least
  represented so far (then the smallest fold, then the lowest index), so every fold holds
  about 1/K of each class. Ties between groups of one size are broken by a seeded order.

Rotation k scores fold k with a probe trained on the other folds but fold k+1 (mod K) and
selected (L2, hidden size, early stopping) on fold k+1: nested selection, never on a test item.
Every line is scored exactly once, by a probe that never saw it nor any line sharing its key.

The folds depend only on the data (labels, keys, texts), K and the language and task, never on
the encoder, the classifier or its seed: two encoders are scored on the same folds, so their
per-item results pair up (:mod:`xprobe.report.stats`).

Example::

    >>> folds = assign_folds([0, 1, 0, 1, 0, 1], ["a", "a", None, None, None, None], 3,
    ...                      texts=["s1", "s2", "s3", "s4", "s5", "s6"], purpose=("en", "T"))
    >>> int(folds[0]) == int(folds[1])   # one key, one fold
    True
    >>> tr, va, te = rotation(folds, 0)    # rows: training, validation (fold 1), test (fold 0)
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from xprobe.errors import XProbeError
from xprobe.files import derive_seed

__all__ = ["assign_folds", "fold_sizes", "groups_of", "rotation"]


def groups_of(keys: Sequence[str | None], texts: Sequence[Hashable]) -> np.ndarray:
    """A group id per line: lines sharing a key or a text are one group (union-find)."""
    parent = list(range(len(keys)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[tuple[str, Hashable], int] = {}
    for i, (k, t) in enumerate(zip(keys, texts, strict=True)):
        for tag in (("k", k),) * (k is not None) + (("t", t),):
            j = first.setdefault(tag, i)
            a, b = find(i), find(j)
            if a != b:
                parent[max(a, b)] = min(a, b)
    roots = np.fromiter((find(i) for i in range(len(keys))), dtype=np.int64, count=len(keys))
    _, ids = np.unique(roots, return_inverse=True)
    return ids.astype(np.int64)


def assign_folds(
    y: Sequence[int] | np.ndarray,
    keys: Sequence[str | None],
    k: int,
    texts: Sequence[Hashable],
    purpose: tuple[object, ...] = (),
) -> np.ndarray:
    """The fold (0..k-1) of every line: grouped by key and text, stratified by label ``y``."""
    y = np.asarray(y, dtype=np.int64)
    n = len(y)
    if len(keys) != n or len(texts) != n:
        raise XProbeError(f"folds: {n} labels, {len(keys)} keys, {len(texts)} texts")
    groups = groups_of(keys, texts)
    n_groups = int(groups.max()) + 1 if n else 0
    if n_groups < k:
        raise XProbeError(f"cv:{k} needs at least {k} groups of lines (keys), found {n_groups}")
    n_classes = int(y.max()) + 1 if n else 0
    counts = np.zeros((n_groups, n_classes), dtype=np.int64)
    np.add.at(counts, (groups, y), 1)
    total = np.maximum(counts.sum(axis=0), 1).astype(np.float64)
    tie = np.random.default_rng(derive_seed(0, *purpose, "folds", k)).permutation(n_groups)
    order = np.lexsort((tie, -counts.sum(axis=1)))  # largest first, seeded among equals
    have = np.zeros((k, n_classes), dtype=np.float64)
    fold_of_group = np.empty(n_groups, dtype=np.int64)
    for g in order:
        c = counts[g]
        # where this group's labels are least represented (as shares of each class)
        need = (have[:, c > 0] / total[c > 0] * c[c > 0]).sum(axis=1)
        f = int(np.lexsort((np.arange(k), have.sum(axis=1), need))[0])
        fold_of_group[g] = f
        have[f] += c
    return fold_of_group[groups]


def rotation(folds: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows (training, validation, test) of rotation ``r``: test = fold r, validation = fold
    r+1 (mod K), training = the rest."""
    k = int(folds.max()) + 1
    te = np.flatnonzero(folds == r)
    va = np.flatnonzero(folds == (r + 1) % k)
    tr = np.flatnonzero((folds != r) & (folds != (r + 1) % k))
    return tr, va, te


def fold_sizes(folds: np.ndarray, k: int) -> list[int]:
    """Lines per fold."""
    return np.bincount(folds, minlength=k).astype(int).tolist()

"""Cross-validated probing of one set: its lines pooled, folded, and every line scored once.

:func:`plan` pools a probing set's splits in file order (tr, va, te) and deals the lines to
folds (:mod:`xprobe.probe.folds`); the harness then trains one probe per rotation on slices of
the pooled embeddings (encoded once) and :func:`combine` puts the rotations' results together:
the per-item correctness of all N lines in file order, the test accuracy over all N, the
validation accuracy over all N (every line is a validation item of one rotation), the fold
sizes and every rotation's hyperparameters.

Lexical keys come from the task's provenance file (:func:`xprobe.probe.controls.read_keys`),
compared case-folded as the splits compare them (:func:`xprobe.tasks.base.fold_key`); a
task with keys (Tense, SubjNum, ObjNum, SOMO) and no provenance file is refused, since its folds
could put one key on both sides.

Example::

    cv = plan(ps, 10)
    for r in range(cv.k):
        tr, va, te = cv.rows(r)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from xprobe.errors import XProbeError
from xprobe.probe.controls import KEYED_TASKS, read_keys
from xprobe.probe.datasets import SPLITS, ProbingSet
from xprobe.probe.folds import assign_folds, fold_sizes, rotation
from xprobe.protocol import cv_floor
from xprobe.tasks.base import fold_key

__all__ = ["BelowFloor", "CVPlan", "Rotation", "combine", "cv_sets", "plan"]


class BelowFloor(XProbeError):
    """A set too small for the cross-validation floor (recorded n/a, kind ``corpus``)."""


@dataclass
class CVPlan:
    """The pooled lines of a set (tr, then va, then te) and the fold of each."""

    ps: ProbingSet
    k: int
    folds: np.ndarray
    y: np.ndarray
    keys: list[str | None]

    @property
    def n(self) -> int:
        return len(self.y)

    @property
    def protocol(self) -> str:
        return f"cv:{self.k}"

    def rows(self, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pooled rows (training, validation, test) of rotation ``r``."""
        return rotation(self.folds, r)

    def sizes(self) -> list[int]:
        return fold_sizes(self.folds, self.k)

    def view(self, r: int) -> ProbingSet:
        """Rotation ``r`` as a probing set of its own (tr/va/te: its three sides)."""
        tokens = [t for s in SPLITS for t in self.ps.tokens[s]]
        labels = [x for s in SPLITS for x in self.ps.labels_of[s]]
        src_rows = np.concatenate([self.ps.rows[s] for s in SPLITS])
        sides = dict(zip(SPLITS, self.rows(r), strict=True))
        return replace(
            self.ps,
            tokens={s: [tokens[i] for i in idx] for s, idx in sides.items()},
            labels_of={s: [labels[i] for i in idx] for s, idx in sides.items()},
            rows={s: src_rows[idx] for s, idx in sides.items()},
            protocol=self.protocol,
            _index={},
        )


@dataclass
class Rotation:
    """One rotation's result: validation and test accuracy, hyperparameters, test hits."""

    dev: float
    test: float
    hp: dict[str, Any]
    hit: np.ndarray | None


def plan(ps: ProbingSet, k: int) -> CVPlan:
    """Pool ``ps``'s lines and deal them to ``k`` folds (grouped by key and text, stratified).
    Raises when the set is below the cross-validation floor or a keyed task has no keys."""
    y = np.concatenate([ps.y(s) for s in SPLITS])
    texts = [t for s in SPLITS for t in ps.tokens[s]]
    keys = _keys(ps, len(y))
    need, per_class = cv_floor(len(ps.labels), k)
    counts = np.bincount(y, minlength=len(ps.labels))
    if len(y) < need or counts.min() < per_class:
        least = ps.labels[int(counts.argmin())]
        raise BelowFloor(
            f"{ps.task} has {len(y)} lines ({int(counts.min())} of class {least}); "
            f"cv:{k} needs {need} lines and {per_class} of every class (xprobe.protocol)"
        )
    folds = assign_folds(y, keys, k, texts, (ps.language, ps.file))
    return CVPlan(ps, k, folds, y, keys)


def cv_sets(
    data_dir: Any,
    sets: list[ProbingSet],
    k: int,
    capped: bool,
    unscorable: dict[str, tuple[str, str, str]],
) -> tuple[list[ProbingSet], dict[str, CVPlan]]:
    """The sets to cross-validate (protocol ``cv:k``) and their plans, by file. The folder is
    checked as for the splits; a set below the floor goes to ``unscorable`` (n/a, kind
    ``corpus``). ``capped``: --max-dev/--max-test were given, which cap the splits as written."""
    from xprobe.probe.checks import check_folder

    if capped:
        raise XProbeError(
            "--max-dev/--max-test cap the validation and test splits as written; under "
            f"cv:{k} every line is scored once: leave them out"
        )
    check_folder(data_dir, sets)
    kept, plans = [], {}
    for ps in sets:
        try:
            cv = plan(ps, k)
        except BelowFloor as e:
            unscorable[ps.file] = (ps.task, str(e), "corpus")
            continue
        cv.ps = ps = replace(ps, protocol=cv.protocol)
        kept.append(ps)
        plans[ps.file] = cv
    return kept, plans


def _keys(ps: ProbingSet, n: int) -> list[str | None]:
    if ps.task not in KEYED_TASKS:
        return [None] * n
    keys = read_keys(ps)
    if keys is None:
        raise XProbeError(
            f"{ps.source}: {ps.task} has lexical keys (a key is in one split only) but no "
            f"provenance file beside it, so cross-validation cannot keep a key out of both "
            f"sides of a fold: re-extract with --provenance (or probe with the splits as written)"
        )
    return [None if k is None else fold_key(k) for s in SPLITS for k in keys[s]]


def combine(cv: CVPlan, rotations: list[Rotation]) -> tuple[float, float, dict, np.ndarray | None]:
    """(validation accuracy, test accuracy, hyperparameters, per-item correctness in pooled
    order) of all rotations."""
    hits = None
    if all(r.hit is not None for r in rotations):
        hits = np.zeros(cv.n, dtype=bool)
        for i, r in enumerate(rotations):
            hits[cv.rows(i)[2]] = np.asarray(r.hit, dtype=bool)
    sizes = [(len(cv.rows(i)[1]), len(cv.rows(i)[2])) for i in range(cv.k)]
    dev = sum(r.dev * nv for r, (nv, _) in zip(rotations, sizes, strict=True)) / cv.n
    if hits is not None:
        test = float(hits.mean())
    else:
        test = sum(r.test * nt for r, (_, nt) in zip(rotations, sizes, strict=True)) / cv.n
    return dev, test, _hyperparameters([r.hp for r in rotations]), hits


def _hyperparameters(per_fold: list[dict[str, Any]]) -> dict[str, Any]:
    """Each hyperparameter's most frequent value over the rotations (ties: the first), and
    every rotation's own under ``per_fold``."""
    out: dict[str, Any] = {}
    for name in dict.fromkeys(k for hp in per_fold for k in hp):
        values = [repr(hp.get(name)) for hp in per_fold]
        top = Counter(values).most_common(1)[0][0]
        out[name] = next(hp.get(name) for hp in per_fold if repr(hp.get(name)) == top)
    out["per_fold"] = per_fold
    return out

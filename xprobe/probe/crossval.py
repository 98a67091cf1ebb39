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

import logging
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from xprobe.errors import XProbeError
from xprobe.probe.baselines import BASELINES, run_baseline
from xprobe.probe.controls import KEYED_TASKS, read_keys
from xprobe.probe.datasets import SPLITS, ProbingSet
from xprobe.probe.folds import assign_folds, fold_sizes, rotation
from xprobe.probe.records import pack_correct
from xprobe.protocol import cv_floor
from xprobe.tasks.base import fold_key

__all__ = ["BelowFloor", "CVPlan", "CrossValidating", "Rotation", "combine", "cv_sets", "plan"]

log = logging.getLogger(__name__)


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


class CrossValidating:
    """The harness's cross-validated unit (mixed into its context, whose ``embeddings``,
    ``_fit_layers``, ``_mdl`` and ``_records`` it uses): every rotation of a plan trained on
    slices of the pooled embeddings, and per layer the records of all N lines."""

    opts: Any
    name: str
    beat: Any  # a Heartbeat (xprobe.probe.heartbeat)

    def run_cv_unit(self, u: Any, cv: CVPlan) -> list[dict[str, Any]]:
        """Every rotation of a cross-validated set (:mod:`xprobe.probe.crossval`); per layer,
        the records of all N lines, each scored once."""
        ps = u.ps
        log.info("%s %s/%s %s seed %d (%s, %d lines)", self.name, ps.language, ps.task,
                 u.classifier, u.seed, cv.protocol, cv.n)  # fmt: skip
        if u.classifier in BASELINES:
            rots: dict = {None: []}
            for r in range(cv.k):
                res = run_baseline(u.classifier, cv.view(r), u.seed)
                rots[None].append(Rotation(res.dev_acc, res.test_acc, res.params, res.test_correct))
            extras: dict = {}
        else:
            rots, extras = self._cv_layers(u, cv)
        n_tr = round(sum(len(cv.rows(r)[0]) for r in range(cv.k)) / cv.k)
        return [r for layer, rs in rots.items()
                for r in self._records(u, layer, combine(cv, rs), (n_tr, cv.n, cv.n),
                                       extras.get(layer, {}))]  # fmt: skip

    def _cv_layers(self, u: Any, cv: CVPlan) -> tuple[dict, dict]:
        """Per layer, every rotation's result (and the control task's, with --control), from
        the pooled embeddings, encoded once; and each layer's extra test-record fields."""
        x_all = self._pooled(u.ps)
        layers, k = list(x_all), len(u.ps.labels)
        kind, ctl = self._pooled_control(u.ps, u.seed) if self.opts.control else ("", None)
        rots: dict = {layer: [] for layer in layers}
        crots: dict = {layer: [] for layer in layers}
        for r in range(cv.k):
            sides = self._cv_sides(u, cv, r)
            x = [{layer: x_all[layer][i] for layer in layers} for i in sides]
            fits = [(rots, tuple(cv.y[i] for i in sides))]
            fits += [(crots, tuple(ctl[i] for i in sides))] if ctl is not None else []
            for into, y in fits:
                for layer, res in self._fit_layers(u.classifier, x, y, u.seed, k).items():
                    into[layer].append(Rotation(*res))
            self.beat.part = f"folds {r + 1} of {cv.k} done"
        extras: dict = {layer: {} for layer in layers}
        for layer in layers:
            if ctl is not None:
                _, test, _, hit = combine(cv, crots[layer])
                extras[layer].update(control=kind, control_value=round(float(test), 6))
                if hit is not None:
                    extras[layer]["control_correct"] = pack_correct(hit)
            if u.classifier.startswith("mdl-"):  # the online code of rotation 0's two sides
                tr, va, _ = cv.rows(0)
                extras[layer]["mdl"] = self._mdl(u, x_all[layer][tr], x_all[layer][va],
                                                 (cv.y[tr], cv.y[va]), k)  # fmt: skip
        return rots, extras

    def _cv_sides(self, u: Any, cv: CVPlan, r: int) -> tuple[np.ndarray, ...]:
        """Rotation ``r``'s pooled rows, its training side subsampled with --max-train."""
        tr, va, te = cv.rows(r)
        n = self.opts.max_train
        if n is not None and len(tr) > n:
            from xprobe.probe.design import stratified_subsample

            tr = tr[stratified_subsample(cv.y[tr], n, u.seed, u.ps.language, u.ps.task, r)]
        return tr, va, te

    def _pooled(self, ps: ProbingSet) -> dict[int | None, np.ndarray]:
        """Per layer, the embeddings of every line in pooled order (tr, va, te)."""
        parts = [self.embeddings(ps, s) for s in ("tr", "va", "te")]
        return {layer: np.concatenate([p[layer] for p in parts]) for layer in parts[0]}

    def _pooled_control(self, ps: ProbingSet, seed: int) -> tuple[str, np.ndarray]:
        """The control task's kind and labels (xprobe.probe.controls) in pooled order."""
        from xprobe.probe.controls import control_labels

        ctl = control_labels(ps, seed)
        return ctl.kind, np.concatenate([ctl.labels[s] for s in ("tr", "va", "te")])

"""Experiments from records: only seeds are averaged, everything else keeps records apart.

Two records belong to the same *experiment* when every field agrees except the per-run ones
(:data:`PER_RUN_FIELDS`: the seed, the measured value, what the seed's model selection chose,
per-item correctness, timings). Every other field, including fields this module does not know
(e.g. a ``layer`` added by another stage), is part of the experiment key, so a 2k-subsample run
and a full run, two grids, two protocols or two layers are never averaged together.

An experiment's *setting* is the part of its key that is neither the identity of the cell
(encoder, task, language, ...) nor a property of the data (hash, sizes): what a table heading
must state so that a reader knows which experiment a number comes from.

Example::

    exps = group_experiments(records)
    [(e.get("encoder"), e.get("max_train"), e.mean, e.n) for e in exps]
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xprobe.probe.records import PER_RUN_FIELDS
from xprobe.report.md import escape

__all__ = [
    "CELL_FIELDS",
    "PER_RUN_FIELDS",
    "Experiment",
    "group_experiments",
    "setting_label",
]

log = logging.getLogger(__name__)

# Fields that say which cell of a table an experiment fills, or describe its data: part of
# the key, but not of the setting a table heading states (a layer is part of the row: ENC@L3).
CELL_FIELDS = frozenset(
    {
        "encoder",
        "encoder_id",
        "dataset",
        "language",
        "task",
        "classifier",
        "split",
        "metric",
        "dataset_hash",
        "n_train",
        "n_test",
        "folds",
        "mapped_from",
        "teacher",
        "test_overlap",
        "test_overlap_removed",
        "overlap_removed",
        "vocab_coverage",
        "partial",
        "one_class",
        "layer",
    }
)


@dataclass
class Experiment:
    """The records of one experiment (one per seed), with the mean and spread over seeds."""

    fields: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    @property
    def values(self) -> list[float]:
        return [float(r["value"]) for r in self.records]

    @property
    def n(self) -> int:
        """Number of seeds."""
        return len(self.records)

    @property
    def mean(self) -> float:
        return float(np.mean(self.values))

    @property
    def std(self) -> float | None:
        """Population std over seeds; None with a single seed (there is no spread to show)."""
        return float(np.std(self.values)) if self.n > 1 else None

    @property
    def setting(self) -> dict[str, Any]:
        return {k: v for k, v in self.fields.items() if k not in CELL_FIELDS}


def _key(rec: dict[str, Any]) -> str:
    return json.dumps(
        {k: v for k, v in rec.items() if k not in PER_RUN_FIELDS}, sort_keys=True, default=str
    )


def group_experiments(records: Iterable[dict[str, Any]]) -> list[Experiment]:
    """Records -> experiments (in first-seen order). A seed recorded twice for one experiment
    (e.g. the same file passed twice) counts once: the later record wins, with a warning."""
    exps: dict[str, Experiment] = {}
    for rec in records:
        k = _key(rec)
        exp = exps.get(k)
        if exp is None:
            fields = {f: v for f, v in rec.items() if f not in PER_RUN_FIELDS}
            exp = exps[k] = Experiment(fields)
        same = [i for i, r in enumerate(exp.records) if r.get("seed") == rec.get("seed")]
        if same:
            log.warning("seed %s of %s/%s/%s recorded twice: the later record is used",
                        rec.get("seed"), rec.get("encoder"), rec.get("language"),
                        rec.get("task"))  # fmt: skip
            exp.records[same[0]] = rec
        else:
            exp.records.append(rec)
    return list(exps.values())


def setting_label(setting: dict[str, Any]) -> str:
    """A short readable description of a setting (``max_train=2000, grid=full``)."""
    parts = []
    for k in sorted(setting):
        v = setting[k]
        if k == "max_train" and v is None:
            v = "all"
        parts.append(f"{k}={escape(json.dumps(v)) if isinstance(v, (dict, list)) else v}")
    return ", ".join(parts)

"""Control tasks (Hewitt & Liang 2019), derived at probe time from the data and the seed.

A control task keeps the sentences and replaces the labels by ones that carry no linguistic
information; a probe's accuracy on it measures what the probe learns by itself. Selectivity =
task accuracy minus control accuracy (the report computes it).

* **type-level** (``control: "type"``), for tasks with a lexical key (Tense: the main verb,
  SubjNum/ObjNum: the subject/object noun, SOMO: the replaced word): the control label of a
  sentence is a seeded function of its key, drawn with the task's training class proportions;
  every sentence with the same key gets the same control label, so a probe can score above
  chance only by memorising key -> label from the representation. Keys are read from the task's
  ``<file>.provenance.tsv`` (``xprobe extract --provenance``), aligned line by line with the task.
* **shuffled** (``control: "shuffled"``), for the other tasks and wherever no keys are at hand:
  each split's labels are permuted (seeded), which keeps the class proportions exactly.

Derived at probe time (not written by extract): reproducible from the data and the seed, no
extra files, and any probing folder (also the X-Probe release) gets a control.

Example::

    ctl = control_labels(ps, seed=0)
    ctl.kind, ctl.labels["te"][:5]
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xprobe.files import np_rng
from xprobe.probe.datasets import SPLITS, ProbingSet

__all__ = ["KEYED_TASKS", "Control", "control_labels", "read_keys"]

KEYED_TASKS = frozenset({"Tense", "SubjNum", "ObjNum", "SOMO"})


@dataclass
class Control:
    """Control labels per split (indices into the task's label set) and how they were made."""

    kind: str
    labels: dict[str, np.ndarray]


def read_keys(ps: ProbingSet) -> dict[str, list[str | None]] | None:
    """Each sentence's lexical key per split from the task's provenance file; None without one
    (or when it does not line up with the task file)."""
    src = Path(ps.source)
    if not src.is_file():
        return None
    prov = src.with_name(src.name.split(".")[0] + ".provenance.tsv")
    if not prov.is_file():
        return None
    keys = []
    with open(prov, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                k = line.rstrip("\n").split("\t")[-1]
                keys.append(None if k == "_" else k)
    total = sum(len(r) for r in ps.rows.values())
    if len(keys) < total or any(len(r) and r.max() >= len(keys) for r in ps.rows.values()):
        return None
    return {s: [keys[i] for i in ps.rows[s]] for s in ps.rows}


def _uniform(seed: int, task: str, key: str) -> float:
    h = hashlib.sha256(f"{seed}\t{task}\t{key}".encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def control_labels(ps: ProbingSet, seed: int = 0) -> Control:
    """Type-level control labels for keyed tasks with provenance, shuffled labels otherwise."""
    keys = read_keys(ps) if ps.task in KEYED_TASKS else None
    if keys is not None and all(k is not None for ks in keys.values() for k in ks):
        counts = np.bincount(ps.y("tr"), minlength=len(ps.labels)).astype(np.float64)
        cum = np.cumsum(counts / counts.sum())
        labels = {
            s: np.minimum(
                np.searchsorted(cum, [_uniform(seed, ps.task, str(k)) for k in keys[s]], "right"),
                len(ps.labels) - 1,
            ).astype(np.int64)
            for s in keys
        }
        return Control("type", labels)
    gen = np_rng(seed, ps.language, ps.task, "control")
    return Control("shuffled", {s: gen.permutation(ps.y(s)) for s in SPLITS if s in ps.tokens})


def control_fields(ps: ProbingSet, idx: np.ndarray | None, seed: int, fit) -> dict[str, object]:
    """Train the same probe on the control task; the test record's control fields.

    ``fit(ytr, yva, yte)`` trains and selects like the task probe and returns (dev accuracy,
    test accuracy, hyperparameters, per-item correctness); ``idx`` is the training subsample."""
    from xprobe.probe.records import pack_correct

    ctl = control_labels(ps, seed)
    ytr = ctl.labels["tr"] if idx is None else ctl.labels["tr"][idx]
    _, test, _, hit = fit(ytr, ctl.labels["va"], ctl.labels["te"])
    out: dict[str, object] = {"control": ctl.kind, "control_value": round(float(test), 6)}
    if hit is not None:
        out["control_correct"] = pack_correct(hit)
    return out

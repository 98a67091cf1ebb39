"""Tidy result records (JSONL): one line per (encoder, language, task, classifier, seed, split).

A record::

    {"encoder": "bov-fasttext", "encoder_id": "bov-mean:...", "dataset": "xprobe",
     "language": "en", "task": "SentLen", "classifier": "mlp", "seed": 0, "split": "test",
     "metric": "accuracy", "value": 0.6661, "n_train": 100000, "n_test": 10000,
     "dataset_hash": "<sha256>", "protocol": "tr/va/te", "grid": "default", "max_train": null,
     "hyperparameters": {"l2": 0.001, "hidden": 150, "dropout": 0.0, "epochs": 12},
     "version": "0.1.0"}

No timing fields: the same inputs and seed give identical records. ``n_test`` is the size of the
split the value was measured on (validation for ``split: "dev"``).

Writing: :func:`append_records` reads the file, adds the records and writes the whole file again
with a temp file + rename (atomic; a crash keeps the old file intact). Records with the same
:func:`record_key` are replaced only when ``replace=True`` (``--force``). Reading is strict by
default; ``on_error="skip"`` drops unreadable lines (e.g. a truncated last line left by another
tool) with a warning.

Example::

    recs = read_records("results/en.jsonl")
    done = {record_key(r) for r in recs}
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from xprobe.errors import InputError
from xprobe.files import atomic_write, read_lines
from xprobe.languages import NA_KINDS

__all__ = [
    "FIELDS",
    "KEY_FIELDS",
    "NA_FIELDS",
    "NA_OPTIONAL_FIELDS",
    "OPTIONAL_FIELDS",
    "PER_RUN_FIELDS",
    "append_records",
    "is_not_applicable",
    "pack_correct",
    "read_records",
    "record_key",
    "unpack_correct",
    "validate_record",
]

log = logging.getLogger(__name__)

FIELDS: dict[str, type | tuple[type, ...]] = {
    "encoder": str,
    "encoder_id": str,
    "dataset": str,
    "language": str,
    "task": str,
    "classifier": str,
    "seed": int,
    "split": str,
    "metric": str,
    "value": (int, float),
    "n_train": int,
    "n_test": int,
    "dataset_hash": str,
    "protocol": str,
    "grid": str,
    "max_train": (int, type(None)),
    "hyperparameters": dict,
    "version": str,
}
# Fields a record may carry (validated when present). mapped_from/teacher: the teacher's encoder
# id and folder name of a mapped checkpoint (from its config.json); partial: the task was only
# partly filled (the data's manifest.json); test_overlap_removed: test items dropped because they
# occur in training; correct: per-test-item correctness, packed (pack_correct); control,
# control_value, control_correct: the control task's kind, test accuracy and correctness
# (xprobe.probe.controls); mdl: the online code of an mdl-* probe (xprobe.probe.mdl).
# layer: the hidden layer of a layer-wise encoder (hf:/st:, 0 = the embedding layer).
# vocab_coverage: tokens/types of the task and how many have a word vector (xprobe.probe.coverage);
# overlap_removed: {"va": n, "te": n} sentences dropped for occurring in training.
# one_class: {"te": label, "va": label} for splits holding one class only (--allow-one-class).
# folds: lines per fold of a cross-validated record (protocol cv:K; xprobe.probe.crossval).
# training_protocol: converged | senteval, how lr/mlp probes were trained (xprobe.probe.classifiers;
# a key field: records of the older Adam-trained lr, without it, are not taken for converged ones).
OPTIONAL_FIELDS: dict[str, type | tuple[type, ...]] = {
    "layer": (int, type(None)),
    "mapped_from": str,
    "teacher": str,
    "partial": bool,
    "test_overlap_removed": int,
    "correct": str,
    "control": str,
    "control_value": (int, float),
    "control_correct": str,
    "mdl": dict,
    "vocab_coverage": dict,
    "overlap_removed": dict,
    "one_class": dict,
    "training_protocol": str,
    "folds": list,
}
# Fields that differ between the seeds of one experiment: the report averages over these only
# (xprobe.report.group) and every other field, known or not, separates experiments.
PER_RUN_FIELDS = frozenset(
    {"seed", "value", "hyperparameters", "version", "correct", "predictions", "timings",
     "seconds", "control", "control_value", "control_correct", "mdl"}
)  # fmt: skip
KEY_FIELDS = (
    "encoder",
    "encoder_id",
    "dataset",
    "language",
    "task",
    "classifier",
    "seed",
    "split",
    "metric",
    "dataset_hash",
    "grid",
    "max_train",
    "training_protocol",
    "layer",
    "protocol",
)
SPLITS = ("dev", "test")
METRICS = ("accuracy",)


# A task that does not apply to the language (the data's manifest: "applicable": false) gets one
# record per (encoder, classifier) saying so, instead of a number: these fields only.
_NA_KEPT = ("encoder", "encoder_id", "dataset", "language", "task", "classifier", "seed",
            "split", "metric", "dataset_hash", "grid", "max_train", "version")  # fmt: skip
NA_FIELDS: dict[str, type | tuple[type, ...]] = {
    **{k: FIELDS[k] for k in _NA_KEPT},
    "not_applicable": str,
}
# kind: who decided and why (xprobe.languages.NA_KINDS); records written before kinds have none
NA_OPTIONAL_FIELDS: dict[str, type | tuple[type, ...]] = {"kind": str}


def is_not_applicable(rec: dict[str, Any]) -> bool:
    """Whether a record says its task does not apply (it carries a reason, no value)."""
    return "not_applicable" in rec


def _validate_na(rec: dict[str, Any]) -> list[str]:
    problems = [f"missing field {k!r}" for k in NA_FIELDS if k not in rec]
    problems += [f"unknown field {k!r} in a not_applicable record" for k in rec
                 if k not in NA_FIELDS and k not in NA_OPTIONAL_FIELDS]  # fmt: skip
    for k, typ in {**NA_FIELDS, **NA_OPTIONAL_FIELDS}.items():
        if k in rec and not isinstance(rec[k], typ):
            problems.append(f"{k} must be {_typename(typ)}, not {type(rec[k]).__name__}")
    if not problems and not rec["not_applicable"].strip():
        problems.append("not_applicable must give the reason")
    if not problems and "kind" in rec and rec["kind"] not in NA_KINDS:
        problems.append(f"kind must be one of {', '.join(NA_KINDS)}, not {rec['kind']!r}")
    return problems


def validate_record(rec: Any) -> list[str]:
    """The problems of a record (empty when valid): missing/unknown fields, wrong types, ranges."""
    if not isinstance(rec, dict):
        return ["a record must be a JSON object"]
    if is_not_applicable(rec):
        return _validate_na(rec)
    problems = [f"missing field {k!r}" for k in FIELDS if k not in rec]
    problems += [
        f"unknown field {k!r}" for k in rec if k not in FIELDS and k not in OPTIONAL_FIELDS
    ]
    for k, typ in {**FIELDS, **OPTIONAL_FIELDS}.items():
        wrong_bool = isinstance(rec.get(k), bool) and typ is not bool
        if k in rec and (not isinstance(rec[k], typ) or wrong_bool):
            problems.append(f"{k} must be {_typename(typ)}, not {type(rec[k]).__name__}")
    if problems:
        return problems
    if rec["split"] not in SPLITS:
        problems.append(f"split must be one of {', '.join(SPLITS)}")
    if rec["metric"] not in METRICS:
        problems.append(f"metric must be one of {', '.join(METRICS)}")
    if rec["metric"] == "accuracy" and not 0.0 <= rec["value"] <= 1.0:
        problems.append("accuracy must lie in [0, 1]")
    if rec["n_train"] < 0 or rec["n_test"] < 0:
        problems.append("n_train and n_test must be >= 0")
    for bits, value in (("correct", "value"), ("control_correct", "control_value")):
        if bits not in rec:
            continue
        try:
            hits = unpack_correct(rec[bits], rec["n_test"])
        except ValueError as e:
            problems.append(f"{bits}: {e}")
        else:
            if len(hits) and abs(hits.mean() - rec.get(value, -1)) > 1e-5:
                problems.append(f"{bits} does not agree with {value}")
    for k in ("encoder", "language", "task", "classifier", "dataset_hash"):
        if not rec[k]:
            problems.append(f"{k} must not be empty")
    return problems


def _typename(typ: type | tuple[type, ...]) -> str:
    if isinstance(typ, tuple):
        return " or ".join("null" if t is type(None) else t.__name__ for t in typ)
    return typ.__name__


def pack_correct(correct: Any) -> str:
    """Per-item correctness (bools, test order) -> ``"b64:"`` + base64 of the packed bits
    (one bit per item, most significant first; n_test items: 10k items -> 1,668 characters)."""
    import base64

    import numpy as np

    bits = np.packbits(np.asarray(correct, dtype=bool))
    return "b64:" + base64.b64encode(bits.tobytes()).decode("ascii")


def unpack_correct(text: str, n: int) -> Any:
    """The bool array of :func:`pack_correct` (``n`` items); ValueError when it does not fit."""
    import base64
    import binascii

    import numpy as np

    if not text.startswith("b64:"):
        raise ValueError("correct must start with 'b64:'")
    try:
        raw = base64.b64decode(text[4:], validate=True)
    except binascii.Error as e:
        raise ValueError(f"correct is not base64 ({e})") from None
    if len(raw) != (n + 7) // 8:
        raise ValueError(f"correct holds {len(raw) * 8} bits, n_test is {n}")
    return np.unpackbits(np.frombuffer(raw, dtype=np.uint8))[:n].astype(bool)


def record_key(rec: dict[str, Any]) -> tuple:
    """What makes two records the same measurement (a rerun skips keys already present)."""
    return tuple(json.dumps(rec.get(k), sort_keys=True) for k in KEY_FIELDS)


def read_records(path: str | os.PathLike[str], on_error: str = "raise") -> list[dict[str, Any]]:
    """All records of a JSONL file (none when it does not exist), validated."""
    p = Path(path)
    if not p.exists():
        return []
    out = []
    for lineno, line in read_lines(p):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            problems = validate_record(rec)
        except json.JSONDecodeError as e:
            problems = [f"not JSON ({e.msg})"]
        if problems:
            if on_error == "skip":
                log.warning("%s:%d: skipped: %s", p, lineno, "; ".join(problems))
                continue
            raise InputError(str(p), lineno, "; ".join(problems))
        out.append(rec)
    return out


def append_records(
    path: str | os.PathLike[str], records: Iterable[dict[str, Any]], replace: bool = False
) -> int:
    """Add records to a JSONL file atomically (rewrite + rename); returns how many were written.

    A record whose key is already present is skipped, or replaces the old one when ``replace``.
    Invalid records raise ``ValueError`` before anything is written.
    """
    new = list(records)
    for rec in new:
        problems = validate_record(rec)
        if problems:
            raise ValueError(f"invalid record {rec!r}: {'; '.join(problems)}")
    old = read_records(path)
    keys = {record_key(r) for r in old}
    if replace:
        drop = {record_key(r) for r in new}
        old = [r for r in old if record_key(r) not in drop]
        added = new
    else:
        added = [r for r in new if record_key(r) not in keys]
    with atomic_write(path) as f:
        for rec in [*old, *added]:
            f.write(json.dumps(rec, sort_keys=True, ensure_ascii=False) + "\n")
    return len(added)

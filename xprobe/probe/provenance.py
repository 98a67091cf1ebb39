"""What a record says about where its encoder and data came from.

* :func:`encoder_fields`: for a checkpoint made by ``xprobe map``, the teacher it was mapped from
  (``mapped_from``: the teacher's encoder id, as it appears in the teacher's own records;
  ``teacher``: the teacher's folder name), read from the checkpoint's ``config.json``, so the
  report can pair a student with its teacher whatever either folder is called;
* :func:`partial_tasks`: the task files that ``extract`` could fill only partly
  (``manifest.json``: ``tasks.<file>.partial``);
* :func:`not_applicable_tasks`: the tasks that do not apply to the language, with the reason
  and its kind (``manifest.json``: ``tasks.<file>.applicable`` false).

Example::

    encoder_fields("models/de-bilstm-max")   # {"mapped_from": "bilstm-max:...", "teacher": ...}
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["encoder_fields", "manifest_tasks", "not_applicable_tasks", "partial_tasks"]


def encoder_fields(spec: Any) -> dict[str, str]:
    """``mapped_from``/``teacher`` for a mapped checkpoint directory; empty otherwise.

    Read where ``xprobe map`` writes them (:func:`xprobe.mapping.student.teacher_of`:
    ``teacher``/``teacher_id`` in ``config.json``'s ``extra``, or ``xprobe_student.json`` of a
    transformer student), or where the trainer before it did (``extra.mapping.teacher_id``)."""
    if not isinstance(spec, str):
        return {}
    from xprobe.mapping.student import teacher_of

    meta = teacher_of(spec) or _older_layout(spec)
    if not meta or not meta.get("teacher_id"):
        return {}
    out = {"mapped_from": str(meta["teacher_id"])}
    teacher = meta.get("teacher")
    if teacher:
        out["teacher"] = Path(str(teacher).rstrip("/")).name
    return out


def _older_layout(spec: str) -> dict[str, Any] | None:
    """``{"teacher", "teacher_id"}`` from ``extra.mapping`` (checkpoints of xprobe map before
    its metadata moved to ``extra``)."""
    if not (Path(spec) / "config.json").is_file():
        return None
    from xprobe.encoders.checkpoint import read_config

    mapping = read_config(spec).get("extra", {}).get("mapping")
    if not isinstance(mapping, dict) or not mapping.get("teacher_id"):
        return None
    return {"teacher_id": mapping["teacher_id"],
            "teacher": (mapping.get("config") or {}).get("teacher")}  # fmt: skip


def partial_tasks(data_dir: str | os.PathLike[str]) -> set[str]:
    """File stems of the tasks the data's manifest marks as partly filled."""
    p = Path(data_dir) / "manifest.json"
    if not p.is_file():
        return set()
    try:
        tasks = json.loads(p.read_text(encoding="utf-8")).get("tasks", {})
    except (json.JSONDecodeError, AttributeError):
        return set()
    return {f.split(".")[0] for f, entry in tasks.items()
            if isinstance(entry, dict) and entry.get("partial")}  # fmt: skip


def not_applicable_tasks(data_dir: str | os.PathLike[str]) -> dict[str, tuple[str, str, str]]:
    """``{file stem: (task name, reason, kind)}`` for the tasks the manifest marks not
    applicable (kind ``""`` where the manifest gives none: written before kinds)."""
    tasks = manifest_tasks(data_dir)
    return {
        f: (
            str(e.get("task") or f),
            str(e.get("reason") or "no reason given"),
            str(e.get("kind") or ""),
        )
        for f, e in sorted(tasks.items())
        if isinstance(e, dict) and e.get("applicable", True) is False
    }


def manifest_tasks(data_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest's ``tasks`` table (empty without a readable manifest)."""
    p = Path(data_dir) / "manifest.json"
    if not p.is_file():
        return {}
    try:
        tasks = json.loads(p.read_text(encoding="utf-8")).get("tasks", {})
    except (json.JSONDecodeError, AttributeError):
        return {}
    return tasks if isinstance(tasks, dict) else {}

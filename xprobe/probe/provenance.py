"""What a record says about where its encoder and data came from.

* :func:`encoder_fields`: for a checkpoint made by ``xprobe map``, the teacher it was mapped from
  (``mapped_from``: the teacher's encoder id, as it appears in the teacher's own records;
  ``teacher``: the teacher's folder name), as its :class:`~xprobe.encoders.encoder_spec.EncoderSpec`
  read them from the checkpoint, so the report can pair a student with its teacher whatever
  either folder is called;
* :func:`partial_tasks`: the task files that ``extract`` could fill only partly
  (``manifest.json``: ``tasks.<file>.partial``);
* :func:`not_applicable_tasks`: the tasks that do not apply to the language, with the reason
  and its kind (``manifest.json``: ``tasks.<file>.applicable`` false).

Example::

    encoder_fields(EncoderSpec.parse("models/de-bilstm-max"))
    # {"mapped_from": "bilstm-max:...", "teacher": "en-bilstm-max"}
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["encoder_fields", "manifest_tasks", "not_applicable_tasks", "partial_tasks"]


def encoder_fields(spec: Any) -> dict[str, str]:
    """``mapped_from``/``teacher`` for a mapped checkpoint; empty otherwise (and for an encoder
    object). Read once, when the spec was parsed (:attr:`EncoderSpec.provenance`: where
    ``xprobe map`` writes them, ``teacher``/``teacher_id`` in ``config.json``'s ``extra`` or
    ``xprobe_student.json`` of a transformer student, or where the trainer before it did,
    ``extra.mapping.teacher_id``)."""
    from xprobe.encoders.encoder_spec import EncoderSpec

    if isinstance(spec, str):  # a caller outside the package
        spec = EncoderSpec.parse(spec)
    return spec.record_fields() if isinstance(spec, EncoderSpec) else {}


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

"""What a record says about where its data came from.

(Where its encoder came from, ``mapped_from``/``teacher`` of a student made by ``xprobe map``, is
read once when its spec is parsed: :meth:`xprobe.encoders.encoder_spec.EncoderSpec.record_fields`.)

* :func:`partial_tasks`: the task files that ``extract`` could fill only partly
  (``manifest.json``: ``tasks.<file>.partial``);
* :func:`not_applicable_tasks`: the tasks that do not apply to the language, with the reason
  and its kind (``manifest.json``: ``tasks.<file>.applicable`` false).

Example::

    partial_tasks("probing/de")   # {"ObjNum"}: filled only partly
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["manifest_tasks", "not_applicable_tasks", "partial_tasks"]


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

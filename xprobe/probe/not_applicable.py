"""Records for the tasks that do not apply to a language: a reason, never a number.

``extract`` marks a task not applicable in ``manifest.json`` (the profile declares it, or the
corpus holds nothing for it) and writes no file for it. The probe then writes, per classifier,
one test-split record with ``not_applicable`` (the reason) and no ``value``
(:data:`xprobe.probe.records.NA_FIELDS`), so the report shows the cell as "n/a (reason)" rather
than leaving the column out or printing a chance-level accuracy.

Example::

    {"encoder": "bov", "task": "Tense", "language": "zh", "classifier": "mlp", "split": "test",
     "not_applicable": "no morphological tense: UD Chinese-GSD has no Tense feature", ...}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xprobe import __version__
from xprobe.probe.provenance import not_applicable_tasks

__all__ = ["na_records", "split_na"]


def _asked(file: str, name: str, tasks: Sequence[str] | None) -> bool:
    return not tasks or any(t.lower() in (file.lower(), name.lower()) for t in tasks)


def split_na(
    data_dir: Any, tasks: Sequence[str] | None
) -> tuple[dict[str, tuple[str, str]], list[str] | None]:
    """The n/a tasks asked for (``{file: (name, reason)}``) and the task list left to load
    (None: all; an empty list: none)."""
    na = {f: v for f, v in not_applicable_tasks(data_dir).items() if _asked(f, v[0], tasks)}
    if not tasks:
        return na, None
    names = {x.lower() for f, (n, _) in na.items() for x in (f, n)}
    return na, [t for t in tasks if t.lower() not in names]


def na_records(
    na: dict[str, tuple[str, str]],
    classifiers: Sequence[str],
    baselines: Sequence[str],
    fields: dict[str, Any],
    encoder_id: Callable[[], str],
) -> list[dict[str, Any]]:
    """One test record per (n/a task, classifier). ``fields``: encoder (name), dataset,
    language, grid, max_train."""
    out = []
    for _, (name, reason) in sorted(na.items()):
        for clf in classifiers:
            base = clf in baselines
            out.append({
                "encoder": "baseline" if base else fields["encoder"],
                "encoder_id": "none" if base else encoder_id(),
                "dataset": fields["dataset"], "language": fields["language"], "task": name,
                "classifier": clf, "seed": 0, "split": "test", "metric": "accuracy",
                "dataset_hash": "n/a", "grid": fields["grid"] if not base else "none",
                "max_train": fields["max_train"], "version": __version__,
                "not_applicable": reason,
            })  # fmt: skip
    return out

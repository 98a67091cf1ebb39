"""The probing-task registry: one module per task, each exposing ``TASK: TaskSpec``.

Adding a task is one module here and one line in ``_MODULES``; tests parametrised over
:data:`TASKS` cover it for free.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from xprobe.errors import XProbeError
from xprobe.languages import LanguageProfile
from xprobe.tasks.base import Candidate, Context, CorpusStats, TaskSpec, Variant

__all__ = [
    "TASKS",
    "Candidate",
    "Context",
    "CorpusStats",
    "TaskSpec",
    "Variant",
    "get_task",
    "resolve_params",
]

# SentEval order.
_MODULES = (
    "sentence_length",
    "word_content",
    "tree_depth",
    "bigram_shift",
    "past_present",
    "subj_number",
    "obj_number",
    "odd_man_out",
    "coordination_inversion",
)


def _load() -> dict[str, TaskSpec]:
    out: dict[str, TaskSpec] = {}
    for mod in _MODULES:
        try:
            spec = importlib.import_module(f"xprobe.tasks.{mod}").TASK
        except ModuleNotFoundError as e:
            if e.name != f"xprobe.tasks.{mod}":
                raise
            continue  # not written yet
        out[spec.name] = spec
    return out


TASKS: dict[str, TaskSpec] = _load()


def get_task(name: str) -> TaskSpec:
    """A task by short name (``SentLen``) or file stem (``sentence_length``), case-insensitive."""
    for spec in TASKS.values():
        if name.lower() in (spec.name.lower(), spec.file.lower()):
            return spec
    valid = ", ".join(TASKS)
    raise XProbeError(f"unknown task {name!r}; valid tasks: {valid}")


def resolve_params(
    spec: TaskSpec, profile: LanguageProfile, overrides: dict[str, Any] | None = None
) -> Any:
    """The task's parameters: its defaults, then the profile's ``[tasks.<file>]``, then overrides.

    Unknown names and values of the wrong type are errors that list the valid parameters.
    """
    fields = {f.name: f for f in dataclasses.fields(spec.params)}
    values: dict[str, Any] = {}
    for origin, table in (
        (f"{profile.path or profile.code} [tasks.{spec.file}]", profile.tasks.get(spec.file, {})),
        ("command line", overrides or {}),
    ):
        for key, value in table.items():
            if key not in fields:
                valid = ", ".join(sorted(fields)) or "none"
                raise XProbeError(
                    f"{origin}: {spec.file} has no parameter {key!r}; valid parameters: {valid}"
                )
            values[key] = _coerce(origin, spec.file, key, value, fields[key])
    return spec.params(**values)


def _coerce(origin: str, task: str, key: str, value: Any, f: dataclasses.Field[Any]) -> Any:
    default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                return {"true": True, "false": False}[value.lower()]
            return bool(value)
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
        if isinstance(default, tuple):
            items = value.split(",") if isinstance(value, str) else list(value)
            kind = type(default[0]) if default else str
            return tuple(kind(v) for v in items)
        return str(value)
    except (ValueError, KeyError, TypeError):
        raise XProbeError(
            f"{origin}: {task}.{key} = {value!r} is not a valid {type(default).__name__} "
            f"(default {default!r})"
        ) from None

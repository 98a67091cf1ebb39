"""Why a task came out short: rarer tasks picked its sentences first (exclusivity).

With exclusivity on, tasks pick rarest first and a source sentence feeds one task only, so on a
small corpus a common task (SentLen) can be left short while rarer ones are full. Right after
the first resolution, when every pool still holds the candidates that other tasks took,
:func:`exclusivity_notes` records for each short task which rarer tasks took its candidates and
whether, without exclusivity, its pools would fill the sizes asked; :func:`note_text` says it in
one phrase for the log line and the manifest.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from xprobe.extract.select import SHARED, TaskResult, TaskRun, _available, _fill
from xprobe.extract.shrink import rebalance_keys

__all__ = ["ExclusivityNote", "annotate", "exclusivity_notes", "note_text", "partial_note"]


@dataclass(frozen=True)
class ExclusivityNote:
    """Candidates of a short task that rarer tasks took (at least, per task) and whether the
    task's candidates would fill it without exclusivity."""

    taken: dict[str, int]
    fills_alone: bool


def exclusivity_notes(results: list[TaskResult]) -> dict[int, ExclusivityNote]:
    """For every short task (by run index) that lost candidates to rarer tasks."""
    picked = {r.run.index: {p[6] for split in r.picked for p in split} for r in results}
    notes = {}
    for r in results:
        if not r.partial:
            continue
        own = {h for pool in r.run.pools.values() for _, h, _ in pool.heap}
        taken = {
            o.run.spec.name: n
            for o in sorted(results, key=lambda o: o.rank)
            if o.rank < r.rank and (n := len(own & picked[o.run.index]))
        }
        if taken:
            notes[r.run.index] = ExclusivityNote(taken, _fills_alone(r.run))
    return notes


def _fills_alone(run: TaskRun) -> bool:
    """Whether the task's pools, with nothing taken by other tasks, fill the sizes asked."""
    lost = run.lost
    try:
        pools, _ = _available(run, set(), set())
    finally:
        run.lost = lost
    if not _fill(run, pools, run.sizes, dry=True)[1]:
        return True
    if any(s != SHARED for s, _, _ in pools):
        pools = rebalance_keys(pools, run.sizes, SHARED)
        return not _fill(run, pools, run.sizes, dry=True)[1]
    return False


def note_text(note: ExclusivityNote) -> str:
    """``rarer tasks picked first took at least N of its candidates (A n, B m); --no-exclusive
    would fill it`` (or would give them back, when that would still not fill it)."""
    total = sum(note.taken.values())
    who = ", ".join(f"{name} {n}" for name, n in note.taken.items())
    then = (
        "--no-exclusive would fill it"
        if note.fills_alone
        else "--no-exclusive would give them back, though not enough to fill it"
    )
    return (
        f"rarer tasks picked first took at least {total} of its candidates ({who}): {then} "
        "(tasks then share source sentences)"
    )


def annotate(
    manifest: dict[str, Any], results: list[TaskResult], notes: dict[int, ExclusivityNote]
) -> None:
    """Add to each short task's manifest entry the rarer tasks that took its candidates
    (``taken_by_rarer_tasks``) and the note to ``shrunk.why``."""
    for res in results:
        note = notes.get(res.run.index) if res.partial else None
        if note is None:
            continue
        entry = manifest["tasks"][res.run.spec.file]
        entry["taken_by_rarer_tasks"] = note.taken
        if "shrunk" in entry:
            entry["shrunk"]["why"] += f"; {note_text(note)}"


def partial_note(res: TaskResult, notes: dict[int, ExclusivityNote]) -> tuple[int, str]:
    """The log level and the suffix of a task's "N lines" line: a warning that says why for a
    task starved by exclusivity."""
    note = notes.get(res.run.index) if res.partial else None
    if note is not None:
        return logging.WARNING, f" (partial: {note_text(note)})"
    return logging.INFO, " (partial)" if res.partial else ""

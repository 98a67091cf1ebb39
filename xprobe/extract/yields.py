"""How much a task gets from the text parsed, and how much more text a partial task needs.

For every task the manifest's ``yield`` says, per million parsed sentences (every sentence
read from the CoNLL-U input, of any length), how many candidates the task found
(``candidates_per_million``: sentences it could use, before balance, lexical splits and
exclusivity) and how many lines it wrote (``lines_per_million``). A task that stayed partial
gets ``more_sentences_needed``: at its rate of lines written, the parsed sentences still to add
to reach the sizes asked, ``ceil((asked - written) * parsed / written)``; None when it wrote
nothing (no rate to project from). The projection is linear: a larger corpus also moves the
frequency windows (``windows.py``) and the balance between classes, so read it as an order of
magnitude, not a promise.

Example (the figures of issue 19: 92,479 German sentences, CoordInv 104 of 12,000 lines)::

    >>> y = task_yield(12_000, 104, 151, 92_479)
    >>> y["more_sentences_needed"], projection_line("CoordInv", 12_000, 104, y)
    (10578175, 'CoordInv: 104 of 12,000; about 10.6 million more sentences needed')
"""

from __future__ import annotations

import math
from typing import Any

from xprobe.languages import na_text

__all__ = ["amount", "projection_line", "task_yield", "yield_lines"]


def task_yield(asked: int, written: int, candidates: int, parsed: int) -> dict[str, Any]:
    """The ``yield`` entry of one task (see the module docstring)."""

    def per_million(n: int) -> float | None:
        return round(n * 1e6 / parsed, 1) if parsed else None

    out: dict[str, Any] = {
        "parsed_sentences": parsed,
        "candidates_per_million": per_million(candidates),
        "lines_per_million": per_million(written),
    }
    if written < asked:
        need = math.ceil((asked - written) * parsed / written) if written else None
        out["more_sentences_needed"] = need
    return out


def amount(n: int) -> str:
    """``10578409`` -> ``10.6 million``; ``45123`` -> ``45,100`` (three significant digits)."""
    if n >= 1_000_000:
        return f"{n / 1e6:.1f} million"
    digits = max(0, len(str(n)) - 3)
    return f"{round(n, -digits):,}"


def projection_line(name: str, asked: int, written: int, entry: dict[str, Any]) -> str:
    """One summary line: ``CoordInv: 104 of 12,000; about 10.6 million more sentences needed``."""
    head = f"{name}: {written:,} of {asked:,}"
    if written >= asked:
        rate = entry.get("lines_per_million")
        return head + (f" ({rate:,.0f} lines per million parsed sentences)" if rate else "")
    need = entry.get("more_sentences_needed")
    if need is None:
        return head + "; nothing found: no rate to project from"
    return head + f"; about {amount(need)} more sentences needed"


def yield_lines(manifest: dict[str, Any], na: bool = True) -> list[str]:
    """The summary of a probing folder's manifest: one line per task, rarest first, then (with
    ``na``) the tasks that do not apply (``Tense: n/a (reason)``; they have no yield)."""
    tasks = manifest.get("tasks", {})
    order = manifest.get("task_order") or sorted(tasks)
    lines = []
    for file in order:
        e = tasks.get(file)
        if e is None or "yield" not in e:
            continue
        asked = sum(e.get("sizes", {}).values())
        written = e.get("sentences", {}).get("taken", 0)
        lines.append(projection_line(e.get("task", file), asked, written, e["yield"]))
    for file, e in sorted(tasks.items()) if na else ():
        if isinstance(e, dict) and e.get("applicable") is False:
            why = na_text(str(e.get("reason", "no reason given")), e.get("kind"))
            lines.append(f"{e.get('task', file)}: n/a ({why})")
    return lines

"""Selectivity tables (Hewitt & Liang 2019): task accuracy minus control-task accuracy.

For every table whose experiments were probed with ``--control``: per encoder and task,
``sel [lo, hi] (kind)`` in points, the interval a paired bootstrap over test items (the same
items on the task and its control). A high accuracy with a low selectivity means the probe could
have learnt the task by itself; compare selectivity, not accuracy, across languages.

Example::

    md = selectivity_markdown(table, Stats())
"""

from __future__ import annotations

from xprobe.report.compare import CHANCE_MARK, chance_mark
from xprobe.report.md import md_table
from xprobe.report.stats import Stats
from xprobe.report.tables import Table

__all__ = ["selectivity_markdown"]


def _cell(cell, stats: Stats) -> str:
    if len(cell) != 1:
        return ""
    s = stats.selectivity(cell[0])
    if s is None:
        return ""
    sel, lo, hi, kind = s
    ci = f" [{100 * lo:.1f}, {100 * hi:.1f}]" if lo == lo else ""
    ctl = 100 * (cell[0].mean - sel)
    return f"{100 * sel:.1f}{ci} (ctl {ctl:.1f}, {kind})"


def selectivity_markdown(t: Table, stats: Stats) -> str:
    """Markdown table of selectivity for the encoder rows of ``t``; empty without controls."""
    nb = len(t.rows) - len(t.encoder_rows)
    rows = [[label] + [(x := _cell(c, stats)) and x + chance_mark(t, c[0], task, stats)
                       for c, task in zip(cells, t.tasks, strict=True)]
            for label, cells in t.rows[nb:]]  # fmt: skip
    rows = [r for r in rows if any(r[1:])]
    return (
        "\nSelectivity = accuracy − control accuracy (points, 95% paired bootstrap interval; "
        "ctl: control accuracy; type: lexical-key control, shuffled: permuted labels; "
        f"{CHANCE_MARK}: the probe does not beat its majority baseline):\n\n"
        + md_table(["encoder", *t.tasks], rows)
        if rows
        else ""
    )

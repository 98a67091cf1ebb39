"""MDL tables (Voita & Titov 2020) for probes run with ``--classifier mdl-mlp`` / ``mdl-lr``.

Per encoder and task: the online codelength in kbits and the compression (uniform codelength /
online codelength; 1.0 = nothing learnable, higher = labels easier to extract), mean over seeds;
relative to the reference language, the difference of compressions. Codelengths depend on the
training-set size, so compare compression, not kbits, between languages of different sizes.

Example::

    md = mdl_markdown(table)
"""

from __future__ import annotations

import numpy as np

from xprobe.report.compare import CHANCE_MARK, chance_mark
from xprobe.report.md import md_table
from xprobe.report.stats import Stats
from xprobe.report.tables import Table

__all__ = ["mdl_markdown", "relative_mdl"]


def _code(cell) -> tuple[float, float] | None:
    if len(cell) != 1 or any("mdl" not in r for r in cell[0].records):
        return None
    recs = cell[0].records
    return (float(np.mean([r["mdl"]["codelength"] for r in recs])),
            float(np.mean([r["mdl"]["compression"] for r in recs])))  # fmt: skip


def _table(tasks: list[str], rows: list[tuple[str, list[str]]], intro: str) -> str:
    body = [[label, *cells] for label, cells in rows]
    return f"\n{intro}\n\n" + md_table(["encoder", *tasks], body) if rows else ""


def mdl_markdown(t: Table, stats: Stats) -> str:
    """Codelength (kbits) and compression per encoder and task, ``°`` where the probe does not
    beat its majority baseline; empty without MDL records."""
    nb = len(t.rows) - len(t.encoder_rows)
    rows = []
    for label, cells in t.rows[nb:]:
        codes = [_code(c) for c in cells]
        if any(codes):
            texts = [f"{c[0] / 1000:.1f} kbits ({c[1]:.2f}×)"
                     + chance_mark(t, cell[0], task, stats) if c else ""
                     for c, cell, task in zip(codes, cells, t.tasks, strict=True)]  # fmt: skip
            rows.append((label, texts))
    return _table(t.tasks, rows, "MDL online codelength (compression against the uniform code; "
                  f"{CHANCE_MARK}: the probe does not beat its majority baseline):")  # fmt: skip


def relative_mdl(t: Table, ref: Table, pairs, tasks: list[str]) -> str:
    """Compression of each pair, language minus reference; empty without MDL records."""
    rows = []
    for p in pairs:
        cells = []
        for task in tasks:
            a = _code(t.rows[p.row][1][t.tasks.index(task)])
            b = _code(ref.rows[p.ref_row][1][ref.tasks.index(task)])
            cells.append(f"{a[1] - b[1]:+.2f} ({a[1]:.2f} vs {b[1]:.2f})" if a and b else "")
        if any(cells):
            rows.append((p.label, cells))
    return _table(tasks, rows, f"MDL compression, {t.language} − {ref.language}:")

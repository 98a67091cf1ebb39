"""Significance in the report: differences from the reference language, separable ranks.

* :func:`relative_cells`: each paired cell of a language minus the reference language (unpaired
  test: different test sets), Holm-corrected over the figure's cells;
* :func:`separability`: per task, the encoders in order with ``>`` between adjacent ones whose
  difference is significant (paired test on the same test items), ``≈`` where it is not,
  Holm-corrected over the table.

Example::

    cells, text, m, n_sig = relative_cells(de_table, en_table, pairs, tasks, Stats())
"""

from __future__ import annotations

import itertools

from xprobe.report.stats import ALPHA, MIN_TEST, Z95, Stats, _p_from_z, holm
from xprobe.report.tables import Table

__all__ = ["relative_cells", "separability"]


def _single(t: Table, row: int, task: str):
    cell = t.rows[row][1][t.tasks.index(task)]
    return cell[0] if len(cell) == 1 else None


def relative_cells(t: Table, ref: Table, pairs, tasks: list[str], stats: Stats):
    """Per pair and task: (difference, significant) and its text ``+3.1 [1.2, 5.0]`` (``ns``
    when not significant after Holm; ``(e)`` when computed with the exact methods of few test
    items); also the number of comparisons and of significant ones."""
    raw = []
    for p in pairs:
        row = []
        for task in tasks:
            a, b = _single(t, p.row, task), _single(ref, p.ref_row, task)
            ok = a is not None and b is not None
            row.append((*stats.compare(a, b), stats.exact(a, b)) if ok else None)
        raw.append(row)
    flat = [c[3] for row in raw for c in row if c is not None]
    adj = iter(holm(flat))
    cells, text = [], []
    for row in raw:
        crow, trow = [], []
        for c in row:
            if c is None:
                crow.append((float("nan"), False))
                trow.append("")
                continue
            d, lo, hi, _, exact = c
            sig = next(adj) < ALPHA
            crow.append((d, sig))
            trow.append(f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
                        + ("(e)" if exact else "") + ("" if sig else " ns"))  # fmt: skip
        cells.append(crow)
        text.append(trow)
    n_sig = sum(1 for row in cells for d, s in row if s)
    return cells, text, len(flat), n_sig


def separability(t: Table, stats: Stats) -> str:
    """Markdown: per task, the encoders from best to worst, ``>`` where the adjacent difference
    is significant, ``≈`` where not; empty when a table has fewer than two encoders."""
    nb = len(t.rows) - len(t.encoder_rows)
    if len(t.encoder_rows) < 2:
        return ""
    chains, tests = [], []
    for task in t.tasks:
        exps = [(t.rows[i][0], _single(t, i, task)) for i in range(nb, len(t.rows))]
        exps = sorted([x for x in exps if x[1] is not None], key=lambda x: -x[1].mean)
        if len(exps) < 2:
            continue
        links = []
        for (_, a), (_, b) in itertools.pairwise(exps):
            tests.append(stats.compare(a, b)[3])
            links.append(len(tests) - 1)
        chains.append((task, exps, links))
    if not tests:
        return ""
    adj = holm(tests)
    rows = []
    for task, exps, links in chains:
        text = exps[0][0]
        for (label, _), k in zip(exps[1:], links, strict=True):
            text += (" > " if adj[k] < ALPHA else " ≈ ") + label
        rows.append(f"| {task} | {text} |")
    paired = all(
        stats.paired(a, b) for _, exps, _ in chains for (_, a), (_, b) in itertools.pairwise(exps)
    )
    kind = "paired tests on the same test items" if paired else "z-tests"
    return (
        f"\nRanks per task: `>` separable, `≈` not ({kind}; {len(tests)} comparisons of "
        f"adjacent encoders, Holm-corrected at α = {ALPHA}):\n\n| task | ranking |\n|---|---|\n"
        + "\n".join(rows)
        + "\n"
    )


def relative_selectivity(t: Table, ref: Table, pairs, tasks: list[str], stats: Stats) -> str:
    """Markdown: selectivity of each pair, language minus reference, with a 95% interval (the
    two bootstrap intervals combined as independent normals) and ``ns`` where the difference is
    not significant after Holm's correction over the table; a cell with fewer than
    :data:`MIN_TEST` test items on a side is marked too small to test. Empty without controls."""
    raw = [[_sel_diff(t, ref, p, task, stats) for task in tasks] for p in pairs]
    adj = iter(holm([c[2] for row in raw for c in row if c is not None and c[2] == c[2]]))
    rows, small = [], False
    for p, row in zip(pairs, raw, strict=True):
        cells = []
        for c in row:
            if c is None:
                cells.append("")
                continue
            d, half, pv, few = c
            ci = f" [{100 * (d - half):+.1f}, {100 * (d + half):+.1f}]" if half == half else ""
            mark = " (too few items to test)" if few else (
                (" ns" if next(adj) >= ALPHA else "") if pv == pv else "")  # fmt: skip
            small |= few
            cells.append(f"{100 * d:+.1f}{ci}{mark}")
        if any(cells):
            rows.append(f"| {p.label} | " + " | ".join(cells) + " |")
    if not rows:
        return ""
    m = sum(1 for row in raw for c in row if c is not None and c[2] == c[2])
    head = "| encoder | " + " | ".join(tasks) + " |\n|" + "---|" * (len(tasks) + 1)
    few = (f" Cells with fewer than {MIN_TEST} test items on a side are not tested."
           if small else "")  # fmt: skip
    return (
        f"\nSelectivity, {t.language} − {ref.language} (points; 95% intervals, each for its own "
        f"comparison; {m} comparisons, Holm-corrected at α = {ALPHA}: `ns` not significant).{few}"
        "\n\n" + head + "\n" + "\n".join(rows) + "\n"
    )


def _sel_diff(t: Table, ref: Table, p, task: str, stats: Stats):
    """(difference, half-width of its 95% interval, p, too few items) of one selectivity cell,
    or None; p is NaN without intervals or with too few items."""
    a, b = _single(t, p.row, task), _single(ref, p.ref_row, task)
    sa = stats.selectivity(a) if a is not None else None
    sb = stats.selectivity(b) if b is not None else None
    if a is None or b is None or sa is None or sb is None:
        return None
    d = sa[0] - sb[0]
    half = ((sa[2] - sa[1]) ** 2 + (sb[2] - sb[1]) ** 2) ** 0.5 / 2
    few = stats.exact(a, b)
    if few or half != half:
        return d, half, float("nan"), few
    pv = 1.0 if half == 0 and d == 0 else (0.0 if half == 0 else _p_from_z(d * Z95 / half))
    return d, half, pv, few

"""Significance in the report: differences from the reference language, separable ranks.

* :func:`relative_cells`: each paired cell of a language minus the reference language (unpaired
  test: different test sets), Holm-corrected over the figure's cells;
* :func:`chance_marks`: whether a side of a relative cell does not beat its language's majority
  baseline (rule: the lower end of the probe's 95% interval is not above the majority
  baseline's accuracy on the same test set); such a cell is marked ``°`` and never called
  significant: a difference from a probe that learned nothing is no evidence;
* :func:`separability`: per task, the encoders in order with ``>`` between adjacent ones whose
  difference is significant (paired test on the same test items), ``≈`` where it is not,
  Holm-corrected over the table.

Example::

    cells, text, m, n_sig = relative_cells(de_table, en_table, pairs, tasks, Stats())
"""

from __future__ import annotations

import itertools

from xprobe.report.md import md_table
from xprobe.report.stats import ALPHA, MIN_TEST, Z95, Stats, _p_from_z, holm
from xprobe.report.tables import Table

__all__ = [
    "CHANCE_MARK",
    "at_chance",
    "chance_marks",
    "chance_note",
    "chance_sentence",
    "relative_cells",
    "separability",
]

CHANCE_MARK = "°"
MAJORITY = "majority"


def _single(t: Table, row: int, task: str):
    cell = t.rows[row][1][t.tasks.index(task)]
    return cell[0] if len(cell) == 1 else None


def _majority(t: Table, task: str):
    """The majority baseline of ``t``'s language on ``task`` (a baseline row of the table), or
    None when none was recorded with the table's setting."""
    nb = len(t.rows) - len(t.encoder_rows)
    for label, cells in t.rows[:nb]:
        if label == MAJORITY and task in t.tasks:
            cell = cells[t.tasks.index(task)]
            return cell[0] if len(cell) == 1 else None
    return None


def at_chance(e, base, stats: Stats) -> bool | None:
    """True when ``e``'s 95% interval does not lie above ``base``'s accuracy; None unknown."""
    if e is None or base is None:
        return None
    return bool(stats.interval(e)[0] <= base.mean)


def chance_marks(t: Table, ref: Table, pairs, tasks: list[str], stats: Stats):
    """Per pair and task: True when either side does not beat its language's majority baseline
    (see the module's rule), False when both do (or the cell is empty), None when a side has no
    recorded baseline and the other beats its own (not checked)."""
    marks = []
    for p in pairs:
        row = []
        for task in tasks:
            ea, eb = _single(t, p.row, task), _single(ref, p.ref_row, task)
            if ea is None or eb is None:
                row.append(False)  # no cell
                continue
            a = at_chance(ea, _majority(t, task), stats)
            b = at_chance(eb, _majority(ref, task), stats)
            row.append(True if a or b else (None if a is None or b is None else False))
        marks.append(row)
    return marks


def chance_note(t: Table, ref: Table, pairs, tasks: list[str], stats: Stats) -> str:
    """The figure's note on cells marked ``°`` and on languages without a majority baseline."""
    marks = chance_marks(t, ref, pairs, tasks, stats)
    missing = [x.language for x in (t, ref) if any(_majority(x, task) is None for task in tasks)]
    return chance_sentence(sum(1 for row in marks for m in row if m),
                           sum(1 for row in marks for m in row if m is None), missing)  # fmt: skip


def chance_sentence(marked: int, unknown: int, missing: list[str]) -> str:
    """The note's text: ``marked`` cells at chance, ``unknown`` cells not checked (no majority
    baseline recorded for the languages ``missing``); empty when both are 0."""
    note = ""
    if marked:
        note += (f" {marked} cell{'s' if marked > 1 else ''} marked {CHANCE_MARK} (not counted "
                 "as significant): one side does not beat its language's majority baseline; not "
                 "evidence (the lower end of the probe's 95% interval is at or below the "
                 "baseline's accuracy).")  # fmt: skip
    if unknown:
        note += (f" {unknown} cell{'s' if unknown > 1 else ''} not checked against chance: no "
                 f"{' or '.join(missing) or 'single'} majority baseline recorded with this "
                 "setting (probe with `--classifier majority`).")  # fmt: skip
    return note


def relative_cells(t: Table, ref: Table, pairs, tasks: list[str], stats: Stats):
    """Per pair and task: (difference, significant) and its text ``+3.1 [1.2, 5.0]`` (``ns``
    when not significant after Holm; ``(e)`` when computed with the exact methods of few test
    items; `` ns °`` when a side does not beat its majority baseline: :func:`chance_marks`);
    also the number of comparisons and of significant ones."""
    marks = iter(m for row in chance_marks(t, ref, pairs, tasks, stats) for m in row)
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
            chance = next(marks)
            if c is None:
                crow.append((float("nan"), False))
                trow.append("")
                continue
            d, lo, hi, _, exact = c
            sig = next(adj) < ALPHA and not chance
            crow.append((d, sig))
            trow.append(f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
                        + (" (e)" if exact else "") + ("" if sig else " ns")
                        + (f" {CHANCE_MARK}" if chance else ""))  # fmt: skip
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
        rows.append([task, text])
    paired = all(
        stats.paired(a, b) for _, exps, _ in chains for (_, a), (_, b) in itertools.pairwise(exps)
    )
    kind = "paired tests on the same test items" if paired else "z-tests"
    return (
        f"\nRanks per task: `>` separable, `≈` not ({kind}; {len(tests)} comparisons of "
        f"adjacent encoders, Holm-corrected at α = {ALPHA}):\n\n"
        + md_table(["task", "ranking"], rows)
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
            rows.append([p.label, *cells])
    if not rows:
        return ""
    m = sum(1 for row in raw for c in row if c is not None and c[2] == c[2])
    few = (f" Cells with fewer than {MIN_TEST} test items on a side are not tested."
           if small else "")  # fmt: skip
    return (
        f"\nSelectivity, {t.language} − {ref.language} (points; 95% intervals, each for its own "
        f"comparison; {m} comparisons, Holm-corrected at α = {ALPHA}: `ns` not significant).{few}"
        "\n\n" + md_table(["encoder", *tasks], rows)
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

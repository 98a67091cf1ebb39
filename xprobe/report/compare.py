"""Significance in the report: differences from the reference language, separable ranks.

* :func:`differences`: a grid of differences of a language minus the reference language
  (unpaired test: different test sets), Holm-corrected over the grid, a cell where a side does
  not beat its language's majority baseline (:func:`at_chance`: the lower end of the probe's 95%
  interval is not above the majority baseline's accuracy on the same test set) marked ``°`` and
  never called significant: a difference from a probe that learned nothing is no evidence;
  :func:`relative_cells` builds it for a table's encoder pairs, the layer heatmaps for layers;
* :func:`separability`: per task, the encoders in order with ``>`` between adjacent ones whose
  difference is significant (paired test on the same test items), ``≈`` where it is not,
  Holm-corrected over the table.

Example::

    d = relative_cells(de_table, en_table, pairs, tasks, Stats())
    d.text, d.comparisons, d.significant
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from xprobe.report.md import md_table
from xprobe.report.stats import ALPHA, MIN_TEST, Z95, Stats, _p_from_z, holm
from xprobe.report.tables import Table

__all__ = [
    "CHANCE_MARK",
    "Differences",
    "at_chance",
    "chance_mark",
    "chance_note",
    "chance_sentence",
    "differences",
    "relative_cells",
    "separability",
]

CHANCE_MARK = "°"
MAJORITY = "majority"


def _single(t: Table, row: int, task: str):
    if task not in t.tasks:
        return None
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


@dataclass
class Differences:
    """A grid of differences, language minus reference (points), tested and Holm-corrected
    together: the one cell rule of every relative figure (encoders and layers)."""

    values: np.ndarray  # NaN where a side is missing
    ns: np.ndarray  # True where not significant after Holm, or a side at chance
    text: list[list[str]]  # "+3.1 [+1.2, +5.0]", " (e)" exact, " ns", " °" at chance
    comparisons: int
    significant: int
    marked: int  # cells with a side at chance
    unchecked: int  # cells with a side whose majority baseline is unknown


def differences(grid: list[list[tuple | None]], stats: Stats) -> Differences:
    """``grid[i][j]``: (a, b, a's majority baseline, b's) or None (no cell). Each difference is
    tested (:meth:`Stats.compare`: unpaired between languages, exact on few items), Holm's
    correction runs over the grid, and a cell with a side at chance is never significant."""
    shape = (len(grid), len(grid[0]) if grid else 0)
    values, ns = np.full(shape, np.nan), np.zeros(shape, dtype=bool)
    text = [[""] * shape[1] for _ in range(shape[0])]
    tests, marked, unchecked = [], 0, 0
    for i, row in enumerate(grid):
        for j, c in enumerate(row):
            if c is not None:
                ca, cb = at_chance(c[0], c[2], stats), at_chance(c[1], c[3], stats)
                chance = bool(ca or cb)
                marked += chance
                unchecked += not chance and (ca is None or cb is None)
                tests.append((i, j, *stats.compare(c[0], c[1]), stats.exact(c[0], c[1]), chance))
    for (i, j, d, lo, hi, _, exact, chance), p in zip(tests, holm([t[5] for t in tests]),
                                                      strict=True):  # fmt: skip
        sig = p < ALPHA and not chance
        values[i, j], ns[i, j] = 100 * d, not sig
        text[i][j] = (f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
                      + (" (e)" if exact else "") + ("" if sig else " ns")
                      + (f" {CHANCE_MARK}" if chance else ""))  # fmt: skip
    n_sig = int(np.sum(np.isfinite(values) & ~ns))
    return Differences(values, ns, text, len(tests), n_sig, marked, unchecked)


def relative_cells(t: Table, ref: Table, pairs, tasks: list[str], stats: Stats) -> Differences:
    """Per pair and task, ``t``'s row minus ``ref``'s (:func:`differences`)."""

    def sides(p, task: str) -> tuple | None:
        a, b = _single(t, p.row, task), _single(ref, p.ref_row, task)
        return None if a is None or b is None else (a, b, _majority(t, task), _majority(ref, task))

    return differences([[sides(p, task) for task in tasks] for p in pairs], stats)


def chance_mark(t: Table, e, task: str, stats: Stats) -> str:
    """`` °`` where ``e`` (a cell of ``t``) does not beat its majority baseline on ``task``
    (:func:`at_chance`), else ""."""
    return f" {CHANCE_MARK}" if e is not None and at_chance(e, _majority(t, task), stats) else ""


def chance_note(t: Table, ref: Table, tasks: list[str], d: Differences) -> str:
    """The figure's note on cells marked ``°`` and on languages without a majority baseline."""
    missing = [x.language for x in (t, ref) if any(_majority(x, task) is None for task in tasks)]
    return chance_sentence(d.marked, d.unchecked, missing)


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
        text = exps[0][0] + chance_mark(t, exps[0][1], task, stats)
        for (label, e), k in zip(exps[1:], links, strict=True):
            text += (" > " if adj[k] < ALPHA else " ≈ ") + label + chance_mark(t, e, task, stats)
        rows.append([task, text])
    paired = all(
        stats.paired(a, b) for _, exps, _ in chains for (_, a), (_, b) in itertools.pairwise(exps)
    )
    kind = "paired tests on the same test items" if paired else "z-tests"
    return (
        f"\nRanks per task: `>` separable, `≈` not ({kind}; {len(tests)} comparisons of "
        f"adjacent encoders, Holm-corrected at α = {ALPHA}; `{CHANCE_MARK}`: at chance):\n\n"
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

"""The answer: the relative figures (a language minus the reference language, per encoder
pair; X-Probe's Figure 4) and the sentence that opens the report with their counts.

:func:`relative_figures` draws each figure (grey where not significant after Holm or at chance:
:func:`~xprobe.report.compare.differences`), writes the table of differences under it, and
adds to the page one sentence per group of figures (:func:`answer_sentence`):
``de − en (sample, mlp): 1 of 18 differences significant (Holm, α = 0.05); 12 cells at chance.``
"""

from __future__ import annotations

from pathlib import Path

from xprobe.report.group import Experiment, setting_label
from xprobe.report.md import md_table
from xprobe.report.page import Page, file_stem, heading, multi_settings
from xprobe.report.stats import MIN_TEST
from xprobe.report.tables import Table, order_tasks

__all__ = ["SMALL_N_TEST", "answer_sentence", "no_answer", "relative_figures"]

SMALL_N_TEST = 1000  # heatmap cells with fewer test items show their n_test


def relative_figures(tables, out, reference, page: Page, stats, many: bool, na) -> list[Path]:
    """The relative figures (first on the page unless it covers many languages, whose grids
    open it) and the answer: per group of tables, how many differences are significant."""
    from xprobe.report.relative import left_out_note, pair_rows, reference_table

    multi = multi_settings(tables)
    written, found, sections = [], {}, []
    for t in tables:
        if t.language == reference or t.classifier == "baseline":
            continue
        head = heading(page, t, f" relative to {reference}")
        ref = reference_table(t, tables, reference)
        if ref is None:
            sections.append(head + f"No {reference} records with the same dataset, classifier "
                            "and setting: no relative figure.\n")  # fmt: skip
            continue
        pairs, unpaired = pair_rows(t, ref)
        note = f"Not paired: {'; '.join(unpaired)}.\n" if unpaired else ""
        if not pairs:
            sections.append(head + f"No encoder of {t.language} pairs with a {reference} "
                            f"encoder, so there is no relative figure. {note}")  # fmt: skip
            continue
        stem = file_stem("relative", t, multi, t.language)
        gone = frozenset(x for ds, lang, x in na.cells
                         if ds == t.dataset and lang in (t.language, reference))  # fmt: skip
        body, counts = _relative_figure(t, ref, pairs, out / f"{stem}.png", stats, na)
        key = (t.dataset, t.classifier, t.setting_key())
        found.setdefault(key, (t, []))[1].append((t.language, *counts))
        how = "; ".join(f"{p.label}: by {p.how}" for p in pairs)
        sections.append(head + f"![{t.language} relative to {reference}]({stem}.png)\n\n"
                        f"{body}\nPairs: {how}. {note}{left_out_note(t, ref, gone)}")  # fmt: skip
        written.append(out / f"{stem}.png")
    page.answer += [answer_sentence(page, t, reference, rows) for t, rows in found.values()]
    (page.tables if many else page.first).extend(sections)
    return written


def answer_sentence(page: Page, t: Table, reference: str, rows: list[tuple]) -> str:
    """``de − en (sample, mlp): 1 of 18 differences significant (Holm, α = 0.05); 11 cells at
    chance.``: the counts of the figures' tables, summed over the languages of one group."""
    sig, m, chance = (sum(r[i] for r in rows) for i in (2, 1, 3))
    who = rows[0][0] if len(rows) == 1 else f"{len(rows)} languages"
    sub = {k: t.setting.get(k) for k in page.varying if k in t.setting}
    what = ", ".join([t.dataset, t.classifier] + ([setting_label(sub)] if sub else []))
    within = "" if len(rows) == 1 else " within each language"
    return (
        f"{who} − {reference} ({what}): {sig} of {m} differences significant (Holm"
        f"{within}, α = 0.05); {chance} cell{'' if chance == 1 else 's'} at chance."
    )


def _relative_figure(t, ref, pairs, png, stats, na) -> tuple[str, tuple[int, int, int]]:
    """Draw the difference heatmap (grey where not significant, a task n/a on either side
    kept as n/a); return the Markdown table of differences with intervals and (comparisons,
    significant, at chance)."""
    from xprobe.report import plots
    from xprobe.report.compare import chance_note, relative_cells, relative_selectivity
    from xprobe.report.mdl_md import relative_mdl

    common = [x for x in t.tasks if x in ref.tasks]
    marks = {x: na.mark(t.dataset, t.language, x) or na.mark(t.dataset, ref.language, x)
             for x in order_tasks({x for ds, _, x in na.cells if ds == t.dataset})}  # fmt: skip
    tasks = order_tasks(set(common) | {x for x, mark in marks.items() if mark})
    d = relative_cells(t, ref, pairs, tasks, stats)
    m, n_sig = d.comparisons, d.significant
    text = [[c or marks.get(x) or "" for c, x in zip(row, tasks, strict=True)] for row in d.text]
    sub = [[_small_n(t.rows[p.row][1][t.tasks.index(x)]) if x in t.tasks else "" for x in tasks]
           for p in pairs]  # fmt: skip
    empty = [["n/a" if marks.get(x) else "–" for x in tasks] for _ in pairs]
    legend = plots.GREY + ("\nn/a: the task does not apply (reasons: Tasks that do not apply)."
                           if any(marks.get(x) for x in tasks) else "")  # fmt: skip
    plots.heatmap(d.values, [p.label for p in pairs], tasks, png,
                  f"{t.language} − {ref.language} accuracy (points), {t.classifier}",
                  diverging=True, sub=sub, muted=d.ns, empty=empty, legend=legend)  # fmt: skip
    md = md_table(["encoder", *tasks], [[p.label, *r] for p, r in zip(pairs, text, strict=True)])
    sel = relative_selectivity(t, ref, pairs, common, stats) + relative_mdl(t, ref, pairs, common)
    exact = any("(e)" in c for row in text for c in row)
    chance = chance_note(t, ref, common, d)
    return (f"{md}\nDifferences in points with 95% intervals, each for its own comparison (not "
            f"adjusted for the {m} comparisons: an interval may exclude 0 in a cell marked `ns`); "
            f"{m} comparisons, Holm-corrected at α = 0.05: {n_sig} significant (`ns` and "
            "grey cells are not)." + chance + (f" `(e)`: fewer than {MIN_TEST} test items "
            "on a side: Newcombe's score interval and Fisher's exact test on the hit counts "
            "instead of the normal approximation." if exact else "") + "\n" + sel,
            (m, n_sig, d.marked))  # fmt: skip


def _small_n(cell: list[Experiment]) -> str:
    if len(cell) != 1:
        return ""
    n = int(cell[0].get("n_test", 0))
    return f"n={n}" if 0 < n < SMALL_N_TEST else ""


def no_answer(tables: list[Table], reference: str) -> str:
    langs = sorted({t.language for t in tables})
    if langs == [reference] or len(langs) == 1:
        return f"One language ({langs[0]}): no comparison with a reference language."
    return f"No encoder pairs with a {reference} encoder: no comparison (see below)."

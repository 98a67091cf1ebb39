"""Languages as rows: one heatmap of test accuracy per (dataset, classifier, encoder) that covers
three languages or more, tasks as columns (``languages_<dataset>_<classifier>_<encoder>.{png,md}``).

This is the view of a study over every language of a release (``studies/ud.toml``) and the
figure its report opens with: each row a language, each column a task, none dropped: a task
that does not apply to a language is written ``n/a`` (in the table with the footnote mark of its
reason, :mod:`xprobe.report.na`), a language whose every task is n/a keeps its row, and a cell
without a result says ``–``. Layer-wise records have their own figures
(:mod:`xprobe.report.layers`) and are left out here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from xprobe.files import atomic_write as open_atomic
from xprobe.report.group import Experiment
from xprobe.report.md import md_table, slug
from xprobe.report.tables import order_tasks

__all__ = ["MIN_LANGUAGES", "write_language_heatmaps"]

MIN_LANGUAGES = 3  # fewer: the per-language tables and relative figures say it better
LEGEND = (
    "Grey, °: at chance (the 95% interval reaches the majority baseline): not a finding.\n"
    "n/a: the task does not apply (reasons: Tasks that do not apply); –: no result."
)


def _groups(exps: list[Experiment]) -> dict[tuple[str, str, str], list[Experiment]]:
    out: dict[tuple[str, str, str], list[Experiment]] = {}
    for e in exps:
        if e.get("layer") is not None or e.get("split", "test") != "test":
            continue
        key = (str(e.get("dataset")), str(e.get("classifier")), str(e.get("encoder")))
        out.setdefault(key, []).append(e)
    return out


def _where(e: Experiment | None) -> tuple:
    return () if e is None else tuple(e.get(k) for k in ("dataset", "language", "task"))


def write_language_heatmaps(
    exps: list[Experiment], out: Path, sections: list[str], na=None, stats=None
) -> list[Path]:
    """Draw the languages x tasks heatmaps of ``exps`` (encoders first, then baselines); add
    their sections; return the files. ``na``: :class:`~xprobe.report.na.NotApplicables`."""
    from xprobe.report import plots
    from xprobe.report.compare import at_chance
    from xprobe.report.stats import Stats

    cells_na = na.cells if na is not None else {}
    stats = stats or Stats()
    bases = {_where(e): e for e in exps if e.get("classifier") == "majority"
             and e.get("split", "test") == "test" and e.get("layer") is None}  # fmt: skip
    written: list[Path] = []
    groups = sorted(_groups(exps).items(), key=lambda kv: (kv[0][2] == "baseline", kv[0]))
    for (ds, cls, enc), group in groups:
        gone = {(lang, task) for d, lang, task in cells_na if d == ds}
        langs = sorted({str(e.get("language")) for e in group} | {x for x, _ in gone})
        if len({str(e.get("language")) for e in group}) < MIN_LANGUAGES:
            continue
        tasks = order_tasks({str(e.get("task")) for e in group} | {t for _, t in gone})
        cells: dict[tuple[str, str], list[Experiment]] = {}
        for e in group:
            cells.setdefault((str(e.get("language")), str(e.get("task"))), []).append(e)
        one = [[c[0] if len(c := cells.get((lang, t), [])) == 1 else None for t in tasks]
               for lang in langs]  # fmt: skip
        m = np.array([[np.nan if e is None else 100 * e.mean for e in row] for row in one])
        low = np.array([[cls != "majority" and at_chance(e, bases.get(_where(e)), stats) is True
                         for e in row] for row in one])  # fmt: skip
        empty = [["n/a" if (lang, t) in gone else "–" for t in tasks] for lang in langs]
        stem = slug(f"languages_{ds}_{cls}_{enc}")
        title = f"{enc} ({ds}, {cls}): test accuracy (%) by language"
        plots.heatmap(m, langs, tasks, out / f"{stem}.png", title, fmt="{:.1f}", empty=empty,
                      muted=low, legend=LEGEND)  # fmt: skip
        text = [[na.mark(ds, lang, t) if (lang, t) in gone else "–" for t in tasks]
                for lang in langs] if na is not None else empty  # fmt: skip
        rows = [[lang] + [t if np.isnan(v) else f"{v:.1f}" + (" °" if c else "")
                          for v, t, c in zip(row, tx, lows, strict=True)]
                for lang, row, tx, lows in zip(langs, m, text, low, strict=True)]  # fmt: skip
        md = md_table(["language", *tasks], rows)
        with open_atomic(out / f"{stem}.md") as f:
            f.write(md)
        sections.append(f"## {title}\n\n![{enc} by language]({stem}.png)\n\n{md}\n{LEGEND}\n")
        written += [out / f"{stem}.png", out / f"{stem}.md"]
    return written

"""Languages as rows: one heatmap of test accuracy per (dataset, classifier, encoder) that covers
three languages or more, tasks as columns (``languages_<dataset>_<classifier>_<encoder>.{png,md}``).

This is the view of a study over every language of a release (``studies/ud.toml``): each row a
language, an empty cell where the task is n/a for it (the report's "Tasks that do not apply" and
``coverage.md`` say why). Layer-wise records have their own figures
(:mod:`xprobe.report.layers`) and are left out here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from xprobe.files import atomic_write
from xprobe.report.group import Experiment
from xprobe.report.tables import order_tasks

__all__ = ["MIN_LANGUAGES", "write_language_heatmaps"]

MIN_LANGUAGES = 3  # fewer: the per-language tables and relative figures say it better


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-." else "_" for ch in text)


def _groups(exps: list[Experiment]) -> dict[tuple[str, str, str], list[Experiment]]:
    out: dict[tuple[str, str, str], list[Experiment]] = {}
    for e in exps:
        if e.get("layer") is not None or e.get("split", "test") != "test":
            continue
        key = (str(e.get("dataset")), str(e.get("classifier")), str(e.get("encoder")))
        out.setdefault(key, []).append(e)
    return out


def write_language_heatmaps(exps: list[Experiment], out: Path, sections: list[str]) -> list[Path]:
    """Draw the languages x tasks heatmaps of ``exps``; add their sections; return the files."""
    from xprobe.report import plots

    written: list[Path] = []
    for (ds, cls, enc), group in sorted(_groups(exps).items()):
        langs = sorted({str(e.get("language")) for e in group})
        if len(langs) < MIN_LANGUAGES:
            continue
        tasks = order_tasks({str(e.get("task")) for e in group})
        cells: dict[tuple[str, str], list[float]] = {}
        for e in group:
            cells.setdefault((str(e.get("language")), str(e.get("task"))), []).append(e.mean)
        m = np.array([[100 * cells[(lang, t)][0] if len(cells.get((lang, t), [])) == 1
                       else np.nan for t in tasks] for lang in langs])  # fmt: skip
        stem = _slug(f"languages_{ds}_{cls}_{enc}")
        title = f"{ds} / {cls} / {enc}: test accuracy (%) by language"
        plots.heatmap(m, langs, tasks, out / f"{stem}.png", title, fmt="{:.1f}")
        rows = [[lang] + ["" if np.isnan(v) else f"{v:.1f}" for v in row]
                for lang, row in zip(langs, m, strict=True)]  # fmt: skip
        md = "| language | " + " | ".join(tasks) + " |\n|---|" + "---|" * len(tasks) + "\n"
        md += "".join("| " + " | ".join(r) + " |\n" for r in rows)
        with atomic_write(out / f"{stem}.md") as f:
            f.write(md)
        sections.append(f"## {title}\n\n![{enc} by language]({stem}.png)\n\n{md}\nAn empty "
                        "cell: the task is n/a for that language (or several experiments share "
                        "the cell: see the tables above).\n")  # fmt: skip
        written += [out / f"{stem}.png", out / f"{stem}.md"]
    return written

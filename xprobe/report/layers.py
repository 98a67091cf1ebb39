"""Layer-wise results (records with a ``layer`` field): curves, heatmaps and best layers.

For each (dataset, classifier, encoder) whose records carry layers, :func:`write_layer_report`
writes:

* ``layers_<dataset>_<classifier>_<encoder>.png``: per task, test accuracy against layer, one
  line per language (mean over seeds), shaded by its 95% interval (:mod:`.layer_stats`);
* ``layers_<...>_<lang>.{md,csv}``: the numbers behind the curves, rows tasks, columns layers,
  and an ``n_test`` row;
* ``layers_relative_<...>_<lang>.{png,md,csv}``: a layer x task heatmap of the language minus
  the reference language (points), for every other language; cells not significant after Holm
  are grey and marked ``ns`` in the table (differences with 95% intervals), the task labels
  and the table's last row give n_test (language/reference);
* ``layers_best_<...>.{md,csv}``: the best layer per task and language (ties: the lowest layer),
  with its accuracy, 95% interval (:class:`~xprobe.report.stats.Stats`: exact below
  ``MIN_TEST`` items, marked ``(e)``) and number of test items: ``L2: 80.0 [28.4, 99.5](e), n=5``.

Example::

    paths = write_layer_report(records, Path("report"), reference="en", sections=[])
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.report.md import write_table
from xprobe.report.tables import order_tasks

__all__ = ["best_layers", "layer_cells", "write_layer_report"]


LayerCells = dict[tuple[str, str, str, str, str, int], float]


def layer_cells(records: Iterable[dict[str, Any]]) -> LayerCells:
    """(dataset, classifier, encoder, language, task, layer) -> mean test accuracy over seeds."""
    vals: dict[tuple, list[float]] = defaultdict(list)
    for r in records:
        if r.get("layer") is None or r["split"] != "test" or r["metric"] != "accuracy":
            continue
        key = (r["dataset"], r["classifier"], r["encoder"], r["language"], r["task"], r["layer"])
        vals[key].append(float(r["value"]))
    return {k: float(np.mean(v)) for k, v in vals.items()}


def best_layers(
    cells: LayerCells, group: tuple[str, str, str]
) -> dict[tuple[str, str], tuple[int, float]]:
    """(language, task) -> (best layer, its accuracy) within one (dataset, classifier, encoder)."""
    best: dict[tuple[str, str], tuple[int, float]] = {}
    for (d, c, e, lang, task, layer), acc in sorted(cells.items()):
        if (d, c, e) != group:
            continue
        cur = best.get((lang, task))
        if cur is None or acc > cur[1] or (acc == cur[1] and layer < cur[0]):
            best[(lang, task)] = (layer, acc)
    return best


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")


def write_layer_report(
    records: Iterable[dict[str, Any]], out: Path, reference: str, sections: list[str]
) -> list[Path]:
    """Write the layer figures and tables (see the module docstring); append Markdown sections."""
    from xprobe.report.layer_stats import layer_experiments, majority_baselines
    from xprobe.report.stats import Stats

    records = list(records)
    cells = layer_cells(records)
    exps = layer_experiments(records)
    stats = Stats()
    bases = majority_baselines(records)
    written: list[Path] = []
    for group in sorted({k[:3] for k in cells}):
        written += _group(cells, group, out, reference, sections, stats, exps, bases)
    return written


def _best(exps: dict, stats, key: tuple, best: tuple[int, float] | None) -> str:
    """The best layer's cell: accuracy, 95% interval and n_test (one experiment), else the
    accuracy and the n of each experiment."""
    if best is None:
        return ""
    layer, acc = best
    found = exps.get((*key, layer), [])
    if len(found) != 1:
        ns = "/".join(sorted({str(e.get("n_test")) for e in found}))
        return f"L{layer}: {100 * acc:.1f}, n={ns}"
    e = found[0]
    return f"L{layer}: {100 * e.mean:.1f}{stats.interval_text(e)}, n={e.get('n_test')}"


def _group(
    cells: LayerCells,
    group: tuple[str, str, str],
    out: Path,
    ref: str,
    sections: list[str],
    stats,
    exps: dict,
    bases: dict | None = None,
) -> list[Path]:
    from xprobe.report.layer_stats import curve_bands

    sub = {k[3:]: v for k, v in cells.items() if k[:3] == group}
    langs = sorted({k[0] for k in sub}, key=lambda x: (x != ref, x))
    tasks = order_tasks({k[1] for k in sub})
    layers = sorted({k[2] for k in sub})
    name = "_".join(group)
    stem = _slug(f"layers_{name}")
    curves = {
        lang: np.array([[sub.get((lang, t, x), np.nan) * 100 for x in layers] for t in tasks])
        for lang in langs
    }
    title = f"{group[2]} ({group[0]}, {group[1]}): accuracy by layer"
    bands = curve_bands(exps, group, langs, tasks, layers, stats)
    written = [layer_curves(curves, tasks, layers, out / f"{stem}.png", title, bands)]
    sections.append(f"## {group[2]} ({group[0]} / {group[1]}): accuracy (%) by layer\n")
    sections.append(
        f"![accuracy by layer]({stem}.png)\n\nShaded: the 95% interval of each point (test "
        "items resampled, seeds combined); n_test in each table.\n"
    )
    for lang in langs:
        rows = [[t] + [_pct(v) for v in curves[lang][i]] for i, t in enumerate(tasks)]
        ns = [_n(exps, (*group, lang), tasks, x) for x in layers]
        label = "n_test" if all("/" not in n for n in ns) else f"n_test ({'/'.join(tasks)})"
        rows.append([label, *ns])
        md = write_table(out, _slug(f"{stem}_{lang}"), ["task"] + [f"L{x}" for x in layers], rows)
        sections.append(f"### {lang}\n\n{md}")
        written += [out / f"{_slug(f'{stem}_{lang}')}.{s}" for s in ("md", "csv")]
        if lang != ref and ref in curves:
            written += _relative(exps, group, lang, ref, tasks, layers, out, sections, bases, stats)
    best = best_layers(cells, group)
    rows = [[t] + [_best(exps, stats, (*group, lang, t), best.get((lang, t))) for lang in langs]
            for t in tasks]  # fmt: skip
    md = write_table(out, _slug(f"layers_best_{name}"), ["task", *langs], rows)
    sections.append("### Best layer per task and language (accuracy %, 95% interval, test "
                    f"items)\n\n{md}")  # fmt: skip
    written += [out / f"{_slug(f'layers_best_{name}')}.{s}" for s in ("md", "csv")]
    return written


def _relative(exps, group, lang, ref, tasks, layers, out, sections, bases, stats) -> list[Path]:
    """The layer x task heatmap of ``lang`` minus ``ref``: grey where not significant, n on
    the task labels; its Markdown table of differences with intervals, ``ns`` and ``°`` marks."""
    from xprobe.report import plots
    from xprobe.report.compare import chance_sentence
    from xprobe.report.layer_stats import relative_layer_cells

    name = "_".join(group)
    d = relative_layer_cells(exps, group, lang, ref, tasks, layers, stats, bases)
    stem = _slug(f"layers_relative_{name}_{lang}")
    cols = [f"{t}\nn={n}" if n else t for t, n in zip(tasks, d.n_test, strict=True)]
    title = f"{lang} − {ref} by layer (points), {group[2]}"
    plots.heatmap(d.values, [f"L{x}" for x in layers], cols, out / f"{stem}.png", title,
                  diverging=True, muted=d.ns, legend=plots.GREY)  # fmt: skip
    rows = [[f"L{x}", *d.text[i]] for i, x in enumerate(layers)]
    rows.append([f"n_test ({lang}/{ref})", *d.n_test])
    md = write_table(out, stem, ["layer", *tasks], rows)
    base = bases or {}
    missing = [x for x in (lang, ref) if any(base.get((group[0], x, t)) is None for t in tasks)]
    sections.append(
        f"![{lang} - {ref} by layer]({stem}.png)\n\n{md}\nDifferences in points with 95% "
        f"intervals; {d.comparisons} comparisons, Holm-corrected at α = 0.05: {d.significant} "
        "significant (`ns` and grey cells are not)."
        + chance_sentence(d.marked, d.unchecked, missing)
        + "\n"
    )
    return [out / f"{stem}.{s}" for s in ("png", "md", "csv")]


def _n(exps: dict, prefix: tuple, tasks: list[str], layer: int) -> str:
    """The n_test of one layer's column: one number when every task has it, else one per task
    in row order, ``/``-separated (``-`` for a task without a single experiment)."""
    per_task = []
    for t in tasks:
        found = {str(e.get("n_test")) for e in exps.get((*prefix, t, layer), [])}
        per_task.append(found.pop() if len(found) == 1 else "-")
    return per_task[0] if len(set(per_task)) == 1 else "/".join(per_task)


def _pct(v: float) -> str:
    return "" if not np.isfinite(v) else f"{v:.1f}"


def layer_curves(
    curves: dict[str, np.ndarray],
    tasks: list[str],
    layers: list[int],
    path: Path,
    title: str,
    bands: dict[str, np.ndarray] | None = None,
) -> Path:
    """One panel per task: accuracy (%) against layer, one line per language, shaded by its
    interval where ``bands`` (language -> (tasks, layers, 2) low/high in %) gives one."""
    from xprobe.report.plots import _plt, _save, label

    plt = _plt()
    cols = min(3, len(tasks))
    rows = -(-len(tasks) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False)
    for i, task in enumerate(tasks):
        ax = axes[i // cols][i % cols]
        for lang, m in curves.items():
            (line,) = ax.plot(layers, m[i], marker="o", markersize=3, label=label(lang))
            if bands is not None and lang in bands:
                lo, hi = bands[lang][i, :, 0], bands[lang][i, :, 1]
                ax.fill_between(layers, lo, hi, color=line.get_color(), alpha=0.18, linewidth=0)
        ax.set_title(label(task))
        ax.set_xticks(layers)
        ax.set_xlabel("layer")
        ax.set_ylabel("accuracy (%)")
        ax.grid(alpha=0.3)
    for j in range(len(tasks), rows * cols):
        axes[j // cols][j % cols].axis("off")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(label(title))
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
    return path

"""Uncertainty for the layer-wise figures: intervals on the curves, tests on the heatmaps.

* :func:`layer_experiments`: (dataset, classifier, encoder, language, task, layer) -> the
  experiment (seeds combined) behind one point of a curve;
* :func:`curve_bands`: per language, the 95% interval (%) of every point, drawn as a band
  around the curve (a peak measured on 5 test items then shows as the guess it is);
* :func:`relative_layer_cells`: a layer x task heatmap of a language minus the reference
  language with an unpaired test per cell (different test sets), Holm-corrected over the
  heatmap's cells, as the encoder heatmaps are (:func:`xprobe.report.compare.relative_cells`):
  values, ``ns`` marks, the Markdown text ``+3.1 [1.2, 5.0] ns`` and the n_test of each side;
  a cell where either side does not beat its language's majority baseline
  (:func:`majority_baselines`; the rule of :func:`xprobe.report.compare.at_chance`) is marked
  ``°`` and not significant.

Example::

    exps = layer_experiments(records)
    bands = curve_bands(exps, ("xprobe", "lr", "hf-bert"), ["en", "de"], tasks, layers)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from xprobe.report.group import Experiment, group_experiments
from xprobe.report.stats import ALPHA, Stats, holm

__all__ = ["LayerDiff", "curve_bands", "layer_experiments", "majority_baselines",
           "relative_layer_cells"]  # fmt: skip

LayerKey = tuple[str, str, str, str, str, int]


def layer_experiments(records: Iterable[dict[str, Any]]) -> dict[LayerKey, list[Experiment]]:
    """Experiments of test accuracy records with a layer, by (dataset, classifier, encoder,
    language, task, layer); a key with two experiments holds runs on different data."""
    recs = [r for r in records if r.get("layer") is not None and r["split"] == "test"
            and r["metric"] == "accuracy"]  # fmt: skip
    out: dict[LayerKey, list[Experiment]] = defaultdict(list)
    for e in group_experiments(recs):
        key = tuple(e.get(k) for k in ("dataset", "classifier", "encoder", "language", "task"))
        out[(*key, int(e.get("layer")))].append(e)  # type: ignore[arg-type]
    return dict(out)


def majority_baselines(records: Iterable[dict[str, Any]]) -> dict[tuple, Experiment | None]:
    """(dataset, language, task) -> the majority baseline's test experiment; None where the
    records hold several (different settings: which one applies is not known)."""
    recs = [r for r in records if r.get("classifier") == "majority" and r.get("split") == "test"
            and r.get("metric") == "accuracy" and "value" in r]  # fmt: skip
    out: dict[tuple, Experiment | None] = {}
    for e in group_experiments(recs):
        key = (e.get("dataset"), e.get("language"), e.get("task"))
        out[key] = None if key in out else e
    return out


def _one(exps: dict[LayerKey, list[Experiment]], key: LayerKey) -> Experiment | None:
    found = exps.get(key, [])
    return found[0] if len(found) == 1 else None


def curve_bands(
    exps: dict[LayerKey, list[Experiment]],
    group: tuple[str, str, str],
    langs: list[str],
    tasks: list[str],
    layers: list[int],
    stats: Stats | None = None,
) -> dict[str, np.ndarray]:
    """language -> array (tasks, layers, 2): the interval's low and high ends in %, NaN where a
    point has no single experiment."""
    stats = stats or Stats()
    out = {}
    for lang in langs:
        band = np.full((len(tasks), len(layers), 2), np.nan)
        for i, task in enumerate(tasks):
            for j, layer in enumerate(layers):
                e = _one(exps, (*group, lang, task, layer))
                if e is not None:
                    lo, hi, _ = stats.interval(e)
                    band[i, j] = (100 * lo, 100 * hi)
        out[lang] = band
    return out


@dataclass
class LayerDiff:
    """A layer x task heatmap of differences (points) with its significance and sizes."""

    values: np.ndarray  # (layers, tasks), NaN where either side is missing
    ns: np.ndarray  # True where the difference is not significant after Holm
    text: list[list[str]]  # "+3.1 [1.2, 5.0]" with " ns" where not significant
    n_test: list[str]  # per task: "n_lang/n_ref" ("" when it varies across layers)
    comparisons: int
    significant: int
    marked: int = 0  # cells marked ° (a side at or below its majority baseline)
    unchecked: int = 0  # cells without a majority baseline on a side


def relative_layer_cells(
    exps: dict[LayerKey, list[Experiment]],
    group: tuple[str, str, str],
    lang: str,
    ref: str,
    tasks: list[str],
    layers: list[int],
    stats: Stats | None = None,
    baselines: dict[tuple, Experiment | None] | None = None,
) -> LayerDiff:
    """``lang`` minus ``ref`` per (layer, task), tested and Holm-corrected over the heatmap;
    with ``baselines`` (:func:`majority_baselines`), cells at chance are marked ``°``."""
    from xprobe.report.compare import CHANCE_MARK, at_chance

    stats = stats or Stats()
    raw = [[None] * len(tasks) for _ in layers]
    chance = [[False] * len(tasks) for _ in layers]
    unchecked = 0
    sizes: dict[str, set[str]] = defaultdict(set)
    for i, layer in enumerate(layers):
        for j, task in enumerate(tasks):
            a = _one(exps, (*group, lang, task, layer))
            b = _one(exps, (*group, ref, task, layer))
            if a is not None and b is not None:
                raw[i][j] = stats.compare(a, b)
                sizes[task].add(f"{a.get('n_test')}/{b.get('n_test')}")
                base = baselines or {}
                ca = at_chance(a, base.get((group[0], lang, task)), stats)
                cb = at_chance(b, base.get((group[0], ref, task)), stats)
                chance[i][j] = bool(ca or cb)
                unchecked += not chance[i][j] and (ca is None or cb is None)
    flat = [c[3] for row in raw for c in row if c is not None]
    adj = iter(holm(flat))
    values = np.full((len(layers), len(tasks)), np.nan)
    ns = np.zeros((len(layers), len(tasks)), dtype=bool)
    text = [[""] * len(tasks) for _ in layers]
    for i, row in enumerate(raw):
        for j, c in enumerate(row):
            if c is None:
                continue
            d, lo, hi, _ = c
            sig = next(adj) < ALPHA and not chance[i][j]
            values[i, j], ns[i, j] = 100 * d, not sig
            mark = ("" if sig else " ns") + (f" {CHANCE_MARK}" if chance[i][j] else "")
            text[i][j] = f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]{mark}"
    n_test = [next(iter(sizes[t])) if len(sizes[t]) == 1 else "" for t in tasks]
    n_sig = int(np.sum(np.isfinite(values) & ~ns))
    marked = sum(map(sum, chance))
    return LayerDiff(values, ns, text, n_test, len(flat), n_sig, marked, unchecked)

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
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xprobe.report.compare import Differences, differences
from xprobe.report.group import Experiment, group_experiments
from xprobe.report.stats import Stats

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
class LayerDiff(Differences):
    """A layer x task :class:`~xprobe.report.compare.Differences` with each task's sizes."""

    n_test: list[str] = field(default_factory=list)  # per task "n_lang/n_ref" ("" if it varies)


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
    """``lang`` minus ``ref`` per (layer, task), tested and Holm-corrected over the heatmap
    (:func:`~xprobe.report.compare.differences`); with ``baselines``
    (:func:`majority_baselines`), cells at chance are marked ``°``."""
    base = baselines or {}
    sizes: dict[str, set[str]] = defaultdict(set)

    def sides(layer: int, task: str) -> tuple | None:
        a = _one(exps, (*group, lang, task, layer))
        b = _one(exps, (*group, ref, task, layer))
        if a is None or b is None:
            return None
        sizes[task].add(f"{a.get('n_test')}/{b.get('n_test')}")
        return a, b, base.get((group[0], lang, task)), base.get((group[0], ref, task))

    d = differences([[sides(x, t) for t in tasks] for x in layers], stats or Stats())
    n_test = [next(iter(sizes[t])) if len(sizes[t]) == 1 else "" for t in tasks]
    return LayerDiff(**vars(d), n_test=n_test)

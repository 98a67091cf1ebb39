"""A leaderboard: the results of many encoders and studies -> one self-contained static page
(``xprobe leaderboard``).

Reads xprobe result records (``*.jsonl``, or a folder searched for them) and mteb results
(``results/<model>/<revision>/<task>.json``, as ``mteb.evaluate`` and ``xprobe export
results`` write them). A **model** is an encoder at one layer with one classifier (``minilm L3
(lr)``, ``bov``, the ``majority`` and ``length`` baselines); its **kind** is ``baseline``,
``bag of vectors``, ``transformer``, ``encoder`` (any other) or ``mteb``. A **cell** is a
language and task: the test accuracy (seeds combined) with its 95 % interval (xprobe's, from
the record's items; mteb results have no items: no interval), or n/a with its kind and reason.

Ranks and their stability: every cell's scored items are resampled (``resamples`` bootstrap
draws, the same draw for every model scored on those items, as every model of a ``cv:K`` study
is); the page ranks the models on the cells it shows (their mean accuracy over the cells every
shown model has) and gives, per model, how often that rank holds over the draws. The page
(:mod:`xprobe.export.leaderboard_page`) sorts by any column, filters by language, task, layer
and model kind, and works offline from the file.

Example::

    write_leaderboard(["ud-out/results", "mteb-results"], "leaderboard.html")
"""

from __future__ import annotations

import base64
import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.errors import XProbeError
from xprobe.files import atomic_write, np_rng
from xprobe.probe.records import is_not_applicable, read_records
from xprobe.report.group import group_experiments
from xprobe.report.stats import Stats

__all__ = ["Cell", "leaderboard_data", "read_results", "write_leaderboard"]

log = logging.getLogger(__name__)

BASELINES = ("majority", "length", "nb-unigram")
RESAMPLES = 200


@dataclass
class Cell:
    """One model's result on one language and task."""

    model: str
    kind: str
    layer: int | None
    language: str
    task: str
    value: float | None = None  # accuracy (0..1); None when n/a
    low: float | None = None
    high: float | None = None
    n: int | None = None
    reason: str | None = None  # n/a: kind and reason
    items: np.ndarray | None = None  # per test item, share of seeds right (xprobe records)
    source: str = "xprobe"


def _kind(e: Any) -> str:
    if e.get("classifier") in BASELINES or e.get("encoder") == "baseline":
        return "baseline"
    enc = str(e.get("encoder_id", ""))
    if enc.startswith(("bov", "pmeans")):
        return "bag of vectors"
    if enc.startswith(("hf", "st", "transformer")) or e.get("layer") is not None:
        return "transformer"
    return "encoder"


def _model(e: Any) -> str:
    if e.get("encoder") == "baseline" or e.get("encoder_id") == "none":
        return str(e.get("classifier"))
    name = str(e.get("encoder"))
    if e.get("layer") is not None:
        name += f" L{e.get('layer')}"
    if e.get("classifier") not in (None, "mlp"):
        name += f" ({e.get('classifier')})"
    return name


def _read(path: Path, strict: bool) -> list[dict[str, Any]]:
    """The records of a file; a file found in a folder that holds no probe records (a study's
    minimal-pair scores, another tool's JSONL) is skipped with a warning."""
    try:
        return read_records(path)
    except XProbeError as e:
        if strict:
            raise
        log.warning("%s: not xprobe result records, skipped (%s)", path, str(e)[:120])
        return []


def _from_records(paths: list[Path], given: set[Path]) -> list[Cell]:
    records = [r for p in paths for r in _read(p, p in given)]
    tests = [r for r in records if r.get("split", "test") == "test"]
    cells = []
    # an n/a record of a layer-wise encoder has no layer: it stands for each of its layers
    # (its encoder_id has no layer either: the encoder's name and classifier find its layers)
    layers: dict[tuple, set] = {}
    for r in tests:
        if not is_not_applicable(r) and r.get("layer") is not None:
            layers.setdefault((r.get("encoder"), r.get("classifier")), set()).add(r["layer"])
    for r in (r for r in tests if is_not_applicable(r)):
        reason = f"{r.get('kind')}: {r['not_applicable']}" if r.get("kind") else r["not_applicable"]
        for layer in sorted(layers.get((r.get("encoder"), r.get("classifier")), {None})):
            rec = {**r, "layer": layer}
            cells.append(Cell(_model(rec), _kind(rec), layer, str(r["language"]),
                              str(r["task"]), reason=str(reason)))  # fmt: skip
    stats = Stats()
    for e in group_experiments(r for r in tests if not is_not_applicable(r)):
        lo, hi, _ = stats.interval(e)
        cells.append(Cell(_model(e), _kind(e), e.get("layer"), str(e.get("language")),
                          str(e.get("task")), e.mean, lo, hi, int(e.get("n_test") or 0),
                          items=stats.items(e)))  # fmt: skip
    return cells


def _mteb_task(name: str) -> str:
    name = re.sub(r"^XProbe(UD)?", "", name)
    return name.split("-", 1)[0]


def _from_mteb(path: Path) -> list[Cell]:
    """One mteb task result file: results/<model>/<revision>/<task>.json."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    model = path.parent.parent.name.replace("__", "/")
    out = []
    for entry in (doc.get("scores") or {}).get("test", []):
        subset = str(entry.get("hf_subset", "default"))
        task, _, lang = subset.rpartition(".") if "." in subset else ("", "", subset)
        out.append(Cell(f"{model} (mteb)", "mteb", None, lang,
                        task or _mteb_task(str(doc.get("task_name"))),
                        float(entry["main_score"]), source="mteb"))  # fmt: skip
    return out


def _is_mteb(f: Path) -> bool:
    """An mteb task result: results/<model>/<revision>/<task>.json."""
    parts = f.parts
    return (f.suffix == ".json" and f.name != "model_meta.json" and len(parts) >= 4
            and parts[-4] == "results")  # fmt: skip


def read_results(paths: list[str | os.PathLike[str]]) -> list[Cell]:
    """Every cell of the records and mteb results under ``paths`` (files or folders)."""
    jsonl: list[Path] = []
    mteb: list[Path] = []
    for p in map(Path, paths):
        if not p.exists():
            raise XProbeError(f"{p}: no such file or folder")
        if p.is_file():
            (jsonl if p.suffix == ".jsonl" else mteb).append(p)
            continue
        for f in sorted(x for x in p.rglob("*") if x.is_file()):
            in_mteb = len(f.parts) >= 4 and f.parts[-4] == "results"  # mteb's run_settings
            if f.suffix == ".jsonl" and f.name != "results.jsonl" and not in_mteb:
                jsonl.append(f)  # (results.jsonl: a study's merged copy of the others)
            elif _is_mteb(f):
                mteb.append(f)
    cells = _from_records(jsonl, {Path(p) for p in paths}) if jsonl else []
    for f in mteb:
        cells += _from_mteb(f)
    if not cells:
        raise XProbeError(f"{', '.join(map(str, paths))}: no results (records or mteb files)")
    return cells


def _replicates(cells: list[Cell], resamples: int) -> dict[int, np.ndarray]:
    """Per cell (by id), its accuracy under each bootstrap draw of its language and task's
    items; models scored on the same items share the draws (paired)."""
    reps: dict[int, np.ndarray] = {}
    groups: dict[tuple[str, str, int], list[Cell]] = {}
    for c in cells:
        if c.value is None:
            continue
        if c.items is None:
            reps[id(c)] = np.full(resamples, c.value)
        else:
            groups.setdefault((c.language, c.task, len(c.items)), []).append(c)
    for (lang, task, n), group in sorted(groups.items(), key=lambda x: x[0]):
        idx = np_rng(0, lang, task, n, "leaderboard").integers(0, n, size=(resamples, n))
        for c in group:
            reps[id(c)] = c.items[idx].mean(axis=1)  # type: ignore[index]
    return reps


def _pack(values: np.ndarray) -> str:
    """Accuracies as base64 of little-endian uint16 thousandths (page data)."""
    q = np.clip(np.round(np.asarray(values) * 1000), 0, 1000).astype("<u2")
    return base64.b64encode(q.tobytes()).decode("ascii")


def leaderboard_data(cells: list[Cell], resamples: int = RESAMPLES) -> dict[str, Any]:
    """What the page embeds: models, languages, tasks, cells (value, interval, n, n/a reason,
    replicates)."""
    from xprobe.report.tables import order_tasks

    seen: dict[tuple[str, str, str], Cell] = {}
    for c in cells:
        key = (c.model, c.language, c.task)
        if key in seen and seen[key].value is not None:
            log.warning("%s %s %s: given twice; the first is kept", *key)
            continue
        seen[key] = c
    cells = list(seen.values())
    reps = _replicates(cells, resamples)
    models = sorted({(c.model, c.kind, c.layer) for c in cells},
                    key=lambda m: (m[1] != "baseline", m[0]))  # fmt: skip
    out = []
    for c in cells:
        d: dict[str, Any] = {"m": c.model, "l": c.language, "t": c.task}
        if c.value is None:
            d["na"] = c.reason or "n/a"
        else:
            d.update(v=round(c.value, 4), n=c.n, src=c.source)
            if c.low is not None:
                d.update(lo=round(c.low, 4), hi=round(c.high or 0, 4))
            d["r"] = _pack(reps[id(c)])
        out.append(d)
    return {
        "models": [{"name": m, "kind": k, "layer": layer} for m, k, layer in models],
        "languages": sorted({c.language for c in cells}),
        "tasks": order_tasks({c.task for c in cells}),
        "cells": out,
        "resamples": resamples,
    }


def write_leaderboard(
    paths: list[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    title: str = "xprobe leaderboard",
    resamples: int = RESAMPLES,
) -> dict[str, int]:
    """Build the page of the results under ``paths`` into ``out`` (one HTML file); returns
    counts (models, languages, tasks, cells, bytes)."""
    from xprobe.export.leaderboard_page import render

    data = leaderboard_data(read_results(paths), resamples)
    html = render(data, title)
    with atomic_write(out) as f:
        f.write(html)
    return {"models": len(data["models"]), "languages": len(data["languages"]),
            "tasks": len(data["tasks"]), "cells": len(data["cells"]),
            "bytes": len(html.encode("utf-8"))}  # fmt: skip

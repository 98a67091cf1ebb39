"""Writing a probing directory: SentEval files, optional provenance, and ``manifest.json`` last.

Every file is written atomically. The old manifest is removed first and the new one written
last, so a directory whose manifest exists is complete and consistent; a crash in between leaves
no manifest (``xprobe extract --check`` then reports it).

File formats:

* ``<task file>.txt``: ``split<TAB>label<TAB>sentence``, splits ``tr``, ``va``, ``te`` in that
  order, shuffled within each split with the seed;
* ``<task file>.provenance.tsv`` (``--provenance``): line by line aligned with the task file,
  ``split<TAB>label<TAB>source file<TAB>line of the sentence<TAB>sent_id<TAB>key`` (``_`` for
  none).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import math
import os
from pathlib import Path
from typing import Any

from xprobe import __version__
from xprobe.errors import XProbeError
from xprobe.extract.pools import SPLITS
from xprobe.extract.select import Picked, TaskResult
from xprobe.extract.yields import task_yield
from xprobe.files import atomic_write, rng, write_json
from xprobe.tasks.base import CorpusStats
from xprobe.ud import ReadStats

__all__ = [
    "MANIFEST",
    "PROVENANCE_COLUMNS",
    "build_manifest",
    "jsonable",
    "length_label_correlation",
    "raise_unfilled",
    "write_outputs",
]

MANIFEST = "manifest.json"
PROVENANCE_COLUMNS = ("split", "label", "source", "line", "sent_id", "key")


def _ordered(res: TaskResult, seed: int, lang: str) -> list[tuple[str, Picked]]:
    """The task's lines in file order: splits in order, each shuffled with the seed."""
    out: list[tuple[str, Picked]] = []
    for split, picked in zip(SPLITS, res.picked, strict=True):
        lines = sorted(picked, key=lambda p: (p[5], p[6]))
        rng(seed, lang, res.run.spec.file, split, "order").shuffle(lines)
        out.extend((split, p) for p in lines)
    return out


def _write_task(
    out: Path, res: TaskResult, inputs: list[str], seed: int, lang: str, provenance: bool
) -> dict[str, Any]:
    lines = _ordered(res, seed, lang)
    file = res.run.spec.file
    digest = hashlib.sha256()
    with atomic_write(out / f"{file}.txt") as f:
        for split, p in lines:
            row = f"{split}\t{p[0]}\t{p[1]}\n"
            digest.update(row.encode("utf-8", "surrogateescape"))
            f.write(row)
    if provenance:
        with atomic_write(out / f"{file}.provenance.tsv") as f:
            for split, p in lines:
                fi, line, sent_id = p[3]
                key = p[2] if p[2] is not None else "_"
                f.write(f"{split}\t{p[0]}\t{inputs[fi]}\t{line}\t{sent_id or '_'}\t{key}\n")
    return {"sha256": digest.hexdigest(), "lines": len(lines)}


def length_label_correlation(picked: list[Picked]) -> float | None:
    """Pearson correlation of sentence length (tokens) and numeric label; None if undefined."""
    try:
        ys = [float(p[0]) for p in picked]
    except ValueError:
        return None
    xs = [float(p[1].count(" ") + 1) for p in picked]
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return round(sxy / math.sqrt(sxx * syy), 6)


def task_manifest(res: TaskResult, seen: int, params: dict[str, Any]) -> dict[str, Any]:
    """The manifest entry of one task (without the file digest)."""
    run = res.run
    written: dict[str, Any] = {}
    strata: dict[str, Any] = {}
    keys: dict[str, list[str]] = {}
    corr: dict[str, float | None] = {}
    for split, picked in zip(SPLITS, res.picked, strict=True):
        classes = dict.fromkeys(run.labels, 0)
        cells: dict[str, dict[str, int]] = {}
        for p in picked:
            classes[p[0]] += 1
            cells.setdefault(p[4], dict.fromkeys(run.labels, 0))[p[0]] += 1
        written[split] = {"total": len(picked), "classes": classes}
        strata[split] = dict(sorted(cells.items()))
        keys[split] = sorted({p[2] for p in picked if p[2] is not None})
        corr[split] = length_label_correlation(picked)
    entry: dict[str, Any] = {
        "task": run.spec.name,
        "file": f"{run.spec.file}.txt",
        "labels": list(run.labels),
        "params": params,
        "sizes": dict(zip(SPLITS, run.sizes, strict=True)),
        "written": written,
        "sentences": {
            "seen": seen,
            "eligible": run.eligible,
            "taken": sum(len(p) for p in res.picked),
        },
        "partial": res.partial,
        "shortfalls": res.shortfalls,
        "rarity_rank": res.rank,
        "pooled": sum(len(p.heap) for p in run.pools.values()),
        "flexible": bool(run.flexible),
        "strata_declared": list(run.strata),
    }
    if run.strata or any(p[4] for picked in res.picked for p in picked):
        entry["strata"] = strata
    if res.shrunk is not None:
        total = sum(run.sizes)
        entry["shrunk"] = {
            "factor": round(sum(res.shrunk) / total, 6) if total else 0.0,
            "sizes": dict(zip(SPLITS, res.shrunk, strict=True)),
            "why": "the corpus could not fill the sizes asked: every split was shrunk in "
            "proportion to them",
        }
    if any(keys.values()):
        entry["keys"] = keys
    if any(c is not None for c in corr.values()):
        entry["length_label_correlation"] = corr
    return entry


def write_outputs(
    out: Path,
    results: list[TaskResult],
    manifest: dict[str, Any],
    inputs: list[str],
    seed: int,
    lang: str,
    provenance: bool,
    drop: list[str] | tuple[str, ...] = (),
) -> None:
    """Write every task file (and provenance), then the manifest; fills in file digests.
    ``drop``: task files not to leave behind (tasks that do not apply), removed if present."""
    out.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(out / MANIFEST)
    for file in drop:
        for name in (f"{file}.txt", f"{file}.provenance.tsv"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(out / name)
    for res in results:
        info = _write_task(out, res, inputs, seed, lang, provenance)
        manifest["tasks"][res.run.spec.file].update(info)
        if provenance:
            manifest["tasks"][res.run.spec.file]["provenance"] = (
                f"{res.run.spec.file}.provenance.tsv"
            )
    write_json(out / MANIFEST, manifest)


def build_manifest(
    config: Any,
    profile: Any,
    results: list[TaskResult],
    params: dict[str, Any],
    read: ReadStats,
    stats: CorpusStats,
    counts: dict[str, int],
    inputs: list[dict[str, str]],
) -> dict[str, Any]:
    """The manifest of a run (``config``: its ExtractConfig), task files not yet hashed."""
    tasks = {
        r.run.spec.file: task_manifest(r, stats.sentences, jsonable(params[r.run.spec.file]))
        for r in results
    }
    for entry in tasks.values():
        entry["yield"] = task_yield(
            sum(entry["sizes"].values()),
            entry["sentences"]["taken"],
            entry["sentences"]["eligible"],
            read.sentences,
        )
    return {
        "xprobe_version": __version__,
        "language": profile.code,
        "variant": profile.variant,
        "seed": config.seed,
        **({"dataset": config.dataset} if config.dataset else {}),
        "sizes": {"tr": config.sizes[0], "va": config.sizes[1], "te": config.sizes[2]},
        "exclusive": config.exclusive,
        "allow_partial": config.allow_partial,
        "windows": config.windows,
        "inputs": inputs,
        "reader": {"on_error": config.on_error, **read.as_dict()},
        "corpus": {
            "sentences": stats.sentences,
            "duplicates": stats.duplicates,
            "tokens": stats.tokens,
            "forms": len(stats.forms),
            "bigrams": len(stats.bigrams),
            **counts,
        },
        "provenance_columns": list(PROVENANCE_COLUMNS) if config.provenance else [],
        "task_order": [r.run.spec.file for r in sorted(results, key=lambda r: r.rank)],
        "tasks": tasks,
    }


def jsonable(params: Any) -> dict[str, Any]:
    values = dataclasses.asdict(params) if dataclasses.is_dataclass(params) else dict(params)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}


def raise_unfilled(results: list[TaskResult], allow_partial: bool, exclusive: bool) -> None:
    """Refuse to write a task that could not be filled, unless ``allow_partial``."""
    short = [r for r in results if r.partial]
    if not short or allow_partial:
        return
    lines = [f"{r.run.spec.name} ({r.run.spec.file}): " + "; ".join(r.shortfalls) for r in short]
    raise XProbeError(
        "cannot fill "
        + " | ".join(lines)
        + ". Use --allow-partial to write what was found (still balanced, every split shrunk "
        "in proportion to the sizes asked), smaller --sizes, or a larger corpus"
        + _exclusive_hint(short, exclusive)
    )


def _exclusive_hint(short: list[TaskResult], exclusive: bool) -> str:
    """With exclusivity on: what ``--no-exclusive`` would give back, and what it costs."""
    if not exclusive:
        return ""
    lost = ", ".join(f"{r.run.spec.name} {r.run.lost}" for r in short if r.run.lost)
    given = f" (candidates other tasks took first: {lost})" if lost else ""
    return (
        "; or --no-exclusive, which lets one source sentence feed several tasks"
        + given
        + ": more sentences per task, at the cost of tasks no longer being on disjoint "
        "sentences (X-Probe's rule), so results of two tasks share their data"
    )

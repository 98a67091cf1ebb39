"""Result records -> a tidy table and mteb's results layout (``xprobe export results``).

Written under OUT::

    records.parquet, records.csv     one row per record, every field (dict fields as JSON text),
                                     plus intervals: ci_low/ci_high/ci_method of the record's own
                                     value, and exp_mean/exp_ci_low/exp_ci_high/exp_seeds of its
                                     experiment (seeds combined), as the report computes them
    results/<model>/<revision>/<task>.json   mteb's layout (what ``mteb.ResultCache(OUT)``
                                     reads): one folder per encoder (``xprobe__<name>``, per
                                     layer ``xprobe__<name>-L<layer>``; ``<name>-<lang>`` when
                                     encoders of one name differ, as a mapped student and its
                                     teacher, both ``bilstm-max``) and revision (the first 12
                                     hex digits of the sha256 of its encoder_id); one JSON per
                                     task (``XProbe<Task>``, ``-<classifier>`` unless mlp) with
                                     the fields of mteb's TaskResult: dataset_revision,
                                     task_name, mteb_version, scores {split: [scores per
                                     hf_subset = language]}, evaluation_time, kg_co2_emissions
    results/<model>/<revision>/model_meta.json   name, revision, embed_dim (mteb's ModelMeta)
    xprobe-export.json               what was exported (digest of the inputs)

A record of a task that does not apply (``not_applicable``: the reason, no value) is a row of the
tidy table with its reason and no interval (``ci_method`` ``n/a``); mteb's layout holds scores
only, so it has no file for it (a warning names them). Records of several xprobe versions are
refused (one line naming them): numbers made by different code are not one table.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import json
import logging
import os
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from xprobe import __version__
from xprobe.errors import XProbeError
from xprobe.export.target import export_folder
from xprobe.files import inside, name_problem
from xprobe.languages import load_profile
from xprobe.probe.records import (
    FIELDS,
    NA_OPTIONAL_FIELDS,
    OPTIONAL_FIELDS,
    is_not_applicable,
    read_records,
)
from xprobe.report.group import group_experiments
from xprobe.report.stats import Stats

__all__ = ["INTERVAL_COLUMNS", "RESULTS_STAMP", "export_results", "tidy_rows"]

RESULTS_STAMP = "xprobe-export.json"
INTERVAL_COLUMNS = ("ci_low", "ci_high", "ci_method", "exp_mean", "exp_ci_low", "exp_ci_high",
                    "exp_seeds")  # fmt: skip
MTEB_SPLITS = {"dev": "validation", "test": "test"}
# mteb's ModelMeta fields that xprobe cannot know: written as null so that mteb validates the file
_META_UNKNOWN = (
    "release_date", "n_parameters", "memory_usage_mb", "max_tokens", "embed_dim", "license",
    "open_weights", "public_training_code", "public_training_data", "similarity_fn_name",
    "use_instructions", "training_datasets", "loader",
)  # fmt: skip

log = logging.getLogger(__name__)


def _read(paths: list[Path]) -> list[dict[str, Any]]:
    records = [r for p in paths for r in read_records(p)]
    if not records:
        raise XProbeError(f"{', '.join(map(str, paths))}: no records to export")
    versions = Counter(str(r.get("version")) for r in records)
    if len(versions) > 1:
        which = ", ".join(f"{v} ({n} records)" for v, n in sorted(versions.items()))
        raise XProbeError(
            f"{', '.join(map(str, paths))}: records of several xprobe versions ({which}); "
            "export each version separately"
        )
    return records


def _columns(records: list[dict[str, Any]]) -> list[str]:
    known = [*FIELDS, *OPTIONAL_FIELDS, "not_applicable", *NA_OPTIONAL_FIELDS]
    extra = sorted({k for r in records for k in r} - set(known))
    present = {k for r in records for k in r}
    return [k for k in known if k in present or k in FIELDS] + extra + list(INTERVAL_COLUMNS)


def _cell(value: Any) -> Any:
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


def tidy_rows(records: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """Columns and rows of the tidy table (records in input order, intervals added; a task that
    does not apply keeps its row, with its reason and kind and no value or interval)."""
    from xprobe.report.group import Experiment

    stats = Stats()
    scored = [r for r in records if not is_not_applicable(r)]
    exps = group_experiments(scored)  # kept alive: Stats caches by object id
    exp_of = {id(r): exp for exp in exps for r in exp.records}
    cols = _columns(records)
    rows = []
    for r in records:
        if is_not_applicable(r):  # no value, no interval: the row keeps the reason
            row = {c: _cell(r.get(c)) for c in cols if c not in INTERVAL_COLUMNS}
            rows.append({**row, **dict.fromkeys(INTERVAL_COLUMNS), "ci_method": "n/a"})
            continue
        # the record's own interval (a fresh Stats: a short-lived object's id may be reused)
        own = Experiment(dict(exp_of[id(r)].fields) if id(r) in exp_of else {}, [r])
        lo, hi, how = Stats().interval(own)
        row = {c: _cell(r.get(c)) for c in cols if c not in INTERVAL_COLUMNS}
        row.update(ci_low=lo, ci_high=hi, ci_method=how)
        exp = exp_of.get(id(r))
        if exp is not None:
            elo, ehi, _ = stats.interval(exp)
            row.update(exp_mean=exp.mean, exp_ci_low=elo, exp_ci_high=ehi, exp_seeds=exp.n)
        rows.append(row)
    return cols, rows


def _write_tidy(tmp: Path, cols: list[str], rows: list[dict[str, Any]]) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise XProbeError("export needs pyarrow: pip install 'xprobe[export]'") from None
    table = pa.Table.from_pylist([{c: row.get(c) for c in cols} for row in rows])
    pq.write_table(table, tmp / "records.parquet")
    with open(tmp / "records.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def _model_dir(exp_fields: dict[str, Any], suffix: str = "") -> tuple[str, str, str]:
    """mteb's model name (``organization/name``; ``xprobe/`` when the encoder name has no
    organization; ``suffix`` (:func:`_distinct`); ``-L<layer>`` per layer), its folder name
    and the revision."""
    name = str(exp_fields["encoder"]) + suffix
    name = name if "/" in name else f"xprobe/{name}"
    if exp_fields.get("layer") is not None:
        name += f"-L{exp_fields['layer']}"
    rev = hashlib.sha256(str(exp_fields["encoder_id"]).encode()).hexdigest()[:12]
    return name, name.replace("/", "__"), rev


def _distinct(exps: list[Any]) -> dict[str, str]:
    """encoder_id -> a name suffix, for the encoders whose name several encoder_ids share (the
    demo's English teacher and German student are both ``bilstm-max``): ``-`` and the languages
    the encoder_id was probed in, so each is a model of its own, not a revision of the other."""
    ids: dict[str, set[str]] = defaultdict(set)
    langs: dict[str, set[str]] = defaultdict(set)
    for e in exps:
        ids[str(e.get("encoder"))].add(str(e.get("encoder_id")))
        langs[str(e.get("encoder_id"))].add(re.sub(r"[^A-Za-z0-9_-]", "_", str(e.get("language"))))
    shared = [i for group in ids.values() if len(group) > 1 for i in group]
    return {i: "-" + "+".join(sorted(langs[i])) for i in shared}


def _task_name(exp_fields: dict[str, Any]) -> str:
    clf = exp_fields["classifier"]
    return f"XProbe{exp_fields['task']}" + ("" if clf == "mlp" else f"-{clf}")


def _file_name(field: str, value: str, e: Any) -> None:
    """``value`` (from a record) where it becomes a file or folder name of the mteb layout;
    an error naming the record when it cannot (``/``, ``..``, control characters)."""
    problem = name_problem(value)
    if problem is not None:
        raise XProbeError(
            f"record {e.get('encoder')!r} / {e.get('language')!r} / {e.get('task')!r}: {field} "
            f"{value!r} cannot name a file of the export: {problem}; rename it in the results "
            "file"
        )


@functools.cache
def mteb_languages(code: str) -> tuple[str, ...]:
    """mteb's language of a record's language code (``deu-Latn``) from the profile's
    ``iso639_3`` and ``script``; empty (with a warning) when the profile has none."""
    try:
        profile = load_profile(code)
    except XProbeError:
        profile = None
    if profile is None or not (profile.iso639_3 and profile.script):
        log.warning(
            "language %r: no profile with iso639_3 and script; mteb 'languages' empty", code
        )
        return ()
    return (f"{profile.iso639_3}-{profile.script}",)


def _score(exp, stats: Stats, subset: str) -> dict[str, Any]:
    lo, hi, how = stats.interval(exp)
    return {
        "hf_subset": subset, "languages": list(mteb_languages(str(exp.get("language")))),
        "main_score": round(exp.mean, 6),
        "accuracy": round(exp.mean, 6), "accuracy_ci95": [round(lo, 6), round(hi, 6)],
        "ci_method": how, "scores_per_seed": exp.values, "n_train": exp.get("n_train"),
        "n_test": exp.get("n_test"), "classifier": exp.get("classifier"),
        "dataset": exp.get("dataset"), "dataset_hash": exp.get("dataset_hash"),
        "protocol": exp.get("protocol"),
    }  # fmt: skip


def mteb_files(records: list[dict[str, Any]]) -> dict[Path, dict[str, Any]]:
    """Relative path -> JSON content of every mteb file (task results and model metas); the
    tasks that do not apply have no score, so no mteb file (the tidy table lists them)."""
    stats = Stats()
    na = sorted({f"{r['encoder']}/{r['language']}/{r['task']}" for r in records
                 if is_not_applicable(r)})  # fmt: skip
    if na:
        log.warning("mteb layout: no score for the n/a task(s) %s (in records.csv with the "
                    "reason)", ", ".join(na))  # fmt: skip
    exps = group_experiments([r for r in records if not is_not_applicable(r)])
    datasets = {e.get("dataset") for e in exps}
    files: dict[Path, dict[str, Any]] = {}
    placed: dict[tuple, Any] = {}
    suffix = _distinct(exps)
    for e in exps:
        model, name, rev = _model_dir(e.fields, suffix.get(str(e.get("encoder_id")), ""))
        _file_name("encoder", name, e)
        for field in ("task", "classifier"):
            _file_name(field, str(e.get(field)), e)
        task = _task_name(e.fields)
        subset = (
            e.get("language") if len(datasets) == 1 else f"{e.get('dataset')}.{e.get('language')}"
        )
        split = MTEB_SPLITS.get(e.get("split"), e.get("split"))
        key = (name, rev, task, split, subset)
        if key in placed:
            diff = sorted(k for k in e.fields if e.fields.get(k) != placed[key].fields.get(k))
            raise XProbeError(
                f"{name}/{task}/{subset}/{split}: several experiments (they differ in "
                f"{', '.join(diff)}); mteb's layout holds one: export them separately"
            )
        placed[key] = e
        path = Path("results") / name / rev / f"{task}.json"
        doc = files.setdefault(
            path,
            {
                "dataset_revision": "",
                "task_name": task,
                "mteb_version": None,
                "scores": defaultdict(list),
                "evaluation_time": None,
                "kg_co2_emissions": None,
            },
        )
        doc["scores"][split].append(_score(e, stats, str(subset)))
        meta = files.setdefault(Path("results") / name / rev / "model_meta.json", _meta(model, rev))
        meta["languages"] = sorted({*meta["languages"], *mteb_languages(str(e.get("language")))})
    for path, doc in files.items():
        if path.name != "model_meta.json":
            _finish_task(doc)
    return files


def _meta(name: str, revision: str) -> dict[str, Any]:
    """A model_meta.json mteb's ModelMeta validates: what xprobe knows, null for the rest."""
    return {"name": name, "revision": revision, "languages": [], "framework": [],
            **dict.fromkeys(_META_UNKNOWN)}  # fmt: skip


def _finish_task(doc: dict[str, Any]) -> None:
    """The task file's dataset_revision (digest of its data hashes) and sorted scores."""
    hashes = sorted({s["dataset_hash"] for v in doc["scores"].values() for s in v})
    doc["dataset_revision"] = hashlib.sha256("".join(hashes).encode()).hexdigest()[:12]
    doc["scores"] = {
        k: sorted(v, key=lambda s: s["hf_subset"]) for k, v in sorted(doc["scores"].items())
    }


def export_results(
    paths: list[str | os.PathLike[str]], out: str | os.PathLike[str], force: bool = False
) -> dict[str, int]:
    """Export the records of ``paths``; returns counts (records, mteb task files, models)."""
    ps = [Path(p) for p in paths]
    for p in ps:
        if not p.is_file():
            raise XProbeError(f"{p}: results file not found")
    records = _read(ps)
    digest = hashlib.sha256()
    for p in ps:
        digest.update(p.read_bytes())
    info = {"kind": "results", "source": digest.hexdigest(), "xprobe_version": __version__,
            "input": ", ".join(str(p.resolve()) for p in ps)}  # fmt: skip
    cols, rows = tidy_rows(records)
    files = mteb_files(records)
    with export_folder(Path(out), RESULTS_STAMP, info, force) as tmp:
        _write_tidy(tmp, cols, rows)
        for rel, doc in sorted(files.items()):
            inside(tmp, tmp / rel)
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", "utf-8")
    tasks = sum(1 for p in files if p.name != "model_meta.json")
    return {"records": len(rows), "task_files": tasks, "models": len(files) - tasks}

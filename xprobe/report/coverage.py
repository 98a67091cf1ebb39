"""The coverage of a multilingual build: languages x tasks, from the probing folders' manifests.

A filled cell gives ``n``, the items its probe scores: under ``cv:K`` (the manifest's
``treebank.protocol``, :mod:`xprobe.protocol`) every line of the task file (tr+va+te, each scored
once), under ``tr/va/te`` the test lines; its ``protocol``; and ``half_width``, the 95 %
half-width at 50 % accuracy in points (:func:`xprobe.protocol.half_width`: the smallest
difference from chance the cell can resolve). An n/a cell gives the kind and reason its manifest
gives (``kind``: ``language``, ``annotation`` or ``corpus`` where the manifest has one),
``would_fill``: what would fill it, in numbers, read from the reason ("97 balanced lines (46
found)"), and ``missing_train``: the language's treebank folders without a train file, where
the release folder lacks one (``write_coverage(missing_train=...)``; the ud study passes it).
Written as ``coverage.json`` and ``coverage.md`` (a summary: languages, cells filled, median and
smallest N, filled per task, n/a by kind; the table; then every n/a with what would fill it and
its reason) beside the report by ``studies/ud.toml``.

Example::

    write_coverage({"de": "probing/de", "ta": "probing/ta"}, "report")   # doctest: +SKIP
"""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.files import atomic_write, write_json
from xprobe.protocol import SPLITS_PROTOCOL, half_width
from xprobe.report.md import escape, md_table
from xprobe.report.tables import order_tasks

__all__ = [
    "MISSING_TRAIN",
    "copy_coverage",
    "coverage",
    "coverage_markdown",
    "coverage_section",
    "would_fill",
    "write_coverage",
]

MISSING_TRAIN = "the release's train file for this treebank is not in the folder"
SPLITS = ("tr", "va", "te")
NA_HEADER = "| language | task | kind | would fill it | reason |"
# what the n/a reasons of treebank mode say would fill a task (xprobe.extract.applicable)
_NEEDS = (
    (re.compile(r"needs (\d+) balanced lines for cv:\d+ .*?, (\d+) found"),
     "{0} balanced lines ({1} found)"),
    (re.compile(r"needs (\d+) lines of every class for cv:\d+ .*?, class (.+?) has (\d+)"),
     "{0} lines of every class (class {1} has {2})"),
    (re.compile(r"test would hold (\d+) lines?, fewer than --min-test (\d+)"),
     "{1} test lines ({0} found)"),
)  # fmt: skip


def _manifest(folder: Path) -> dict[str, Any]:
    path = folder / "manifest.json"
    try:
        return json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise XProbeError(f"{path}: no manifest (the extraction did not finish)") from None
    except (OSError, json.JSONDecodeError) as e:
        raise XProbeError(f"{path}: unreadable manifest ({e})") from None


def would_fill(reason: str) -> str | None:
    """What would fill an n/a task, in numbers, from its reason; None where the reason names
    no number (no data fills a task the language or the annotation lacks)."""
    for pattern, text in _NEEDS:
        m = pattern.search(reason)
        if m is not None:
            return text.format(*m.groups())
    return None


def _total(entry: dict[str, Any], split: str) -> int | None:
    total = (entry.get("written", {}).get(split) or {}).get("total")
    return int(total) if total is not None else None


def _cell(entry: dict[str, Any], protocol: str, missing: Sequence[str]) -> dict[str, Any]:
    if entry.get("applicable") is False:
        reason = str(entry.get("reason", ""))
        cell = {"n": None, "test": None, "kind": entry.get("kind"), "reason": reason,
                "would_fill": would_fill(reason)}  # fmt: skip
        if missing and entry.get("kind") == "corpus":
            cell["missing_train"] = list(missing)
        return cell
    test = _total(entry, "te")
    if protocol == SPLITS_PROTOCOL:
        n = test
    else:
        n = sum(t for s in SPLITS if (t := _total(entry, s)) is not None)
    hw = round(100 * half_width(n), 1) if n else None
    return {"n": n, "protocol": protocol, "half_width": hw, "test": test}


def _language(folder: str, missing: Sequence[str]) -> dict[str, Any]:
    manifest = _manifest(Path(folder))
    protocol = str((manifest.get("treebank") or {}).get("protocol") or SPLITS_PROTOCOL)
    return {
        str(e.get("task", f)): _cell(e, protocol, missing)
        for f, e in manifest.get("tasks", {}).items()
    }


def coverage(
    folders: dict[str, str],
    drafted: Sequence[str] = (),
    missing_train: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """The coverage of the probing folders ``folders`` (code -> folder), as a JSON-ready dict;
    ``drafted``: the codes whose profile was drafted (the others' were shipped);
    ``missing_train``: code -> the treebank folders of the release without a train file."""
    missing = missing_train or {}
    langs: dict[str, Any] = {}
    for code in sorted(folders):
        tasks = _language(folders[code], missing.get(code, ()))
        langs[code] = {"profile": "draft" if code in drafted else "shipped", "tasks": tasks}
    names = order_tasks({t for lang in langs.values() for t in lang["tasks"]})
    return {"tasks": names, "languages": langs, "summary": _summary(langs, names)}


def _summary(langs: dict[str, Any], names: list[str]) -> dict[str, Any]:
    cells = [(t, c) for lang in langs.values() for t, c in lang["tasks"].items()]
    filled = [(t, c) for t, c in cells if c["n"] is not None]
    ns = [c["n"] for _, c in filled]
    kinds = Counter(str(c.get("kind") or "unstated") for _, c in cells if c["n"] is None)
    by_task = Counter(t for t, _ in filled)
    return {
        "languages": len(langs),
        "tasks": len(names),
        "cells": len(langs) * len(names),
        "filled": len(filled),
        "median_n": _number(statistics.median(ns)) if ns else None,
        "min_n": min(ns) if ns else None,
        "filled_by_task": {t: by_task[t] for t in names},
        "protocols": dict(sorted(Counter(c["protocol"] for _, c in filled).items())),
        "na_by_kind": dict(sorted(kinds.items())),
    }


def _number(x: float) -> float | int:
    """A median as an integer where it is one (the median of an even count may be a half)."""
    return int(x) if float(x).is_integer() else x


def _md(text: str) -> str:
    """Text from a manifest as one Markdown table cell: no markup, no line break."""
    return escape(" ".join(str(text).split()))


def _summary_lines(cov: dict[str, Any]) -> list[str]:
    s = cov["summary"]
    hw = f" (±{100 * half_width(s['median_n']):.1f} points)" if s["median_n"] else ""
    protocols = ", ".join(f"{_md(p)} {n}" for p, n in s["protocols"].items()) or "none"
    return [
        "# Coverage: languages x tasks\n",
        f"{s['languages']} languages, {s['tasks']} tasks: {s['filled']} of {s['cells']} cells "
        f"filled; items scored per filled cell (N): median {s['median_n']}{hw}, smallest "
        f"{s['min_n']}; filled cells by protocol: {protocols}; n/a by kind: "
        + (", ".join(f"{k} {n}" for k, n in s["na_by_kind"].items()) or "none")
        + ".\n",
        "Filled per task: "
        + (", ".join(f"{_md(t)} {n}" for t, n in s["filled_by_task"].items()) or "none")
        + ".\n",
        "A filled cell gives N, the items its probe scores (cv:K: every line of the task file, "
        "each scored once by a probe that never saw it; tr/va/te: the test lines), and ±, the "
        "95 % half-width of an accuracy of 50 % on N items in points: the smallest difference "
        "from chance the cell resolves. n/a (kind: language = the profile's reviewer declared "
        "it, annotation = the treebank does not annotate what the rule reads, corpus = too few "
        "candidates).\n",
    ]


def _na_row(code: str, task: str, c: dict[str, Any]) -> str:
    fill = c.get("would_fill") or ""
    if c.get("missing_train"):
        where = ", ".join(c["missing_train"])
        fill = f"{fill}; {MISSING_TRAIN} ({where})" if fill else f"{MISSING_TRAIN} ({where})"
    return (f"| {_md(code)} | {_md(task)} | {_md(c.get('kind') or '')} | {_md(fill)} | "
            f"{_md(c['reason'])} |")  # fmt: skip


def _text(c: dict[str, Any] | None) -> str:
    if c is None:
        return ""
    if c["n"] is not None:
        return f"{c['n']} ±{c['half_width']}" if c.get("half_width") is not None else str(c["n"])
    kind = c.get("kind")
    return f"n/a ({_md(kind)})" if kind else "n/a"


def _grid(cov: dict[str, Any], marks: dict[tuple[str, str], str] | None = None) -> str:
    """The table: N ±half-width, or n/a (kind), or with ``marks`` the report's marked n/a."""
    rows = []
    for code, lang in cov["languages"].items():
        cells = [_text(lang["tasks"].get(t)) for t in cov["tasks"]]
        if marks is not None:  # n/a: the report's mark of its reason
            cells = [marks.get((code, t), "n/a") if c.startswith("n/a") else c
                     for t, c in zip(cov["tasks"], cells, strict=True)]  # fmt: skip
        rows.append([_md(code), _md(lang["profile"]), *cells])
    return md_table(["language", "profile", *map(_md, cov["tasks"])], rows)


def coverage_markdown(cov: dict[str, Any]) -> str:
    """The coverage as Markdown: summary, table (N ±half-width, or n/a (kind)), the n/a cells
    with what would fill them and their reasons."""
    reasons = [_na_row(code, t, c) for code, lang in cov["languages"].items()
               for t in cov["tasks"] if (c := lang["tasks"].get(t)) and c["n"] is None]  # fmt: skip
    lines = [*_summary_lines(cov), _grid(cov).rstrip("\n")]
    if reasons:
        lines += ["", "## Why n/a, and what would fill it\n", NA_HEADER, "|---|---|---|---|---|"]
        lines += reasons
    return "\n".join(lines) + "\n"


def write_coverage(
    folders: dict[str, str],
    out: str,
    drafted: Sequence[str] = (),
    missing_train: Mapping[str, Sequence[str]] | None = None,
) -> None:
    """Write ``OUT/coverage.json`` and ``OUT/coverage.md`` for the probing folders ``folders``
    (``missing_train``: code -> treebank folders of the release without a train file)."""
    cov = coverage(folders, list(drafted), missing_train)
    Path(out).mkdir(parents=True, exist_ok=True)
    write_json(Path(out) / "coverage.json", cov)
    with atomic_write(Path(out) / "coverage.md") as f:
        f.write(coverage_markdown(cov))


def copy_coverage(path: str | Path, out: Path) -> list[Path]:
    """``coverage.json`` and ``coverage.md`` of the coverage ``path`` in the folder ``out``."""
    cov = _read(path)
    write_json(out / "coverage.json", cov)
    with atomic_write(out / "coverage.md") as f:
        f.write(coverage_markdown(cov))
    return [out / "coverage.json", out / "coverage.md"]


def _read(path: str | Path) -> dict[str, Any]:
    try:
        return json.loads(Path(path).read_text("utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise XProbeError(f"{path}: unreadable coverage ({e})") from None


def coverage_section(path: str | Path, na: Any) -> str:
    """report.md's section for a ``coverage.json``: its summary, a link to ``coverage.md`` and the
    grid, an n/a cell with the report's footnote mark of its reason (``na``:
    :class:`~xprobe.report.na.NotApplicables`) instead of its kind."""
    cov = _read(path)
    marks = {(lang, task): na.mark(ds, lang, task) for ds, lang, task in na.cells}
    summary = _summary_lines(cov)[1].strip()
    link = "[coverage.md](coverage.md)"
    return (
        f"## Coverage: languages x tasks\n\n{summary} Every n/a with what would fill it: "
        f"{link}.\n\n" + _grid(cov, marks)
    )

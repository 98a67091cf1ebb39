"""The coverage of a multilingual build: languages x tasks, from the probing folders' manifests.

A cell holds a task's test lines, or ``n/a`` with the kind and reason its manifest gives
(``kind``: ``language``, ``annotation`` or ``corpus`` where the manifest has one). Written as
``coverage.json`` and ``coverage.md`` (the table, a summary: languages, cells filled, median test
lines, n/a by kind; then every n/a reason) beside the report by ``studies/ud.toml``.

Example::

    write_coverage({"de": "probing/de", "ta": "probing/ta"}, "report")   # doctest: +SKIP
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.files import atomic_write, write_json
from xprobe.report.md import escape
from xprobe.report.tables import order_tasks

__all__ = ["coverage", "coverage_markdown", "write_coverage"]


def _manifest(folder: Path) -> dict[str, Any]:
    path = folder / "manifest.json"
    try:
        return json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise XProbeError(f"{path}: no manifest (the extraction did not finish)") from None
    except (OSError, json.JSONDecodeError) as e:
        raise XProbeError(f"{path}: unreadable manifest ({e})") from None


def _cell(entry: dict[str, Any]) -> dict[str, Any]:
    if entry.get("applicable") is False:
        return {"test": None, "kind": entry.get("kind"), "reason": str(entry.get("reason", ""))}
    test = entry.get("written", {}).get("te", {}).get("total")
    return {"test": int(test) if test is not None else None}


def coverage(folders: dict[str, str], drafted: Sequence[str] = ()) -> dict[str, Any]:
    """The coverage of the probing folders ``folders`` (code -> folder), as a JSON-ready dict;
    ``drafted``: the codes whose profile was drafted (the others' were shipped)."""
    langs: dict[str, Any] = {}
    for code in sorted(folders):
        manifest = _manifest(Path(folders[code]))
        tasks = {str(e.get("task", f)): _cell(e) for f, e in manifest.get("tasks", {}).items()}
        langs[code] = {"profile": "draft" if code in drafted else "shipped", "tasks": tasks}
    names = order_tasks({t for lang in langs.values() for t in lang["tasks"]})
    tests = [c["test"] for lang in langs.values() for c in lang["tasks"].values()
             if c["test"] is not None]  # fmt: skip
    kinds = Counter(str(c.get("kind") or "unstated") for lang in langs.values()
                    for c in lang["tasks"].values() if c["test"] is None)  # fmt: skip
    summary = {
        "languages": len(langs),
        "tasks": len(names),
        "cells": len(langs) * len(names),
        "filled": len(tests),
        "median_test": statistics.median(tests) if tests else None,
        "min_test": min(tests) if tests else None,
        "na_by_kind": dict(sorted(kinds.items())),
    }
    return {"tasks": names, "languages": langs, "summary": summary}


def _md(text: str) -> str:
    """Text from a manifest as one Markdown table cell: no markup, no line break."""
    return escape(" ".join(str(text).split()))


def coverage_markdown(cov: dict[str, Any]) -> str:
    """The coverage as Markdown: summary, table (test lines or n/a (kind)), reasons."""
    s, names = cov["summary"], cov["tasks"]
    lines = [
        "# Coverage: languages x tasks\n",
        f"{s['languages']} languages, {s['tasks']} tasks: {s['filled']} of {s['cells']} cells "
        f"filled, median test lines {s['median_test']}, fewest {s['min_test']}; n/a by kind: "
        + (", ".join(f"{k} {n}" for k, n in s["na_by_kind"].items()) or "none")
        + ". A cell gives the task's test lines, or n/a (kind: language = the profile's "
        "reviewer declared it, annotation = the treebank does not annotate what the rule "
        "reads, corpus = too few candidates).\n",
        "| language | profile | " + " | ".join(map(_md, names)) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    reasons = []
    for code, lang in cov["languages"].items():
        cells = []
        for t in names:
            c = lang["tasks"].get(t)
            if c is None:
                cells.append("")
            elif c["test"] is not None:
                cells.append(str(c["test"]))
            else:
                kind = c.get("kind")
                cells.append(f"n/a ({_md(kind)})" if kind else "n/a")
                reasons.append(
                    f"| {_md(code)} | {_md(t)} | {_md(c.get('kind') or '')} | {_md(c['reason'])} |"
                )
        lines.append(f"| {_md(code)} | {_md(lang['profile'])} | " + " | ".join(cells) + " |")
    if reasons:
        lines += ["", "## Why n/a\n", "| language | task | kind | reason |", "|---|---|---|---|"]
        lines += reasons
    return "\n".join(lines) + "\n"


def write_coverage(folders: dict[str, str], out: str, drafted: Sequence[str] = ()) -> None:
    """Write ``OUT/coverage.json`` and ``OUT/coverage.md`` for the probing folders ``folders``."""
    cov = coverage(folders, list(drafted))
    Path(out).mkdir(parents=True, exist_ok=True)
    write_json(Path(out) / "coverage.json", cov)
    with atomic_write(Path(out) / "coverage.md") as f:
        f.write(coverage_markdown(cov))

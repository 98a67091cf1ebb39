"""Validate a probing directory written by ``xprobe extract``: ``xprobe extract --check DIR``.

Checks, per task listed in ``manifest.json``: the SentEval line format, split order (all ``tr``,
then ``va``, then ``te``), labels from the task's label set, balanced classes per split (equal
counts, any remainder on the first labels), per-stratum balance where the manifest records
strata, no sentence repeated within the task or (when the manifest says exclusive) shared with
another task, lexical keys in one split only, and that counts and SHA-256 agree with the manifest.
A provenance file, when present, must be aligned with the task file. A task the manifest marks
not applicable (``"applicable": false``) must give a reason, a known ``kind`` when it gives one
(:data:`xprobe.languages.NA_KINDS`) and have no file; it is listed among "n/a (kind: reason)" by
:func:`not_applicable_kinds`. A split asked for but empty,
or holding one class only, is a problem; so are leftovers of a killed run (temporary ``.tmp``
files, a stdin spool: :mod:`xprobe.extract.leftovers`). A split below a useful size is a warning;
in a folder extracted for ``cv:K`` (the manifest's ``treebank.protocol``), where every line is
scored once and the test split is only the file format, a task below the cross-validation floor
is (:func:`xprobe.protocol.cv_shortfall`).

Example::

    >>> problems = check_probing_dir("probing/en")  # doctest: +SKIP
    >>> problems
    []
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.extract.leftovers import find_leftovers, owner_alive
from xprobe.languages import NA_KINDS
from xprobe.protocol import cv_shortfall, parse_protocol
from xprobe.tasks.base import fold_key

__all__ = [
    "MIN_USEFUL",
    "check_probing_dir",
    "cv_folds",
    "not_applicable",
    "not_applicable_kinds",
    "small_test_splits",
]

SPLITS = ("tr", "va", "te")
MIN_USEFUL = 100  # lines a split needs to be worth probing on (see _usefulness)


def check_probing_dir(
    directory: str | os.PathLike[str], warnings: list[str] | None = None
) -> list[str]:
    """Problems found in a probing directory (empty list: all good).

    ``warnings``, when given, receives what makes a task weak rather than wrong: a split below
    a useful size (:data:`MIN_USEFUL` lines, or fewer than two per class).
    """
    d = Path(directory)
    problems = [_leftover_line(p) for p in find_leftovers(d)]
    try:
        manifest = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [f"{d}: no manifest.json (unfinished or not an extraction output)", *problems]
    except (OSError, ValueError) as e:
        return [f"{d / 'manifest.json'}: unreadable: {e}", *problems]
    owner: dict[str, str] = {}
    exclusive = bool(manifest.get("exclusive", True))
    folds = cv_folds(manifest)
    for file, entry in sorted(manifest.get("tasks", {}).items()):
        if entry.get("applicable", True) is False:
            _check_not_applicable(d, file, entry, problems)
            continue
        texts = _check_task(d, file, entry, problems)
        if warnings is not None:
            warnings.extend(_usefulness(d / entry.get("file", f"{file}.txt"), entry, folds))
        if exclusive:
            for text in texts:
                other = owner.setdefault(text, file)
                if other != file:
                    problems.append(f"{file}: sentence also in {other}: {text[:60]!r}")
    return problems


def not_applicable(directory: str | os.PathLike[str]) -> dict[str, str]:
    """``{task file: reason}`` for the tasks the manifest marks not applicable (none when the
    manifest is missing or unreadable: :func:`check_probing_dir` reports that)."""
    return {f: reason for f, (reason, _) in not_applicable_kinds(directory).items()}


def not_applicable_kinds(directory: str | os.PathLike[str]) -> dict[str, tuple[str, str]]:
    """``{task file: (reason, kind)}`` for the tasks the manifest marks not applicable; kind
    ``""`` where the manifest gives none (written before kinds)."""
    try:
        manifest = json.loads((Path(directory) / "manifest.json").read_text(encoding="utf-8"))
        tasks = manifest.get("tasks", {})
    except (OSError, ValueError, AttributeError):
        return {}
    return {
        f: (str(e.get("reason") or "no reason given"), str(e.get("kind") or ""))
        for f, e in sorted(tasks.items())
        if isinstance(e, dict) and e.get("applicable", True) is False
    }


def _check_not_applicable(d: Path, file: str, entry: dict[str, Any], problems: list[str]) -> None:
    """A task that does not apply: a reason, a known kind (if any), and no file left behind."""
    reason = entry.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        problems.append(f"{d / 'manifest.json'}: {file} is not applicable but gives no reason")
    kind = entry.get("kind")
    if kind is not None and kind not in NA_KINDS:
        problems.append(f"{d / 'manifest.json'}: {file}: kind must be one of "
                        f"{', '.join(NA_KINDS)}, got {kind!r}")  # fmt: skip
    for name in (f"{file}.txt", f"{file}.provenance.tsv"):
        if (d / name).exists():
            problems.append(f"{d / name}: present, but the manifest says {file} does not apply")


def _check_task(d: Path, file: str, entry: dict[str, Any], problems: list[str]) -> set[str]:
    path = d / entry.get("file", f"{file}.txt")
    try:
        raw = path.read_bytes()
    except OSError as e:
        problems.append(f"{path}: cannot read: {e.strerror or e}")
        return set()
    if entry.get("sha256") and hashlib.sha256(raw).hexdigest() != entry["sha256"]:
        problems.append(f"{path}: SHA-256 differs from the manifest")
    labels = entry.get("labels", [])
    rows = _parse_rows(path, raw.decode("utf-8", "surrogateescape"), set(labels), problems)
    if entry.get("lines") is not None and entry["lines"] != len(rows):
        problems.append(f"{path}: {len(rows)} lines, manifest says {entry['lines']}")
    texts: set[str] = set()
    for i, (_, _, text) in enumerate(rows, 1):
        if text in texts:
            problems.append(f"{path}:{i}: sentence repeated within the task: {text[:60]!r}")
        texts.add(text)
    _check_counts(path, rows, entry, labels, problems)
    _check_strata(path, entry, labels, problems)
    _check_keys(path, entry, problems)
    if entry.get("provenance"):
        _check_provenance(d / entry["provenance"], rows, entry, problems)
    return texts


def _parse_rows(
    path: Path, text: str, labels: set[str], problems: list[str]
) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    last = 0
    if text and not text.endswith("\n"):
        problems.append(f"{path}: last line has no newline")
    for i, line in enumerate(text.splitlines(), 1):
        cols = line.split("\t")
        if len(cols) != 3:
            problems.append(f"{path}:{i}: expected split<TAB>label<TAB>sentence")
            continue
        split, label, sentence = cols
        if split not in SPLITS:
            problems.append(f"{path}:{i}: unknown split {split!r}")
            continue
        if SPLITS.index(split) < last:
            problems.append(f"{path}:{i}: split {split} after {SPLITS[last]}")
        last = max(last, SPLITS.index(split))
        if labels and label not in labels:
            problems.append(f"{path}:{i}: label {label!r} not in the manifest's labels")
        if not sentence or sentence != " ".join(sentence.split()):
            problems.append(f"{path}:{i}: sentence empty or not single-spaced")
        rows.append((split, label, sentence))
    return rows


def _balanced(counts: list[int]) -> bool:
    """Equal counts, any remainder (+1) on a prefix of the labels."""
    if not counts:
        return True
    low = min(counts)
    return max(counts) - low <= 1 and counts == sorted(counts, reverse=True)


def _check_counts(
    path: Path,
    rows: list[tuple[str, str, str]],
    entry: dict[str, Any],
    labels: list[str],
    problems: list[str],
) -> None:
    found = Counter((s, lab) for s, lab, _ in rows)
    sizes = entry.get("sizes", {})
    for split in SPLITS:
        per = [found[(split, lab)] for lab in labels]
        total = sum(per)
        if sizes.get(split) and total == 0:
            problems.append(f"{path}: {split} is empty ({sizes[split]} asked)")
        elif len(labels) > 1 and total and sum(c > 0 for c in per) < 2:
            problems.append(f"{path}: {split} has one class only: {total} lines")
        if not _balanced(per):
            problems.append(
                f"{path}: {split} classes not balanced: {dict(zip(labels, per, strict=True))}"
            )
        written = entry.get("written", {}).get(split, {})
        if written and (
            written.get("total") != total
            or written.get("classes") != dict(zip(labels, per, strict=True))
        ):
            problems.append(f"{path}: {split} counts differ from the manifest")
        asked = sizes.get(split)
        if asked is not None and (total > asked or (total < asked and not entry.get("partial"))):
            problems.append(f"{path}: {split} has {total} lines, {asked} asked, not partial")


def cv_folds(manifest: dict[str, Any]) -> int | None:
    """K of a folder extracted for ``cv:K`` (the manifest's ``treebank.protocol``), else None."""
    protocol = (manifest.get("treebank") or {}).get("protocol")
    try:
        return parse_protocol(protocol).folds if protocol else None
    except XProbeError:
        return None


def _cv_short(entry: dict[str, Any], folds: int) -> str | None:
    """Under ``cv:K`` every line of the file is scored: the cross-validation floor's shortfall
    of all its lines (tr+va+te), or None."""
    per_class: Counter[str] = Counter()
    for split in (entry.get("written") or {}).values():
        per_class.update((split or {}).get("classes") or {})
    labels = entry.get("labels") or sorted(per_class)
    return cv_shortfall({lab: per_class[lab] for lab in labels}, folds)


def _usefulness(path: Path, entry: dict[str, Any], folds: int | None = None) -> list[str]:
    """Splits too small to measure anything: fewer than MIN_USEFUL lines (the standard error of
    an accuracy on n lines is up to 50/sqrt(n) points, 5 at 100) or than two per class. Under
    ``cv:K`` (``folds``) the test split is not what is scored but every line: the warning is
    then the cross-validation floor's (:func:`xprobe.protocol.cv_shortfall`)."""
    if folds is not None:
        short = _cv_short(entry, folds)
        return [] if short is None else [f"{path}: every line is scored under cv:{folds}; {short}"]
    out = []
    k = len(entry.get("labels", []))
    for split in SPLITS:
        total = (entry.get("written", {}).get(split) or {}).get("total", 0)
        if entry.get("sizes", {}).get(split) and 0 < total < max(MIN_USEFUL, 2 * k):
            out.append(
                f"{path}: {split} has {total} lines for {k} classes, below a useful size "
                f"({max(MIN_USEFUL, 2 * k)}): accuracies on it are mostly noise"
            )
    return out


def small_test_splits(manifest: dict[str, Any]) -> list[str]:
    """One line per task whose test split was asked for but holds fewer than a useful number
    of lines (:data:`MIN_USEFUL`, or two per class): what ``extract`` warns about as it ends.
    Under ``cv:K`` (every line scored) a task whose lines fall short of the cross-validation
    floor instead."""
    folds = cv_folds(manifest)
    if folds is not None:
        return [
            f"{entry.get('task')}: every line is scored under cv:{folds}; {short}"
            for entry in manifest.get("tasks", {}).values()
            if entry.get("applicable", True) is not False
            and (short := _cv_short(entry, folds)) is not None
        ]
    out = []
    for entry in manifest.get("tasks", {}).values():
        asked = entry.get("sizes", {}).get("te", 0)
        total = (entry.get("written", {}).get("te") or {}).get("total", 0)
        k = len(entry.get("labels", []))
        need = max(MIN_USEFUL, 2 * k)
        if asked and total < min(need, asked) and "treebank" in manifest:
            out.append(
                f"{entry.get('task')}: only {total} test lines for {k} classes; fewer than "
                f"{need} make its accuracy mostly noise (--min-test "
                f"{manifest['treebank'].get('min_test')} was asked)"
            )
        elif asked and total < min(need, asked):
            out.append(
                f"{entry.get('task')}: only {total} test lines ({asked} asked) for {k} classes; "
                f"fewer than {need} make its accuracy mostly noise: give --sizes that this "
                f"corpus can fill with at least {need} test lines per task (a treebank holds "
                "far fewer sentences than the defaults ask), or use a larger corpus"
            )
    return out


def _leftover_line(p: Path) -> str:
    if owner_alive(p):
        return f"{p}: still being written by a running process"
    return (
        f"{p}: leftover of a killed run ({p.stat().st_size} bytes); the next extract into this "
        "folder removes it"
    )


def _check_strata(
    path: Path, entry: dict[str, Any], labels: list[str], problems: list[str]
) -> None:
    declared = entry.get("strata_declared") or []
    for split, cells in (entry.get("strata") or {}).items():
        if declared:
            for lab in labels:
                per = [cells.get(s, {}).get(lab, 0) for s in declared]
                if not _balanced(per):
                    problems.append(
                        f"{path}: {split} label {lab} not split evenly over strata: {per}"
                    )
            continue
        for stratum, counts in cells.items():
            per = [counts.get(lab, 0) for lab in labels]
            if max(per, default=0) - min(per, default=0) > 1:
                problems.append(f"{path}: {split} stratum {stratum!r} unbalanced: {per}")


def _check_keys(path: Path, entry: dict[str, Any], problems: list[str]) -> None:
    seen: dict[str, str] = {}
    for split, keys in (entry.get("keys") or {}).items():
        for key in keys:
            other = seen.setdefault(fold_key(key), split)  # keys are compared case-folded
            if other != split:
                problems.append(f"{path}: key {key!r} occurs in {other} and {split}")


def _check_provenance(
    path: Path, rows: list[tuple[str, str, str]], entry: dict[str, Any], problems: list[str]
) -> None:
    try:
        lines = path.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    except OSError as e:
        problems.append(f"{path}: cannot read: {e.strerror or e}")
        return
    if len(lines) != len(rows):
        problems.append(f"{path}: {len(lines)} lines, task file has {len(rows)}")
        return
    key_split: dict[str, str] = {}
    for i, (line, (split, label, _)) in enumerate(zip(lines, rows, strict=True), 1):
        cols = line.split("\t")
        if len(cols) != 6 or cols[0] != split or cols[1] != label:
            problems.append(f"{path}:{i}: not aligned with the task file")
            continue
        if entry.get("keys") is not None and cols[5] != "_":
            other = key_split.setdefault(fold_key(cols[5]), split)
            if other != split:
                problems.append(f"{path}:{i}: key {cols[5]!r} in {other} and {split}")

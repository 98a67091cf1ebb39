"""Refuse probing input that would give a wrong number that looks right.

Each check either raises :class:`~xprobe.errors.XProbeError` (one line: file, place, what was
expected) or logs a warning, as fits what it finds:

* :func:`check_folder`: a SentEval-layout folder without ``manifest.json``. ``extract`` writes
  the manifest last, so a folder that also holds ``extract``'s own by-products (provenance
  files, ``.tmp`` files of a killed atomic write, a ``.stdin.*`` spool) is an unfinished
  extraction: an **error** (its files may mix two runs). Without such traces it may be a
  hand-made or SentEval folder, which is legitimate: a **warning**. A task file whose SHA-256
  differs from the manifest's (edited after extraction) is a warning too.
* :func:`check_labels`: a label of the test split that never occurs in training can never be
  predicted, and is nearly always a typo or a line from another task: an **error**. A label seen
  only in validation costs every candidate of the model selection equally and leaves the test
  score alone: a **warning**.
* :func:`check_one_class`: a test or validation split with a single class (the original X-Probe
  Turkish ``obj_number/te.txt`` is all ``Plur``) makes accuracy say only how often a probe
  predicts that class (the majority baseline scores 0 or 100) and makes model selection
  meaningless: an **error** unless asked for (``--allow-one-class``), then a **warning** and a
  ``one_class`` field in every record of the task, which the report flags.
* :func:`check_npy_rows`: an ``npy:`` matrix must have exactly one row per sentence of the task
  file(s). Fewer rows cannot be aligned; more rows mean the array belongs to another file or
  version (or holds a header row), and every sentence would silently get its neighbour's
  vector: both are **errors** naming the two counts.
* :func:`check_finite`: NaN or infinite embeddings (one NaN drives the classifier to chance) are
  an **error** naming the encoder, the split, the sentence and its line in the task file.
"""

from __future__ import annotations

import json
import logging
import os
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.encoders.spec import NpyEmbeddings
from xprobe.errors import XProbeError
from xprobe.files import read_lines
from xprobe.probe.datasets import ProbingSet

__all__ = [
    "check_finite",
    "check_folder",
    "check_labels",
    "check_npy",
    "check_npy_rows",
    "check_one_class",
    "check_sets",
    "locate_row",
]

log = logging.getLogger(__name__)

_SPLIT_NAMES = {"tr": "training", "va": "validation", "te": "test"}


def check_sets(
    data_dir: str | os.PathLike[str],
    sets: list[ProbingSet],
    unscorable: dict[str, tuple[str, str, str]] | None = None,
) -> list[ProbingSet]:
    """The sets to score: the folder checked (:func:`check_folder`), validation and test
    sentences seen in training removed (:mod:`xprobe.probe.overlap`), each set's labels checked
    (:func:`check_labels`). A task left without any is dropped; ``unscorable`` (when given)
    receives ``{file: (task, reason, "corpus")}`` for each, so that it is recorded as n/a (of
    kind ``corpus``: the data leaves nothing to score), not lost."""
    from xprobe.probe.overlap import remove_train_overlap, train_overlap_reason

    check_folder(data_dir, sets)
    kept = []
    for ps in sets:
        left = remove_train_overlap(ps)
        if left is not None:
            kept.append(left)
        elif unscorable is not None:
            unscorable[ps.file] = (ps.task, train_overlap_reason(ps), "corpus")
    if not kept:
        raise XProbeError(f"{data_dir}: no task left to score (see the warnings above)")
    for ps in kept:
        check_labels(ps)
    return kept


def check_folder(data_dir: str | os.PathLike[str], sets: list[ProbingSet]) -> None:
    """Refuse an unfinished extraction; warn about a folder without manifest or edited files."""
    d = Path(data_dir)
    if not sets or not all(Path(ps.source).is_file() for ps in sets):
        return  # the X-Probe layout (task folders) has no manifest
    manifest = d / "manifest.json"
    if not manifest.is_file():
        traces = sorted(p.name for p in d.iterdir() if _extract_trace(p.name))
        if traces:
            raise XProbeError(
                f"{d}: no manifest.json, but {', '.join(traces[:3])} "
                f"{'is' if len(traces) == 1 else 'are'} there: an unfinished extraction "
                "(extract writes manifest.json last; its files may mix two runs); rerun the "
                "same extract command to finish it"
            )
        log.warning(
            "%s: no manifest.json; if this folder comes from xprobe extract, the extraction did "
            "not finish (rerun it); probing it as hand-made SentEval files",
            d,
        )
        return
    _check_digests(manifest, sets)


def _extract_trace(name: str) -> bool:
    """A file only ``extract`` leaves: provenance, a killed atomic write, a stdin spool."""
    return name.endswith((".tmp", ".provenance.tsv")) or name.startswith(".stdin.")


def _check_digests(manifest: Path, sets: list[ProbingSet]) -> None:
    try:
        tasks: dict[str, Any] = json.loads(manifest.read_text(encoding="utf-8")).get("tasks", {})
    except (ValueError, AttributeError):
        return  # dir_language has already refused an unreadable manifest
    for ps in sets:
        entry = tasks.get(ps.file)
        sha = entry.get("sha256") if isinstance(entry, dict) else None
        if sha and Path(ps.source).suffix == ".txt" and sha != ps.sha256:
            log.warning(
                "%s: content differs from %s (edited after extraction?)", ps.source, manifest
            )


def check_labels(ps: ProbingSet) -> None:
    """Error for a test label never seen in training; warning for a validation-only one."""
    train = set(ps.labels_of.get("tr", ()))
    for split in ("te", "va"):
        unseen = Counter(x for x in ps.labels_of.get(split, ()) if x not in train)
        if not unseen:
            continue
        lab, n = sorted(unseen.items())[0]
        more = f" (and {len(unseen) - 1} more labels)" if len(unseen) > 1 else ""
        msg = (
            f"{ps.source}: label {lab!r}{more} occurs in the {_SPLIT_NAMES[split]} split "
            f"({n} sentence{'s' if n != 1 else ''}) but never in the training split (splits: "
            f"{ps.protocol}): no classifier "
            "can predict it (a typo, lines of another task, or a starved training split?)"
        )
        if split == "te":
            raise XProbeError(msg)
        log.warning("%s", msg)


def check_one_class(ps: ProbingSet, allow: bool = False) -> dict[str, str]:
    """``{split: label}`` for the test/validation splits that hold one class only (empty when
    none); an error unless ``allow``, then a warning."""
    found = {}
    for split in ("te", "va"):
        labels = Counter(ps.labels_of.get(split, ()))
        if len(labels) == 1:
            ((lab, n),) = labels.items()
            found[split] = lab
            msg = (
                f"{ps.source}: the {_SPLIT_NAMES[split]} split holds one class only ({lab!r}, "
                f"{n} sentence{'s' if n != 1 else ''}; splits: {ps.protocol}): accuracy on it "
                f"says only how often a probe predicts {lab!r} (the majority baseline scores 0 "
                "or 100)"
            )
            if not allow:
                raise XProbeError(
                    f"{msg}; use --allow-one-class to probe it anyway (records and report flag "
                    "it), or --tasks to leave the task out"
                )
            log.warning("%s; probed as asked (--allow-one-class), flagged in the records", msg)
    return found


def check_npy(enc: NpyEmbeddings, ps: ProbingSet) -> None:
    """:func:`check_npy_rows` for the array ``enc`` holds for ``ps``'s task file."""
    path = enc.path / f"{ps.file}.npy" if enc.path.is_dir() else enc.path
    check_npy_rows(path, int(enc.array(ps.file).shape[0]), ps)


def check_npy_rows(path: Path, rows: int, ps: ProbingSet) -> None:
    """Refuse an ``npy:`` array whose row count differs from the task file's sentence count."""
    if rows != ps.n_rows:
        cause = "more: another file or version?" if rows > ps.n_rows else "fewer"
        raise XProbeError(
            f"{path}: {rows} rows, but {ps.source} has {ps.n_rows} sentences ({cause}); the "
            "array must be aligned with the task file: one row per sentence, in file order"
        )


def check_finite(x: np.ndarray, encoder: str, ps: ProbingSet, split: str) -> None:
    """Refuse embeddings with a NaN or infinite value, naming the first sentence that has one."""
    # a row sum in float64 is finite exactly when every value is (no float32 value overflows
    # it), and needs n floats of memory instead of an n x dim boolean array
    ok = np.isfinite(x.sum(axis=1, dtype=np.float64))
    if ok.all():
        return
    bad = np.flatnonzero(~ok)
    i = int(bad[0])
    kind = "NaN" if np.isnan(x[i]).any() else "infinite"
    text = " ".join(ps.tokens[split][i])
    raise XProbeError(
        f"encoder {encoder}: the embedding of {_SPLIT_NAMES[split]} sentence {i + 1} "
        f"({locate_row(ps, int(ps.rows[split][i]))}: {text[:80]!r}) is {kind}; {len(bad)} of "
        f"{len(x)} {_SPLIT_NAMES[split]} embeddings are not finite: the encoder is broken for "
        "this input; nothing was recorded"
    )


def locate_row(ps: ProbingSet, row: int) -> str:
    """``FILE, line N`` of a sentence given its row (re-reads the file: for error messages)."""
    src = Path(ps.source)
    files = [src] if src.is_file() else [src / f"{s}.txt" for s in ("tr", "va", "te")]
    seen = 0
    for f in files:
        if not f.is_file():
            continue
        for lineno, line in read_lines(f):
            if line.strip():
                if seen == row:
                    return f"{f}, line {lineno}"
                seen += 1
    return f"{ps.source}, row {row + 1}"

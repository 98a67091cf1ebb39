"""Notes on the data behind the tables, from record fields: what a reader must know.

* ``overlap_removed``: validation/test sentences that also occurred in the training split were
  removed before scoring (:mod:`xprobe.probe.overlap`); the note gives how many of how many.
* ``one_class``: a test or validation split that holds one class only (probed with
  ``--allow-one-class``): its accuracy says only how often a probe predicts that class.
* ``vocab_coverage``: an encoder whose word vectors cover less than 95% of a task's tokens
  skipped the rest when encoding (:mod:`xprobe.probe.coverage`).

Example::

    sections += data_notes(records)   # [] when there is nothing to say
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from xprobe.probe.coverage import WARN_BELOW
from xprobe.report.md import escape

__all__ = ["data_notes"]


def data_notes(records: Iterable[dict[str, Any]]) -> list[str]:
    """The report section "Notes on the data" as a one-item list, or [] when nothing to note."""
    overlap: dict[tuple, str] = {}
    coverage: dict[tuple, str] = {}
    for r in records:
        if r.get("split") != "test":
            continue
        where = f"{r['dataset']} / {r['language']} / {r['task']}"
        if r.get("one_class"):
            overlap[(where, "one_class")] = _one_class_note(where, r["one_class"])
        removed = r.get("overlap_removed") or {}
        te, va = int(removed.get("te", 0)), int(removed.get("va", 0))
        if te or va:
            overlap[(where,)] = (
                f"- {where}: {te} of {r['n_test'] + te} test sentences (and {va} validation "
                "sentences) also occurred in the training split and were removed before scoring"
            )
        cov = r.get("vocab_coverage")
        if cov and cov.get("tokens") and cov["tokens_found"] / cov["tokens"] < WARN_BELOW:
            rate = 100 * cov["tokens_found"] / cov["tokens"]
            types = 100 * cov["types_found"] / max(1, cov["types"])
            coverage[(r["encoder"], where)] = (
                f"- {r['encoder']} on {where}: {rate:.1f}% of tokens ({types:.1f}% of types) "
                "have a word vector; the other words were skipped when encoding"
            )
    if not overlap and not coverage:
        return []
    lines = ["## Notes on the data\n"]
    lines += [overlap[k] for k in sorted(overlap)]
    lines += [coverage[k] for k in sorted(coverage)]
    return ["\n".join(lines) + "\n"]


def _one_class_note(where: str, one_class: dict[str, str]) -> str:
    names = {"te": "test", "va": "validation"}
    splits = " and ".join(
        f"{names.get(k, k)} ('{escape(str(v))}')" for k, v in sorted(one_class.items())
    )
    return (
        f"- {where}: one class only in the {splits} split; accuracy there says only how often "
        "a probe predicts that class (a majority baseline scores 0 or 100), not what the "
        "representation encodes (probed with --allow-one-class)"
    )

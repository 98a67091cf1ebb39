"""Sentences of the test (and validation) split that also occur in training are not scored.

A classifier tested on sentences it was trained on measures memory, not what the embedding
encodes. xprobe's own extraction never repeats a sentence across splits, but other sets do:
X-Probe's released ``tree_depth/te.txt`` is a byte copy of ``va.txt`` (and the harness trains on
``va`` when there is no ``tr``), and its ``odd_man_out`` shares several hundred sentences between
``va`` and ``te``. :func:`remove_train_overlap` drops every validation and test sentence whose
tokens equal a training sentence's, and records how many in ``ProbingSet.overlap_removed``
(copied into every result record as ``overlap_removed``, and stated in the report). A task with
nothing left to validate or test on is not scored.

Example::

    ps = remove_train_overlap(ensure_train(read_xprobe_task("xprobe/en/odd_man_out")))
    ps.overlap_removed    # {'va': 467, 'te': 472}
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np

from xprobe.probe.datasets import ProbingSet

__all__ = ["remove_train_overlap", "train_overlap_reason"]

log = logging.getLogger(__name__)


def remove_train_overlap(ps: ProbingSet) -> ProbingSet | None:
    """``ps`` without the va/te sentences that occur in tr; None when va or te becomes empty."""
    train = set(ps.tokens.get("tr", ()))
    tokens, labels, rows = dict(ps.tokens), dict(ps.labels_of), dict(ps.rows)
    removed = {}
    for split in ("te", "va"):
        keep = np.array([s not in train for s in ps.tokens[split]], dtype=bool)
        removed[split] = int((~keep).sum())
        if removed[split]:
            tokens[split] = [s for s, k in zip(ps.tokens[split], keep, strict=True) if k]
            labels[split] = [x for x, k in zip(ps.labels_of[split], keep, strict=True) if k]
            rows[split] = ps.rows[split][keep]
    if removed["te"] or removed["va"]:
        log.warning(
            "%s: %d of %d test sentences (and %d of %d validation sentences) also occur in the "
            "training split (%s): removed before scoring, counted in the records",
            ps.source, removed["te"], ps.size("te"), removed["va"], ps.size("va"), ps.protocol,
        )  # fmt: skip
    if not tokens["te"] or not tokens["va"]:
        log.warning(
            "%s: %s not scored: every %s sentence also occurs in the training split",
            ps.source, ps.task, "test" if not tokens["te"] else "validation",
        )  # fmt: skip
        return None
    return replace(
        ps, tokens=tokens, labels_of=labels, rows=rows, overlap_removed=removed, _index={}
    )


def train_overlap_reason(ps: ProbingSet) -> str:
    """Why :func:`remove_train_overlap` left ``ps`` nothing to score (its n/a reason)."""
    train = set(ps.tokens.get("tr", ()))
    for split, name in (("te", "test"), ("va", "validation")):
        n, m = sum(s in train for s in ps.tokens[split]), len(ps.tokens[split])
        if n == m:
            return (f"{n} of {m} {name} sentences also occur in the training split: "
                    "nothing left to score")  # fmt: skip
    return "no test or validation sentence left after removing those seen in training"

"""Evaluation protocols: the splits as written, or K-fold cross-validation over every line.

A probing file has ``tr``, ``va`` and ``te`` splits. ``tr/va/te`` (the default) trains on ``tr``,
selects on ``va`` and scores ``te``: only the test lines are ever scored. ``cv:K`` pools the three
splits and deals every line to one of K folds (grouped: a source sentence and a task's lexical
key never sit in two folds; stratified by label); fold k is scored by a probe trained on the
other folds but one and selected on that one (nested: model selection never reads a test
item), so every line is scored exactly once (:mod:`xprobe.probe.folds`).

A cross-validated cell is worth filling when it can measure something (:func:`cv_floor`):

* its 95 % interval at 50 % accuracy is at most :data:`MAX_HALF_WIDTH` (10 points) wide on each
  side, the precision the 100 test lines of the fixed-split floor gave: :func:`min_items` = 97
  lines. No filled cell is less precise than a cell the old floor accepted;
* every class has at least K lines, so that stratified folds can give every fold one line of
  each class, and every fold's training side (K - 2 folds) holds each class (the rule of
  stratified K-fold, e.g. scikit-learn's ``StratifiedKFold``).

Both are properties of the data (its size and its rarest class), not of any treebank.

Example::

    >>> p = parse_protocol("cv:10")
    >>> str(p), p.folds
    ('cv:10', 10)
    >>> min_items()
    97
    >>> round(half_width(400), 4)
    0.049
    >>> cv_shortfall({"O": 40, "I": 40}, 10)
    'needs 97 balanced lines for cv:10 (a 95 % interval of at most +/-10 points at 50 %), 80 found'
    >>> cv_shortfall({str(i): 9 for i in range(11)}, 10)
    'needs 110 balanced lines for cv:10 (10 lines of each of 11 classes, one per fold), 99 found'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from xprobe.errors import XProbeError

__all__ = [
    "DEFAULT_FOLDS",
    "MAX_HALF_WIDTH",
    "SPLITS_PROTOCOL",
    "Protocol",
    "cv_floor",
    "cv_shortfall",
    "half_width",
    "min_items",
    "parse_protocol",
]

SPLITS_PROTOCOL = "tr/va/te"
DEFAULT_FOLDS = 10
MIN_FOLDS, MAX_FOLDS = 3, 100  # 3: a training, a validation and a test fold
MAX_HALF_WIDTH = 0.10  # 95 % half-width at 50 % accuracy: what 100 test lines gave (9.8 points)
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Protocol:
    """How a probing set is scored: ``folds`` None for the splits as written, else K."""

    folds: int | None = None

    @property
    def cv(self) -> bool:
        return self.folds is not None

    def __str__(self) -> str:
        return SPLITS_PROTOCOL if self.folds is None else f"cv:{self.folds}"


def parse_protocol(text: str | Protocol | None) -> Protocol:
    """``tr/va/te`` (or ``splits``), ``cv`` (:data:`DEFAULT_FOLDS` folds) or ``cv:K``."""
    if isinstance(text, Protocol):
        return text
    t = (text or SPLITS_PROTOCOL).strip().lower()
    if t in (SPLITS_PROTOCOL, "splits"):
        return Protocol()
    if t == "cv":
        return Protocol(DEFAULT_FOLDS)
    head, _, k = t.partition(":")
    if head == "cv" and k.isdigit() and MIN_FOLDS <= int(k) <= MAX_FOLDS:
        return Protocol(int(k))
    raise XProbeError(
        f"protocol {text!r}: expected tr/va/te (the splits as written), cv ({DEFAULT_FOLDS} "
        f"folds) or cv:K with K from {MIN_FOLDS} to {MAX_FOLDS} (e.g. cv:10)"
    )


def half_width(n: int, p: float = 0.5) -> float:
    """The 95 % normal-approximation half-width of an accuracy ``p`` measured on ``n`` items
    (at 50 %: the smallest difference from chance a cell of ``n`` items can resolve)."""
    return Z95 * math.sqrt(p * (1 - p) / n) if n > 0 else math.inf


def min_items(max_half_width: float = MAX_HALF_WIDTH) -> int:
    """The fewest items whose 95 % half-width at 50 % is at most ``max_half_width``."""
    return math.ceil((Z95 * 0.5 / max_half_width) ** 2 - 1e-9)


def cv_floor(n_classes: int, folds: int) -> tuple[int, int]:
    """(lines, lines per class) a task needs to be filled under ``cv:folds``."""
    return max(min_items(), folds * n_classes), folds


def cv_shortfall(per_class: Mapping[str, int], folds: int) -> str | None:
    """Why a task whose balanced lines hold ``per_class`` (label -> lines) cannot be filled
    under ``cv:folds``, with the numbers that would fill it; None when it can."""
    total, classes = sum(per_class.values()), max(1, len(per_class))
    need_total, need_class = cv_floor(classes, folds)
    if total < need_total:
        why = (
            f"a 95 % interval of at most +/-{MAX_HALF_WIDTH * 100:.0f} points at 50 %"
            if need_total == min_items()
            else f"{folds} lines of each of {classes} classes, one per fold"
        )
        return f"needs {need_total} balanced lines for cv:{folds} ({why}), {total} found"
    label, least = min(per_class.items(), key=lambda kv: (kv[1], kv[0]))
    if least < need_class:
        return (
            f"needs {need_class} lines of every class for cv:{folds} (one per fold), class "
            f"{label} has {least}"
        )
    return None

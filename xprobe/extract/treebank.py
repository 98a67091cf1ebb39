"""Treebank mode (``xprobe extract --treebank``): every task sized from what a small corpus fills.

A gold treebank holds a few thousand sentences. Fixed ``--sizes`` for all tasks then either ask
for more than the rare tasks can fill or give every task the same tiny test split, and tasks on
disjoint sentences starve the rare ones. Treebank mode instead:

* reads every sentence of every file given: the common length window keeps its lower bound
  (shorter sentences are fragments and headings; the tasks' rules assume it), but its upper
  bound is lifted to the longest sentence of the input, except for the tasks whose rule reads
  length bins that end at it (SentLen, TreeDepth: their last bin would otherwise grow without
  end). ``--max-tokens`` given on the command line still holds for every task. The frequency
  windows of the lexical tasks are kept (per million tokens on a treebank, ``--windows auto``):
  they are part of those tasks' rules and keep one frequent word from filling a split;
* lets tasks share source sentences (``exclusive`` off). Within a task nothing changes: a
  sentence and a lexical key are in one split only, classes are balanced per split and stratum;
* sizes each task on its own: all the lines its balanced candidates can fill, split in the
  ratio ``ratio`` (default 80/10/10), at most ``sizes`` per split (default 100000/10000/10000,
  beyond any treebank's task);
* gives a task whose test split would hold fewer than ``min_test`` lines (default 100), or fewer
  than two per class, at that ratio ``min_test`` test lines (validation in the ratio's
  proportion to test) if training still keeps at least as many lines as those two together
  (:func:`floor_fit`); otherwise the task is not applicable, kind ``corpus``, its counts in the
  reason (:func:`xprobe.extract.applicable.below_min_test`), rather than written with a split
  too small to measure anything on.

Under ``--protocol cv:K`` (``ExtractConfig.protocol``) every line of a task file is scored once
(the probe deals tr+va+te into K folds, :mod:`xprobe.probe.folds`), so the test split is not
what is measured and there is no ``min_test`` floor: each task keeps every balanced line its
ratio fit takes, and is n/a (kind ``corpus``) exactly when :func:`xprobe.protocol.cv_shortfall`
says so (:func:`xprobe.extract.applicable.below_cv_floor`: at least 97 lines, a 95 % interval of
at most +/-10 points at 50 %, and K lines of every class). Provenance is always written.

The manifest's ``treebank`` entry records the mode, the ratio, the minimum (under ``cv:K``: the
``protocol`` and the ``floor``), the length windows and the sizes chosen per task (also each
task entry's ``sizes``). Same inputs and seed give the same bytes.

Example::

    >>> run_sizes((80, 10, 10), (100_000, 10_000, 10_000))
    (80000, 10000, 10000)
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from xprobe.errors import XProbeError
from xprobe.extract.length import LengthPlan, length_counts
from xprobe.extract.select import SHARED, TaskResult, TaskRun, _available, _fill
from xprobe.extract.shrink import rebalance_keys
from xprobe.protocol import MAX_HALF_WIDTH, SPLITS_PROTOCOL, min_items, parse_protocol

__all__ = [
    "DEFAULT_RATIO",
    "TreebankWindow",
    "binned",
    "cv_entry",
    "floor_fit",
    "manifest_entry",
    "run_sizes",
    "settle",
    "validate",
    "window",
]

log = logging.getLogger(__name__)

DEFAULT_RATIO = (80, 10, 10)


def validate(ratio: Sequence[int], min_test: int) -> None:
    """A ratio of three non-negative numbers with training and test shares, and ``min_test``
    of at least one line."""
    if len(ratio) != 3 or any(n < 0 for n in ratio) or not ratio[0] or not ratio[2]:
        raise XProbeError(
            f"treebank ratio must be three non-negative numbers TR,VA,TE with TR and TE above "
            f"0, got {tuple(ratio)}"
        )
    if min_test < 1:
        raise XProbeError(f"--min-test must be at least 1, got {min_test}")


def run_sizes(ratio: Sequence[int], caps: Sequence[int], min_test: int = 0) -> tuple[int, int, int]:
    """The largest sizes in proportion to ``ratio`` that stay within ``caps`` per split (each
    rounded down): what every task's pools are sized for and shrunk from
    (:mod:`xprobe.extract.shrink`). Raises when they leave no room for ``min_test`` lines."""
    for split, r, c in zip(("tr", "va", "te"), ratio, caps, strict=True):
        if r and not c:
            raise XProbeError(
                f"--sizes allows no {split} line, but --ratio gives {split} a share: raise it"
            )
    scale = min(Fraction(c, r) for r, c in zip(ratio, caps, strict=True) if r)
    tr, va, te = (math.floor(r * scale) for r in ratio)
    if te < min_test:
        raise XProbeError(
            f"--min-test {min_test} is more than the {te} test lines --sizes "
            f"{','.join(map(str, caps))} allow at --ratio {','.join(map(str, ratio))}"
        )
    return tr, va, te


@dataclasses.dataclass(frozen=True)
class TreebankWindow:
    """The token windows of treebank mode: ``binned`` for the tasks whose length bins end at the
    common maximum, ``lo..longest`` for every other task."""

    lo: int
    binned: int
    longest: int
    lifted: bool  # False: --max-tokens was given and holds for every task

    def manifest(self) -> dict[str, Any]:
        return {
            "min_tokens": self.lo,
            "max_tokens": self.longest,
            "max_tokens_length_binned": self.binned,
            "upper_bound_lifted": self.lifted,
        }


def window(length: LengthPlan, given_max: int | None, paths: Sequence[str]) -> TreebankWindow:
    """The windows for ``length`` (the plan of :mod:`xprobe.extract.length`): the upper bound
    lifted to the longest sentence of ``paths`` unless ``--max-tokens`` was given."""
    if given_max is not None:
        return TreebankWindow(length.min_tokens, length.max_tokens, length.max_tokens, False)
    longest = max(length_counts(paths), default=length.max_tokens)
    return TreebankWindow(
        length.min_tokens, length.max_tokens, max(longest, length.max_tokens), True
    )


def binned(params: Any) -> bool:
    """Whether a task's rule reads length bins whose last bin ends at the common maximum."""
    return hasattr(params, "bins") or hasattr(params, "length_bins")


def settle(results: list[TaskResult], ratio: Sequence[int], min_test: int | None) -> None:
    """Make each task's shrunk sizes its sizes: in treebank mode a task takes what its balanced
    candidates fill, which is not a shortfall; a task whose test split falls below ``min_test``
    (or two lines per class) gets the floor instead where it can (:func:`floor_fit`).
    ``min_test`` None (``cv:K``: every line is scored, not the test split): no floor, each task
    keeps what its ratio fit took. Changed in place."""
    for r in results:
        if r.shrunk is not None:
            r.run.sizes = r.shrunk
            r.shrunk = None
        r.shortfalls = []
        if min_test is None:
            continue
        need = max(min_test, 2 * len(r.run.labels))
        if len(r.picked[2]) < need:
            floor_fit(r, ratio, need)


def floor_fit(res: TaskResult, ratio: Sequence[int], need: int) -> bool:
    """Refill a task with ``need`` test lines (validation in the ratio's proportion to test)
    and the rest, the most that fits, for training, if training then keeps at least as many
    lines as validation and test together; returns whether it did (else it is left as it
    was, and its test split too small: n/a)."""
    run = res.run
    te = need
    va = math.ceil(need * ratio[1] / ratio[2])
    balanced = sum(map(len, res.picked))  # what the ratio fit took: the scarcest label's share
    if balanced < 2 * (va + te):
        return False
    lost = run.lost
    pooled, _ = _available(run, set(), set())  # treebank mode: no other task takes any
    run.lost = lost
    keyed = any(s != SHARED for s, _, _ in pooled)
    for spare in (1.0, 1.25, 1.5, 2.0):  # keys are lumpy: deal va and te more when short
        pools = pooled
        if keyed:
            deal = (balanced - spare * (va + te), spare * va, spare * te)
            pools = rebalance_keys(pooled, deal, SHARED)
        best = _most_training(run, pools, va, te)
        if best is not None or not keyed:
            break
    if best is None:
        return False
    res.picked, _ = _fill(run, pools, (best, va, te))
    run.sizes = (best, va, te)
    log.info("%s: %d test lines (--min-test), %d training lines", run.spec.name, te, best)
    return True


def cv_entry(folds: int) -> dict[str, Any]:
    """The floor of a ``cv:K`` extraction: a task needs ``lines`` balanced lines (or
    ``per_class`` times its classes, where more) and ``per_class`` lines of every class
    (:func:`xprobe.protocol.cv_floor`)."""
    return {
        "protocol": f"cv:{folds}",
        "floor": {"lines": min_items(), "per_class": folds, "max_half_width": MAX_HALF_WIDTH},
    }


def _most_training(run: TaskRun, pools: dict, va: int, te: int) -> int | None:
    """The most training lines that fit beside ``va`` and ``te`` (at least ``va + te``; binary
    search, the best seen kept), or None."""
    lo, hi, best = va + te, sum(map(len, pools.values())) - va - te, None
    while lo <= hi:
        mid = (lo + hi) // 2
        if _fill(run, pools, (mid, va, te), dry=True)[1]:
            hi = mid - 1
        else:
            best, lo = mid, mid + 1
    return best


def manifest_entry(
    ratio: Sequence[int],
    min_test: int,
    caps: Sequence[int],
    win: TreebankWindow,
    results: list[TaskResult],
    protocol: str = SPLITS_PROTOCOL,
) -> dict[str, Any]:
    """The manifest's ``treebank`` entry (per-task sizes of the tasks run, before any is found
    not to apply). Under ``cv:K`` it records the protocol and the floor (:func:`cv_entry`)
    instead of ``min_test``; under ``tr/va/te`` it is as it always was."""
    folds = parse_protocol(protocol).folds
    floor = {"min_test": min_test} if folds is None else cv_entry(folds)
    return {
        "ratio": list(ratio),
        **floor,
        "max_sizes": dict(zip(("tr", "va", "te"), caps, strict=True)),
        "length": win.manifest(),
        "task_sizes": {
            r.run.spec.file: dict(zip(("tr", "va", "te"), map(len, r.picked), strict=True))
            for r in results
        },
    }

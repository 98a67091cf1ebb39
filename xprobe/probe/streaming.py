"""Layers streamed in blocks: probing a model whose layers do not fit in memory together.

The layer-wise probe (:func:`xprobe.probe.layerwise.train_select_layers`) trains every layer of a
task at once, so it holds every layer's train, validation and test features: for a 33-layer
4096-d model at 120k sentences that is 65 GB. With a block of ``B`` layers
(``xprobe probe --layer-block B``) the layers are read from the embedding cache ``B`` at a time,
probed, and let go: peak memory is one block's features plus the solver's state.

The records are those of the all-at-once path. The converged ``lr`` probe solves every layer as
if alone (one L-BFGS history, step and stopping test per layer and grid point,
:mod:`xprobe.probe.lbfgs`), so a layer's solution does not depend on the layers beside it, given
the same number of L-BFGS pairs: that number is set from the size of the whole problem (every
layer), as the all-at-once path sets it. ``iterations_joint`` (the iterations of the joint
solve, until the last layer stopped) is the largest over the blocks, which is the joint one.
The MLP trains each layer's models as ``train_select`` would for the layer alone (up to float
rounding of the batched products).

When no block is given (``--layer-block``), :func:`plan_blocks` chooses: every layer at once
when the features of every layer (train, validation and test, float32) fit the memory budget
(``--memory-budget``; default: half the memory available when the task starts, from
``/proc/meminfo``), else blocks of as many layers as the budget holds, read memory-mapped from
the cache (:mod:`xprobe.probe.cache_stream` writes every layer there first, never holding them
all); the choice is logged. Either way the records are the same.

Example::

    for block in layer_blocks((0, 1, 2, 3, 4), 2):   # (0, 1), (2, 3), (4,)
        ...
    plan_blocks((0, 1, 2), [2 << 30] * 3, None, 5 << 30)   # [(0, 1), (2,)]
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any

__all__ = [
    "available_memory",
    "joint_history",
    "joint_iterations",
    "layer_blocks",
    "parse_size",
    "plan_blocks",
]

log = logging.getLogger(__name__)
GB = 1 << 30


def layer_blocks(layers: Sequence[Any], block: int | None) -> list[tuple[Any, ...]]:
    """``layers`` in consecutive blocks of at most ``block`` (None or 0: one block of all)."""
    layers = tuple(layers)
    if not block or block >= len(layers):
        return [layers]
    return [layers[i : i + block] for i in range(0, len(layers), block)]


def joint_history(widths: Sequence[int], n_points: int, n_classes: int) -> int:
    """The L-BFGS pairs the all-at-once ``lr`` solve of layers of ``widths`` keeps."""
    from xprobe.probe.convex import lbfgs_history

    k = 1 if n_classes == 2 else n_classes
    return lbfgs_history(sum((d + 1) * n_points * k for d in widths))


def joint_iterations(results: dict[Any, tuple]) -> dict[Any, tuple]:
    """Per layer ``(dev, test, hyperparameters, correct)`` with the joint count
    (``iterations_joint``/``epochs_joint``) set to the largest over every block."""
    out = dict(results)
    for key in ("iterations_joint", "epochs_joint"):
        counts = [r[2][key] for r in out.values() if key in r[2]]
        if counts:
            top = max(counts)
            out = {k: (r[0], r[1], {**r[2], key: top} if key in r[2] else r[2], r[3])
                   for k, r in out.items()}  # fmt: skip
    return out


def available_memory() -> int:
    """Bytes of memory available now (``MemAvailable`` in ``/proc/meminfo``; elsewhere the
    physical memory)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (OSError, ValueError, AttributeError):
        return 8 * GB


def plan_blocks(
    layers: Sequence[Any], layer_bytes: Sequence[int], block: int | None, budget: int | None,
    what: str = "",
) -> list[tuple[Any, ...]]:  # fmt: skip
    """Blocks of ``layers`` probed together: ``block`` layers when given, else every layer when
    their features (``layer_bytes``, one per layer) fit ``budget`` (None: half of
    :func:`available_memory`), else as many as the budget holds (at least one). Logged."""
    if block:
        return layer_blocks(layers, block)
    total = sum(layer_bytes)
    budget = budget if budget is not None else available_memory() // 2
    if total <= budget:
        log.debug("%s: %d layers at once (%s of features, memory budget %s)",
                  what, len(layers), _size(total), _size(budget))  # fmt: skip
        return layer_blocks(layers, None)
    fit = max(1, int(budget // max(max(layer_bytes), 1)))
    log.info("%s: the features of %d layers (%s) exceed the memory budget (%s): streamed %d "
             "layer(s) at a time from the memory-mapped cache (--layer-block, --memory-budget "
             "to choose)", what, len(layers), _size(total), _size(budget),
             min(fit, len(layers)))  # fmt: skip
    return layer_blocks(layers, fit)


def _size(n: int) -> str:
    return f"{n / GB:.2f} GB" if n >= GB else f"{n / (1 << 20):.2f} MB"


def parse_size(text: str) -> int:
    """Bytes from ``"8G"``, ``"512M"``, ``"64K"`` or a plain number (binary units); ValueError
    when it is not a positive size."""
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = t[-1:] if t[-1:] in units and t[-1:] else ""
    value = float(t[: len(t) - len(unit)])
    if not value > 0 or value != value or value == float("inf"):
        raise ValueError(f"not a positive size: {text!r}")
    return max(1, int(value * units[unit]))

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

Example::

    for block in layer_blocks((0, 1, 2, 3, 4), 2):   # (0, 1), (2, 3), (4,)
        ...
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["joint_history", "joint_iterations", "layer_blocks"]


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

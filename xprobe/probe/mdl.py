"""Minimum description length probing: the online code (Voita & Titov 2020).

The training set, in a seeded random order, is cut at 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.25, 12.5,
25, 50 and 100% of its size. The first block's labels are sent with the uniform code
(``log2 K`` bits each); every later block is sent with a probe trained on all blocks before it
(same classifier, grid and selection on the validation split as a plain probe): ``-log2 p(y|x)``
bits per item. The sum is the **online codelength**; **compression** = uniform codelength
(``N log2 K``) / online codelength. A representation that makes the labels easy to learn from
few examples gives a short code; shuffled labels give about the uniform codelength.

For ``lr`` under the converged protocol the ten prefix fits share their work: the features are
standardised once, with the statistics of the whole training split (the receiver of an online
code has every input x; only labels are transmitted, so this uses no label it has not seen),
every prefix fit solves all L2 points at once (:mod:`xprobe.probe.convex`) and starts from
the previous prefix's solution (a warm start: the same optimum, fewer iterations; solving all
prefixes in one L-BFGS was measured slower: the joint problem took 6x the iterations). Each
block is coded by its prefix's L2 point with the lowest validation cross-entropy (the code
length is a cross-entropy; an accuracy-selected, barely regularised fit on a few items codes
the next block with overconfident probabilities).

``--classifier mdl-mlp`` / ``mdl-lr`` in ``probe``: the record's ``value`` is the test accuracy
of the probe trained on the whole training set (the plain probe), and ``mdl`` holds the code:
``{"codelength": bits, "uniform": bits, "compression": x, "blocks": [[end, bits], ...]}``.

Example::

    res = online_code(xtr, ytr, xva, yva, n_classes=2, kind="mlp", seed=0)
    res.codelength, res.compression
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xprobe.files import np_rng

__all__ = ["BLOCKS", "MdlResult", "block_ends", "online_code"]

BLOCKS = (0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.0625, 0.125, 0.25, 0.5, 1.0)


@dataclass
class MdlResult:
    codelength: float  # bits
    uniform: float  # bits
    blocks: list[tuple[int, float]] = field(default_factory=list)  # (end of block, its bits)

    @property
    def compression(self) -> float:
        return self.uniform / self.codelength if self.codelength > 0 else float("inf")

    def as_record(self) -> dict[str, Any]:
        return {
            "codelength": round(self.codelength, 3),
            "uniform": round(self.uniform, 3),
            "compression": round(self.compression, 4),
            "blocks": [[int(e), round(b, 3)] for e, b in self.blocks],
        }


def block_ends(n: int, fractions: tuple[float, ...] = BLOCKS) -> list[int]:
    """Increasing block ends (at least 1 item in the first block; duplicates dropped)."""
    ends = sorted({min(n, max(1, round(f * n))) for f in fractions} | {n})
    return [e for e in ends if e > 0]


def online_code(
    xtr: np.ndarray,
    ytr: np.ndarray,
    xva: np.ndarray,
    yva: np.ndarray,
    n_classes: int,
    kind: str = "mlp",
    seed: int = 0,
    grid: str = "default",
    hidden: int = 150,
    config: Any = None,
) -> MdlResult:
    """The online codelength of ``ytr`` given ``xtr`` (see the module docstring)."""
    from xprobe.probe.classifiers import train_select

    n = len(ytr)
    order = np_rng(seed, "mdl-order").permutation(n)
    x, y = np.asarray(xtr)[order], np.asarray(ytr)[order]
    ends = block_ends(n)
    first = ends[0] * math.log2(n_classes)
    blocks = [(ends[0], first)]
    total = first
    protocol = getattr(config, "protocol", "converged")
    if kind == "lr" and protocol == "converged":
        for end, bits in _online_lr(x, y, xva, yva, ends, n_classes, grid, config):
            blocks.append((end, bits))
            total += bits
        return MdlResult(total, n * math.log2(n_classes), blocks)
    for start, end in itertools.pairwise(ends):
        r = train_select(
            x[:start], y[:start], xva, yva, x[start:end], y[start:end], kind=kind, grid=grid,
            seed=seed, n_classes=n_classes, hidden=hidden, config=config,
        )  # fmt: skip
        blocks.append((end, r.test_bits))
        total += r.test_bits
    return MdlResult(total, n * math.log2(n_classes), blocks)


def _online_lr(x, y, xva, yva, ends: list[int], n_classes: int, grid: str, config: Any):
    """(end, bits) of every block after the first: converged lr on each prefix (all L2 points
    at once), warm-started from the previous prefix's solution; each block coded by the point
    with the lowest validation cross-entropy."""
    import torch

    from xprobe.probe.classifiers import TrainConfig, grid_points, resolve_device
    from xprobe.probe.convex import fit_lr
    from xprobe.probe.features import Features, standardisers

    cfg = config or TrainConfig()
    device = resolve_device(cfg.device)
    l2s = [pt.l2 for pt in grid_points("lr", grid)]
    stats = standardisers([x], device) if cfg.standardize else None
    tr, va = Features([x], stats, device), Features([xva], stats, device)
    y_t, yva_t = torch.as_tensor(y, device=device), torch.as_tensor(np.asarray(yva), device=device)
    state = None
    for start, end in itertools.pairwise(ends):
        fit = fit_lr([tr.x[0][:start]], y_t[:start], stats, l2s, n_classes, cfg.tol,
                     cfg.max_iter, state)  # fmt: skip
        state = fit.theta
        sel = int(np.argmin(fit.dev_scores(0, va, yva_t)[1]))
        logits = fit.logits_of(0, Features([tr.x[0][start:end]], stats, device), sel)
        logp = torch.log_softmax(logits.double(), -1).gather(1, y_t[start:end].view(-1, 1))
        yield end, float(-logp.sum().item() / math.log(2))

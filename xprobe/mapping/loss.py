"""The alignment loss of X-Probe section 5.2, with contrastive sentences drawn from the batch.

For a parallel pair the student (target-language) vector ``x`` should match the frozen teacher
(English) vector ``y``, and move away from the vectors of other sentences::

    L = ||x - y||^2 - lambda * (||x_c - y||^2 + ||x - y_c||^2)

Here ``x_c = x[perm]`` and ``y_c = y[perm]`` for a derangement ``perm`` of the batch (no sentence
is its own negative); the loss is averaged over the batch. Ravishankar et al. (2019), following
Conneau et al. (2018, XNLI), use lambda = 0.25.

Why lambda must stay below 1/2: with in-batch negatives every student vector ``x_i`` appears once
as "positive" (weight 1) and twice as a negative (as ``x_i`` against ``y_perm(i)`` and as
``x_c`` against ``y_perm^-1(i)``, weight lambda each). Scaling all student vectors by ``t``, the
``t^2`` term of the summed loss is ``(1 - 2 lambda) sum_i ||x_i||^2``: negative for lambda > 1/2,
so the loss goes to minus infinity as ``t`` grows; at lambda = 1/2 the quadratic term vanishes and
the remaining linear term ``-2t sum_i x_i . (y_i - (y_perm(i) + y_perm^-1(i)) / 2)`` is unbounded
below too. The student is then rewarded for blowing its vectors up, not for matching the teacher.
For lambda < 1/2 the loss is a strictly convex quadratic in the student vectors, minimised at
``x_i = (y_i - lambda (y_perm(i) + y_perm^-1(i))) / (1 - 2 lambda)``.

Example::

    loss = alignment_loss(student_vecs, teacher_vecs, lam=0.25, perm=derangement(len(batch), gen))
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from xprobe.errors import XProbeError

if TYPE_CHECKING:
    import torch

__all__ = [
    "LAMBDA_LIMIT_REASON",
    "alignment_loss",
    "check_lambda",
    "derangement",
    "retrieval_accuracy",
]

LAMBDA_LIMIT_REASON = (
    "with in-batch contrastive sentences each student vector is pulled to its translation with "
    "weight 1 and pushed from two others with weight lambda each, so the quadratic term of the "
    "loss is (1 - 2*lambda)*||x||^2: for lambda >= 0.5 the loss is unbounded below and training "
    "inflates the student's vectors instead of matching the teacher; use 0 <= lambda < 0.5 "
    "(the paper uses 0.25)"
)


def check_lambda(lam: float) -> float:
    """Return ``lam`` when 0 <= lam < 0.5; otherwise raise :class:`XProbeError` explaining why."""
    if math.isnan(lam):
        raise XProbeError(f"lambda = {lam} is not a number; use 0 <= lambda < 0.5 (paper: 0.25)")
    if lam < 0:
        raise XProbeError(
            f"lambda = {lam} is negative: the contrastive terms would then pull each student "
            "vector towards the translations of other sentences instead of away from them; "
            "use 0 <= lambda < 0.5 (the paper uses 0.25; 0 switches the contrastive terms off)"
        )
    if lam >= 0.5:
        raise XProbeError(f"lambda = {lam} is not allowed: {LAMBDA_LIMIT_REASON}")
    return float(lam)


def derangement(n: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """A random permutation of ``range(n)`` with no fixed point: a roll by 1..n-1 places.

    For n = 1 there is no derangement; the identity is returned and the contrastive terms then
    compare the pair with itself (callers use batches of two or more).
    """
    import torch

    if n < 2:
        return torch.zeros(n, dtype=torch.long)
    shift = int(torch.randint(1, n, (1,), generator=generator).item())
    return torch.roll(torch.arange(n), shifts=shift)


def alignment_loss(
    x: torch.Tensor, y: torch.Tensor, lam: float = 0.25, perm: torch.Tensor | None = None
) -> torch.Tensor:
    """Batch mean of ``||x - y||^2 - lam (||x_c - y||^2 + ||x - y_c||^2)``.

    ``x``: student vectors (B, d); ``y``: teacher vectors (B, d), no gradient needed;
    ``perm``: a derangement of ``range(B)`` giving the contrastive rows (default: roll by 1).
    Squared norms are summed over the dimension, not averaged.
    """
    import torch

    check_lambda(lam)
    if x.shape != y.shape:
        raise ValueError(f"student and teacher shapes differ: {tuple(x.shape)} {tuple(y.shape)}")
    if perm is None:
        perm = torch.roll(torch.arange(len(x), device=x.device), shifts=1)
    perm = perm.to(x.device)
    pos = (x - y).pow(2).sum(dim=1)
    if lam == 0.0:
        return pos.mean()
    neg = (x[perm] - y).pow(2).sum(dim=1) + (x - y[perm]).pow(2).sum(dim=1)
    return (pos - lam * neg).mean()


def retrieval_accuracy(queries, keys) -> float:
    """Share of rows ``i`` of ``queries`` whose cosine nearest row of ``keys`` is row ``i``.

    Translation retrieval on held-out parallel pairs: ``queries`` and ``keys`` are (n, d) numpy
    arrays of aligned sentences (chance is 1/n). Zero rows never match anything.
    """
    import numpy as np

    q = np.asarray(queries, dtype=np.float32)
    k = np.asarray(keys, dtype=np.float32)
    q = q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
    k = k / np.maximum(np.linalg.norm(k, axis=1, keepdims=True), 1e-12)
    hits = 0
    for start in range(0, len(q), 1024):
        best = np.argmax(q[start : start + 1024] @ k.T, axis=1)
        hits += int((best == np.arange(start, start + len(best))).sum())
    return hits / max(1, len(q))

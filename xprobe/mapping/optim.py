"""The mapping trainer's optimizer and gradient clipping, made cheap without changing the update.

* :func:`make_optimizer`: Adam; for a transformer student the fused kernel (one pass over all
  parameters instead of a Python loop over ~100 tensors: on a CPU the step of a 22M-parameter
  MiniLM takes a fraction of the loop's time). It is the same algorithm as the plain Adam; only
  floating-point rounding can differ, so the X-Probe students (``bilstm-max``...) keep the plain
  loop and their bytes.
* :func:`clip_gradients`: ``torch.nn.utils.clip_grad_norm_`` without its unconditional
  multiplication of every gradient by the clamped coefficient: when the total norm is already
  within ``max_norm`` that coefficient is exactly 1.0 and the multiplication (a full pass over all
  gradients, as long as the norm itself) changes nothing, so it is skipped. Results are
  byte-identical to ``clip_grad_norm_`` (a NaN or infinite norm still goes through it).

Example::

    opt = make_optimizer(params, lr=2e-5, fused=student.kind == "transformer")
    clip_gradients(params, 5.0)
    opt.step()
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    import torch

__all__ = ["clip_gradients", "make_optimizer"]

log = logging.getLogger(__name__)


def make_optimizer(params: Iterable[torch.Tensor], lr: float, fused: bool) -> torch.optim.Adam:
    """Adam over ``params``; with ``fused`` its fused kernel where the device has one."""
    import torch

    params = list(params)
    if fused:
        try:
            return torch.optim.Adam(params, lr=lr, fused=True)
        except (RuntimeError, ValueError) as e:  # a device or dtype without the fused kernel
            log.info("fused Adam unavailable (%s); using the plain loop", e)
    return torch.optim.Adam(params, lr=lr)


def clip_gradients(params: Iterable[torch.Tensor], max_norm: float) -> float:
    """Clip the gradients of ``params`` to total L2 norm ``max_norm`` exactly as
    ``clip_grad_norm_`` does, leaving them untouched when they are within it; returns the norm."""
    import torch

    params = [p for p in params if p.grad is not None]
    get_total_norm = getattr(torch.nn.utils, "get_total_norm", None)  # torch >= 2.6
    if get_total_norm is None:
        return float(torch.nn.utils.clip_grad_norm_(params, max_norm))
    total = get_total_norm([p.grad for p in params], 2.0)
    norm = float(total)
    if not norm <= max_norm:  # above the limit, NaN or infinite: clip_grad_norm_'s own scaling
        torch.nn.utils.clip_grads_with_norm_(params, max_norm, total)
    return norm

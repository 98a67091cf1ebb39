"""The many-class ``lr`` objective (1,000-class WC): float32 where float64 buys nothing.

:mod:`xprobe.probe.convex` evaluates every (layer, L2) block's loss and gradient in one pass
over the rows. With few columns (``G*K``: grid points x classes) that pass is bound by reading
the rows; with many (5 x 1,000 for WC) it is bound by the elementwise softmax over an
``(rows, G*K)`` array, which the narrow kernel computes in float64 on a transposed (strided)
product. This kernel, used from ``G*K >= WIDE`` columns:

* computes ``x W`` in its natural (row-major) order, so the softmax runs over contiguous rows
  (measured at 2,000 x 128, 5 x 1,000 columns, one thread: 270 ms for the float64
  ``log_softmax`` on the strided array against 120 ms for float32 on a contiguous one);
* keeps the logits, probabilities and residuals in float32 (each row's terms are
  float32-exact to about 1e-7 relative, far below the stopping tests' 1e-4), summing the loss
  and the gradients over chunks in float64, as the narrow kernel does; one softmax per chunk
  (the loss is ``-log p`` of the true class, from ``log_softmax`` where that probability is
  below :data:`TINY`), the bias's gradient a product with ones: 1.22x faster an evaluation
  than ``log_softmax``, ``exp`` and a float64 sum over rows (real WC, 10k x 384, one thread,
  interleaved, 2026-11-29, load 6);
* reads rows in chunks of at most :data:`CHUNK_ELEMS` logits (16 MB), not 16 MB of rows.

When float32 can no longer resolve a block's progress, :meth:`~xprobe.probe.convex._Objective.
refine` switches that input to the narrow kernel's float64 products, as before.

``XPROBE_LR_GRID`` (a comma-separated list of measures, or ``exhaustive`` for none of them)
selects the measures of issue 30 (:func:`enabled`): ``wide`` (this kernel and per-block
evaluation; the default), ``screen`` (a loose fit of every grid point, then only the
candidates solved to the certified optimum) and ``path`` (the loose fits along the
regularisation path, warm-started: :mod:`xprobe.probe.fastgrid`), both opt-in: faster where
the grid's points are well apart, much slower on near-chance tasks (near-ties everywhere).
"""

from __future__ import annotations

import os

__all__ = ["CHUNK_ELEMS", "MEASURES", "WIDE", "enabled", "wide_loss_grad"]

WIDE = 256  # columns (grid points x classes) from which the wide kernel is used
CHUNK_ELEMS = 1 << 22  # logits per chunk (16 MB of float32)
TINY = 1e-30  # true-class probabilities below this: their log from log_softmax
MEASURES = ("wide", "screen", "path", "blocks")
DEFAULT = ("wide", "blocks")  # kept by default; screen, path: opt-in (docs/probing.md says why)


def enabled(measure: str) -> bool:
    """Whether ``measure`` (of :data:`MEASURES`) is on: ``XPROBE_LR_GRID`` unset means
    :data:`DEFAULT`; ``exhaustive`` none (every grid point certified, the narrow kernel)."""
    value = os.environ.get("XPROBE_LR_GRID")
    if value is None:
        return measure in DEFAULT
    names = {v.strip() for v in value.split(",")} - {""}
    bad = names - {*MEASURES, "exhaustive"}
    if bad:
        from xprobe.errors import XProbeError

        raise XProbeError(f"XPROBE_LR_GRID: unknown measure(s) {', '.join(sorted(bad))}; "
                          f"valid: exhaustive, or any of {', '.join(MEASURES)}")  # fmt: skip
    return measure in names


def wide_loss_grad(x, y, mean, std, th, l2):
    """Mean cross-entropy + ``l2/2 |W|^2`` per block ``(G,)`` and its gradient ``(d+1, G,
    K)`` (float64) of the multinomial blocks ``th`` on raw float32 rows ``x`` standardised by
    ``(mean, std)`` (folded into the weights); ``l2``: ``(1, G, 1)`` float64."""
    import torch

    n = max(int(y.shape[0]), 1)
    d, g, k = th.shape[0] - 1, th.shape[1], th.shape[2]
    w = th[:d]
    ws = w / std.double().view(-1, 1, 1)  # ((x - m) / s) W + b = x W' + b'
    w32 = ws.reshape(d, g * k).float().contiguous()
    b = (th[d] - torch.einsum("d,dgk->gk", mean.double(), ws)).float().view(1, g * k)
    gw = torch.zeros((g * k, d), dtype=torch.float64, device=x.device)
    gb = torch.zeros(g * k, dtype=torch.float64, device=x.device)
    total = torch.zeros(g, dtype=torch.float64, device=x.device)
    step = max(64, min((1 << 22) // max(d, 1), CHUNK_ELEMS // (g * k)))
    for a in range(0, x.shape[0], step):
        xc = x[a : a + step].float()
        z = torch.addmm(b, xc, w32).view(-1, g, k)
        idx = y[a : a + step].view(-1, 1, 1).expand(-1, g, 1)
        r = torch.softmax(z, dim=2)  # one pass of exp (log_softmax, then exp: two)
        total -= _log_true(r, z, idx).sum(dim=(0, 2), dtype=torch.float64)
        r.scatter_add_(2, idx, torch.full(idx.shape, -1.0, dtype=r.dtype, device=r.device))
        rt = r.view(-1, g * k).t()
        # float32 within a chunk, as the product: a product with ones (a float64 sum over
        # rows, 12 ms a chunk of 4,194 x 1,000, took 8x as long)
        gb += torch.mv(rt, torch.ones(rt.shape[1], dtype=rt.dtype, device=rt.device)).double()
        gw += (rt @ xc).double()
    gw, gb, total = gw.t().reshape(d, g, k) / n, gb.view(g, k) / n, total / n
    gw = (gw - mean.double().view(-1, 1, 1) * gb) / std.double().view(-1, 1, 1) + l2 * w
    total += 0.5 * (l2 * w * w).sum(dim=(0, 2))
    return total, torch.cat([gw, gb.unsqueeze(0)], dim=0)


def _log_true(p, z, idx):
    """``log p`` of each row's true class ``(rows, G, 1)``, float32, from the softmax ``p``;
    where that probability is too small for float32 to hold it to its precision (a true class
    far below the best: below :data:`TINY`), from ``log_softmax`` of those rows' logits ``z``."""
    import torch

    py = p.gather(2, idx)
    tiny = py < TINY
    out = py.log()
    if bool(tiny.any()):
        rows = tiny.any(dim=2).any(dim=1).nonzero().view(-1)
        out[rows] = torch.log_softmax(z[rows], dim=2).gather(2, idx[rows])
    return out

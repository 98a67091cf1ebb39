"""Logistic regression probes solved to convergence: every L2 point (and layer) at once.

The ``lr`` probe is convex, so its accuracy should not depend on an optimiser budget or a
stopping rule. For each grid point ``l2`` and each input (layer) this module minimises

    f(W, b) = mean_i CE(y_i, x_i W + b) + l2 / 2 * ||W||^2     (the bias is not penalised)

on the standardised training features, which is scikit-learn's ``LogisticRegression(C=...,
solver="lbfgs")`` with ``C = 1 / (n * l2)`` (scikit-learn minimises ``C * sum_i CE + ||W||^2 / 2``,
the same objective times ``C * n``): the binomial model (one weight vector) for two classes,
the multinomial one (a vector per class) for more, as scikit-learn. The solver is full-batch
L-BFGS with one history, step and stopping test per (layer, grid point) block
(:mod:`xprobe.probe.lbfgs`), while one pass over the rows computes every block's loss and
gradient (one ``(d, G*K)`` product per layer and chunk). A block stops when its largest
gradient component is below ``tol`` (default 1e-4, scikit-learn's default on the same scale)
and, for ``l2 > 0``, its certified suboptimality is at most ``rtol`` (1e-3) of its objective:
the objective is ``l2``-strongly convex in ``W``, so ``f - f* <= |grad_W|^2 / (2 l2)``. The
gradient test alone is in absolute units: with few rows per class and a small L2 (nearly
separable data, an objective of 0.002) it stopped 23 % above the optimum (issue 30's layer 6);
the relative certificate cannot. When float32 products can no longer resolve a block's
progress (a failed line search before its test holds), that layer's products become float64
(:meth:`_Objective.refine`); a block that still cannot reach its test stops and is reported
unconverged. After ``max_iter`` iterations a block stops too (logged).

Many classes (grid points x classes at least 256: WC): a float32 row-major kernel evaluating
only the blocks still searching (:mod:`xprobe.probe.widelr`), and
:func:`xprobe.probe.fastgrid.fit_select` may screen the grid (loose fits, then only the
candidates certified).

Memory and speed: the standardisation is folded into the weights (``((x - m) / s) W + b =
x (W / s) + (b - m W / s)``), so the raw rows are read once per evaluation, chunk by chunk, and
no standardised copy is made. Sums are float64 across chunks; the products are float32 (a column
whose mean is large against its spread loses some gradient precision: ``|m| / s`` times float32
rounding, far below ``tol`` for embeddings).

Example::

    fit = fit_lr([xtr], ytr, stats, l2s=[1e-5, 1e-4], n_classes=3)
    probs = fit.logits(0, xva_chunk)          # (rows, G, K) for layer 0
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

log = logging.getLogger(__name__)

__all__ = ["LrFit", "fit_lr", "lbfgs_history"]

RTOL = 1e-3  # certified suboptimality, relative to the objective
MEMORY = 5  # binomial inputs: the non-monotone line search's memory (lbfgs.minimise)


@dataclass
class LrFit:
    """Solutions for every layer: ``theta[l]`` is ``(d + 1, G, K)`` float64 (last row: bias),
    with ``K = 1`` (binomial) for two classes."""

    theta: list
    iterations: int
    evaluations: int
    converged: bool
    n_classes: int
    screen: object = None  # screened search: the loose fit's validation accuracies (L, G)

    def logits_of(self, layer: int, feats, g: int):
        """``(n, C)`` logits of grid point ``g`` on every row of ``feats`` (Features)."""
        import torch

        with torch.no_grad():
            parts = [self.logits(layer, xb)[:, g] for _, xb in feats.chunks(8192)]
        return torch.cat(parts) if parts else torch.zeros((0, self.n_classes))

    def dev_accuracies(self, layer: int, feats, y):
        """Per grid point, the accuracy on ``feats`` (Features) and labels ``y``."""
        return self.dev_scores(layer, feats, y)[0]

    def dev_scores(self, layer: int, feats, y):
        """Per grid point, the accuracy and the mean cross-entropy (nats) on ``feats``/``y``."""
        import torch

        g = self.theta[layer].shape[1]
        correct = torch.zeros(g, dtype=torch.long)
        nll = torch.zeros(g, dtype=torch.float64)
        with torch.no_grad():
            for a, xb in feats.chunks(8192):
                z = self.logits(layer, xb).double()
                yb = y[a : a + len(xb)]
                correct += (z.argmax(-1) == yb[:, None]).sum(0).cpu()
                lp = torch.log_softmax(z, -1).gather(2, yb.view(-1, 1, 1).expand(-1, g, 1))
                nll -= lp.sum(0)[:, 0].cpu()
        n = max(len(feats), 1)
        return correct.numpy() / n, nll.numpy() / n

    def logits(self, layer: int, x):
        """``(rows, G, C)`` logits of standardised rows ``x`` (``(rows, d)``)."""
        import torch

        th = self.theta[layer]
        d, g, k = th.shape[0] - 1, th.shape[1], th.shape[2]
        wt = th[:d].reshape(d, g * k).t().float().contiguous()
        z = _rows_times(x, wt).view(-1, g, k) + th[d].float()
        if k == 1:  # binomial: class 1 against class 0
            return torch.cat([torch.zeros_like(z), z], dim=2)
        return z


def _rows_times(x, wt):
    """``x @ wt.T`` for a narrow ``wt`` ``(G*K, d)``, as ``(wt @ x.T).T``: on the CPU (MKL, one
    thread) 2.7x faster than ``x @ w`` at 4 columns (measured 20k x 4096: 0.040 s vs 0.109 s)."""
    return (wt @ x.t()).t()


def _chunks_of(x, prec):
    """``(a, b) -> rows a:b`` of ``x`` as the products below take them: a NumPy view for
    float32 rows and products on the CPU (OpenBLAS: at 4 columns, a binary probe's grid, on the
    project's AMD EPYC and one thread, the two products of an evaluation take about 0.65x the
    time of torch's MKL), a tensor of dtype ``prec`` otherwise."""
    import torch

    if x.device.type == "cpu" and x.dtype == torch.float32 and prec == torch.float32:
        xn = x.numpy()
        return lambda a, b: xn[a:b]
    return lambda a, b: x[a:b].to(prec)


def _times(xc, wt):
    """``xc @ wt.T`` (``(rows, G*K)``) for a chunk of :func:`_chunks_of` and ``wt`` ``(G*K,
    d)`` of its dtype."""
    import torch

    if isinstance(xc, np.ndarray):
        return torch.from_numpy(wt.numpy() @ xc.T).t()
    return _rows_times(xc, wt)


def _times_t(gz, xc):
    """``xc.T @ gz`` (``(d, G*K)``) for a chunk of :func:`_chunks_of` and ``gz`` ``(rows,
    G*K)`` of its dtype, as ``(gz^T x)^T`` (torch's ``x^T @ gz`` with a narrow ``gz`` is 30x
    slower on the CPU)."""
    import torch

    if isinstance(xc, np.ndarray):
        return torch.from_numpy(gz.numpy().T @ xc).t()
    return (gz.t() @ xc).t()


_CONTROLLER: list = []


def _blas_threads():
    """A context in which NumPy's BLAS uses torch's thread count (``--threads``)."""
    import torch
    from threadpoolctl import ThreadpoolController

    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=torch.get_num_threads(), user_api="blas")


def _chunk_rows(d: int) -> int:
    return max(256, (1 << 22) // max(d, 1))  # about 16 MB of float32 per chunk


def _loss_grad(z, y, k: int):
    """CE summed over rows, per grid point ``(G,)``, and its gradient w.r.t. ``z`` (``(m, G,
    K)`` float64)."""
    import torch

    if k == 1:
        t = y.to(z.dtype).view(-1, 1, 1)
        loss = (torch.nn.functional.softplus(z) - t * z).sum(dim=(0, 2))
        return loss, torch.sigmoid(z) - t
    logp = torch.log_softmax(z, dim=2)
    idx = y.view(-1, 1, 1).expand(-1, z.shape[1], 1)
    loss = -logp.gather(2, idx).sum(dim=(0, 2))
    g = logp.exp_()
    g.scatter_add_(2, idx, torch.full(idx.shape, -1.0, dtype=z.dtype, device=z.device))
    return loss, g


class _Objective:
    """The summed objective over layers and grid points, evaluated chunk by chunk."""

    def __init__(self, xs: Sequence, y, stats: list[tuple] | None, l2s, k: int) -> None:
        import torch

        # y: one label tensor for all inputs, or one per input (inputs of different rows)
        self.xs, self.k = xs, k
        self.ys = list(y) if isinstance(y, (list, tuple)) else [y] * len(xs)
        dev = xs[0].device
        # l2s: one grid for every input, or one per input (a polish of a few points per layer)
        per_input = len(l2s) > 0 and isinstance(l2s[0], (list, tuple))
        grids = [list(v) for v in l2s] if per_input else [list(l2s)] * len(xs)
        self.l2s = [torch.tensor(v, dtype=torch.float64, device=dev).view(1, -1, 1) for v in grids]
        self.l2 = self.l2s[0]
        self.stats = stats or [
            (torch.zeros(x.shape[1], device=dev), torch.ones(x.shape[1], device=dev)) for x in xs
        ]
        self.evals = 0
        self.precise = [False] * len(xs)  # float64 products (set when float32's are exhausted)

    def refine(self, i: int) -> bool:
        """Float64 products for input ``i`` from now on (False: they are already)."""
        if self.precise[i]:
            return False
        self.precise[i] = True
        log.debug("lr probe: input %d: float32 precision exhausted, float64 products", i)
        return True

    def stop(self, tol: float, rtol: float):
        """The stopping test: every gradient component at most ``tol`` and, for ``l2 > 0``,
        the certified suboptimality ``|grad_W|^2 / (2 l2)`` (the objective is ``l2``-strongly
        convex in ``W``) at most ``rtol`` times the objective."""

        def test(i: int, f, g):
            l2 = self.l2s[i].view(-1)
            small = g.abs().amax(dim=(0, 2)) <= tol
            bound = (g[:-1] ** 2).sum(dim=(0, 2)) / (2 * l2.clamp_min(1e-300))
            return small & ((l2 <= 0) | (bound <= rtol * f.abs()))

        return test

    def __call__(self, thetas: list, active: list | None = None) -> tuple[list, list]:
        """Per input, the objective of every grid point ``(G,)`` and the gradients (None for
        an input that ``active`` leaves out: every block of it has stopped). ``active[i]``: a
        bool, or a ``(G,)`` bool mask of the blocks needed; a wide input (:func:`_wide`)
        computes those blocks only, the others hold zeros."""
        self.evals += 1
        values, grads = [], []
        for i, th in enumerate(thetas):
            mask = None if active is None else active[i]
            if mask is not None and not bool(mask.any() if hasattr(mask, "any") else mask):
                values.append(None)
                grads.append(None)
                continue
            if _wide(th) and not self.precise[i]:
                f, g = self._wide_blocks(i, th, mask)
            else:
                f, g = self._input(i, th)
            values.append(f)
            grads.append(g)
        return values, grads

    def _input(self, i: int, th):
        """The objective ``(G,)`` and gradient of input ``i``'s every block (float32 products,
        or float64 once :meth:`refine` raised them; float64 losses)."""
        import torch

        x, y, (mean, std), l2 = self.xs[i], self.ys[i], self.stats[i], self.l2s[i]
        prec = torch.float64 if self.precise[i] else torch.float32
        n = max(int(y.shape[0]), 1)
        d, g, k = th.shape[0] - 1, th.shape[1], th.shape[2]
        w = th[:d]
        # standardising folded into the weights: ((x - m) / s) W + b = x W' + b'
        ws = w / std.double().view(-1, 1, 1)  # W' = W / s
        w32t = ws.reshape(d, g * k).t().to(prec).contiguous()  # (G*K, d)
        b = th[d] - torch.einsum("d,dgk->gk", mean.double(), ws)  # b' = b - m W'
        gw = torch.zeros((d, g * k), dtype=torch.float64, device=x.device)
        gb = torch.zeros((g, k), dtype=torch.float64, device=x.device)
        total = torch.zeros(g, dtype=torch.float64, device=x.device)
        step = _chunk_rows(d)
        rows = _chunks_of(x, prec)
        with _blas_threads():
            for a in range(0, x.shape[0], step):
                xc = rows(a, a + step)
                z = _times(xc, w32t).double().view(-1, g, k) + b
                loss, gz = _loss_grad(z, y[a : a + step], k)
                total += loss / n
                gz = gz / n
                gw += _times_t(gz.reshape(-1, g * k).to(prec), xc).double()
                gb += gz.sum(0)
        # d/dW of x W' + b': (x^T gz - m (1^T gz)) / s
        gw = gw.view(d, g, k) - mean.double().view(-1, 1, 1) * gb
        gw = gw / std.double().view(-1, 1, 1) + l2 * w
        total += 0.5 * (l2 * w * w).sum(dim=(0, 2))
        return total, torch.cat([gw, gb.unsqueeze(0)], dim=0)

    def _wide_blocks(self, i: int, th, mask):
        """:meth:`_input` for a wide input, of the blocks in ``mask`` only (None: all)."""
        import torch

        from xprobe.probe.widelr import wide_loss_grad

        x, y, (mean, std), l2 = self.xs[i], self.ys[i], self.stats[i], self.l2s[i]
        if mask is None or isinstance(mask, bool) or bool(mask.all()):
            return wide_loss_grad(x, y, mean, std, th, l2)
        idx = mask.nonzero().view(-1)
        f, g = wide_loss_grad(x, y, mean, std, th[:, idx], l2[:, idx])
        full_f = torch.zeros(th.shape[1], dtype=f.dtype, device=f.device)
        full_g = torch.zeros_like(th)
        full_f[idx], full_g[:, idx] = f, g
        return full_f, full_g


def _wide(th) -> bool:
    """Many multinomial columns (``G*K`` at least :data:`~xprobe.probe.widelr.WIDE`): the
    float32 kernel of :mod:`xprobe.probe.widelr` and per-block evaluation."""
    from xprobe.probe.widelr import WIDE, enabled

    return th.shape[2] > 1 and th.shape[1] * th.shape[2] >= WIDE and enabled("wide")


def fit_lr(
    xs: Sequence,
    y,
    stats: list[tuple] | None,
    l2s: Sequence[float],
    n_classes: int,
    tol: float = 1e-4,
    max_iter: int = 1000,
    init: list | None = None,
    rtol: float = RTOL,
    history: int | None = None,
) -> LrFit:
    """Minimise every (layer, L2) objective at once; ``xs``: one raw float32 ``(n, d)`` tensor
    per layer, ``y`` their labels (or one label tensor per input, when the inputs are different
    rows, e.g. the prefixes of an online code), ``stats``: their ``(mean, std)`` (None: no
    standardising); ``tol``, ``rtol``: the stopping tests (module docstring); ``init``: a
    previous fit's ``theta`` to start from (a warm start; the minimum is the same);
    ``history``: L-BFGS pairs kept (None: :func:`lbfgs_history` of this solve's size)."""
    import torch

    from xprobe.probe.lbfgs import minimise

    k = 1 if n_classes == 2 else n_classes
    dev = xs[0].device
    if init is not None:
        thetas = [t.detach().clone() for t in init]
    else:
        thetas = [
            torch.zeros((x.shape[1] + 1, len(l2s), k), dtype=torch.float64, device=dev) for x in xs
        ]
    history = history or lbfgs_history(sum(t.numel() for t in thetas))
    obj = _Objective(xs, y, stats, l2s, k)
    thetas, grads, iters, converged = minimise(obj, thetas, tol, max_iter, history,
                                               obj.stop(tol, rtol), obj.refine,
                                               MEMORY if k == 1 else 1)  # fmt: skip
    if not converged:
        gmax = max(float(gr.abs().max()) for gr in grads)
        level = logging.WARNING if iters >= max_iter else logging.DEBUG
        log.log(level, "lr probe: L-BFGS stopped after %d iterations, largest gradient %.2g "
                "(tol %.0e, rtol %.0e): no L2 and separable data, or float64 precision "
                "exhausted", iters, gmax, tol, rtol)  # fmt: skip
    return LrFit(thetas, iters, obj.evals, converged, n_classes)


def lbfgs_history(size: int) -> int:
    """L-BFGS pairs kept for ``size`` parameters: s and y pairs within about 200 MB."""
    return max(3, min(100, int(2e8 // (16 * max(size, 1)))))

"""The lr grid: every (layer, L2) point fitted and one selected (:func:`fit_select`); the grid
costs what it must, since only the selected point's optimum must be exact.

The converged ``lr`` probe selects, per layer, the L2 point of best validation accuracy. Solving
every (layer, L2) point to the certified optimum (:mod:`xprobe.probe.convex`) is more than the
selection needs. The screened search:

1. **screen**: every (layer, L2) point is fitted to a loose tolerance (:data:`SCREEN_TOL`,
   :data:`SCREEN_RTOL`) and scored on the validation split; along the regularisation path
   (``path``: the strongest L2 first, every layer at once, each point started from the
   previous point's solution; with per-block evaluation a point costs its own columns only);
2. **polish**: per layer, the points whose loose validation accuracy is within
   :func:`margin` of the layer's best are solved on to the certified optimum (``tol``,
   ``rtol``), warm-started from their loose solution, and scored again;
3. **re-check**: a point not polished whose loose accuracy plus the margin reaches the best
   polished accuracy (the polish lowered it) is polished too, until none is left;
4. **near-ties**: polished points within :data:`TIE_ITEMS` validation items of the best are
   solved on to a tight tolerance (:data:`TIGHT_TOL`, :data:`TIGHT_RTOL`) and selected again
   (two certified solutions of one point may differ by an item: a near-tie is decided on the
   optimum's accuracies, not on where a solver stopped).

The margin is the largest change of a point's validation accuracy between its loose and its
converged solution that the rule allows for: when every point's change is within it, the
point selected is the one the exhaustive grid selects (an unpolished point's converged
accuracy is at most its loose one plus the margin, which is below the best polished one).
The benchmarks in ``docs/benchmarks/probe.md`` measure the largest change (loose vs certified)
against the margin, and ``tests/probe/test_probe_fastgrid.py`` compares the selections with the
exhaustive grid's on seeded problems. Points not polished keep their loose solutions and
validation accuracies (:attr:`ProbeResult.grid_dev`); the selected point is always polished.

Opt-in (``XPROBE_LR_GRID=wide,screen`` or ``wide,screen,path``): faster where the grid's
points are well apart, 3.8x slower on a near-chance task where every point is a near-tie (real
WC at one row per class, ``docs/probing.md``). Used for wide problems only (:func:`applies`:
many classes, where the fit costs most); the narrow ones (binary, a few classes) are solved
exhaustively as before, so their records are unchanged.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

log = logging.getLogger(__name__)

__all__ = [
    "MARGIN", "SCREEN_RTOL", "SCREEN_TOL", "applies", "blockwise", "fit_blockwise", "fit_screened",
    "fit_select", "margin",
]  # fmt: skip

SCREEN_TOL = 1e-3  # largest gradient component of the loose fit
SCREEN_RTOL = 3e-2  # its certified suboptimality, relative to the objective
MARGIN = 0.02  # validation accuracy (a fraction): at least this
MARGIN_ITEMS = 5  # and at least this many validation items
TIE_ITEMS = 2  # polished points this close to the best: a near-tie, solved tight
TIGHT_TOL, TIGHT_RTOL = 1e-6, 1e-5  # the near-ties' tolerances
TIGHT_MAX_ITER = 200  # and iterations at most (a tight solve starts certified)


def margin(n_dev: int) -> float:
    """The validation-accuracy margin of the screen on ``n_dev`` items."""
    return max(MARGIN, MARGIN_ITEMS / max(n_dev, 1))


def _wide(n_points: int, n_classes: int) -> bool:
    """A wide problem: grid points x classes at least :data:`~xprobe.probe.widelr.WIDE`."""
    from xprobe.probe.widelr import WIDE

    return n_points * (1 if n_classes == 2 else n_classes) >= WIDE


def applies(n_points: int, n_classes: int) -> bool:
    """Whether the screened search is used: more than one grid point, and a wide problem,
    unless ``XPROBE_LR_GRID`` leaves ``screen`` out."""
    from xprobe.probe.widelr import enabled

    return n_points > 1 and _wide(n_points, n_classes) and enabled("screen")


def blockwise(n_points: int, n_classes: int) -> bool:
    """Whether every (layer, point) is solved apart (:func:`fit_blockwise`): a wide problem
    with ``blocks`` in ``XPROBE_LR_GRID``."""
    from xprobe.probe.widelr import enabled

    return _wide(n_points, n_classes) and enabled("blocks")


def fit_screened(xs: Sequence, y, stats, vas: Sequence, yva, l2s: Sequence[float],
                 n_classes: int, cfg, init: list | None = None):  # fmt: skip
    """Screen, polish, re-check (module docstring); returns the fit (every block's solution:
    certified for the polished points, loose for the others) and the validation accuracies
    ``(L, G)`` (the polished points' at their certified solution)."""
    import numpy as np

    from xprobe.probe.convex import LrFit, fit_lr
    from xprobe.probe.widelr import enabled

    tol, rtol = max(cfg.tol, SCREEN_TOL), max(cfg.rtol, SCREEN_RTOL)
    if enabled("path") and init is None:
        loose = _screen_path(xs, y, stats, l2s, n_classes, tol, rtol, cfg)
    else:
        loose = fit_lr(xs, y, stats, l2s, n_classes, tol, cfg.max_iter, init, rtol=rtol,
                       history=cfg.history)  # fmt: skip
    acc = np.stack([loose.dev_accuracies(i, va, yva) for i, va in enumerate(vas)])
    screen, theta = acc.copy(), [t.clone() for t in loose.theta]
    level = np.zeros(acc.shape, dtype=int)  # 0 loose, 1 certified, 2 tight
    m, tie = margin(len(yva)), TIE_ITEMS / max(len(yva), 1)
    iters, evals, converged = loose.iterations, loose.evaluations, True
    size = sum(t.numel() for t in loose.theta)  # the pairs of the exhaustive solve
    while True:
        done = level > 0
        best = np.where(done, acc, -np.inf).max(axis=1, keepdims=True)
        ref = np.where(done.any(axis=1, keepdims=True), best, acc.max(axis=1, keepdims=True))
        new, tight = (level == 0) & (acc + m >= ref), False  # could reach the best
        if not new.any():  # near-ties: to the tight tolerance, then selected again
            near = done & (acc >= best - tie - 1e-12)
            new, tight = near & (level == 1) & (near.sum(axis=1, keepdims=True) > 1), True
        if not new.any():
            break
        fit, layers, cols = _polish(xs, y, stats, theta, new, l2s, n_classes, cfg, size, tight)
        for j, (i, c) in enumerate(zip(layers, cols, strict=True)):
            theta[i][:, c] = fit.theta[j]
            acc[i, c] = fit.dev_accuracies(j, vas[i], yva)
        level[new] = 2 if tight else 1
        iters, evals = iters + fit.iterations, evals + fit.evaluations
        # a tight solve starts certified and only lowers the objective: certified still
        converged = converged and (tight or fit.converged)
    log.debug("lr probe: screened grid: %d of %d points polished, %d tight (%d + %d iterations)",
              int((level > 0).sum()), level.size, int((level == 2).sum()), loose.iterations,
              iters - loose.iterations)  # fmt: skip
    return LrFit(theta, iters, evals, converged, n_classes, screen), acc


def _polish(xs, y, stats, theta, new, l2s, n_classes: int, cfg, size: int, tight: bool):
    """The certified solve of the blocks ``new`` (``(L, G)`` bool) from ``theta`` (``tight``:
    to :data:`TIGHT_TOL`, :data:`TIGHT_RTOL`): one block L-BFGS over those blocks only, each
    layer with its own points."""
    from xprobe.probe.convex import fit_lr, lbfgs_history

    layers = [i for i in range(len(xs)) if new[i].any()]
    cols = [[int(g) for g in new[i].nonzero()[0]] for i in layers]
    fit = fit_lr(
        [xs[i] for i in layers],
        [y] * len(layers) if not isinstance(y, (list, tuple)) else [y[i] for i in layers],
        None if stats is None else [stats[i] for i in layers],
        [[l2s[g] for g in c] for c in cols],
        n_classes,
        min(cfg.tol, TIGHT_TOL) if tight else cfg.tol,
        min(cfg.max_iter, TIGHT_MAX_ITER) if tight else cfg.max_iter,
        [theta[i][:, c] for i, c in zip(layers, cols, strict=True)],
        rtol=min(cfg.rtol, TIGHT_RTOL) if tight else cfg.rtol,
        history=cfg.history or lbfgs_history(size),
    )
    return fit, layers, cols


def _screen_path(xs, y, stats, l2s, n_classes: int, tol: float, rtol: float, cfg):
    """The loose fits along the regularisation path: the strongest L2 first (every layer at
    once), each next point started from the previous point's solution."""
    import torch

    from xprobe.probe.convex import LrFit, fit_lr, lbfgs_history

    k = 1 if n_classes == 2 else n_classes
    theta = [torch.zeros((x.shape[1] + 1, len(l2s), k), dtype=torch.float64) for x in xs]
    history = cfg.history or lbfgs_history(sum(t.numel() for t in theta))
    start, iters, evals = None, 0, 0
    for g in sorted(range(len(l2s)), key=lambda i: -l2s[i]):
        fit = fit_lr(xs, y, stats, [l2s[g]], n_classes, tol, cfg.max_iter, start, rtol=rtol,
                     history=history)  # fmt: skip
        for t, s in zip(theta, fit.theta, strict=True):
            t[:, g] = s[:, 0]
        start, iters, evals = fit.theta, iters + fit.iterations, evals + fit.evaluations
    return LrFit(theta, iters, evals, False, n_classes)  # loose: not certified


def fit_blockwise(xs: Sequence, y, stats, l2s: Sequence[float], n_classes: int, cfg,
                  init: list | None = None):  # fmt: skip
    """Every (layer, L2) point to the certified optimum (``cfg.tol``, ``cfg.rtol``, as the joint
    solve), one L-BFGS per point: each layer along its regularisation path, the strongest L2
    first, each next point started from the previous one's solution (from ``init``'s, when
    given). A wide problem's evaluation costs its columns, so solving points together saves no
    pass over the data; apart, each keeps its own curvature pairs (:func:`lbfgs_history` of one
    block, where the joint solve of WC's seven layers x five points keeps three)."""
    import torch

    from xprobe.probe.convex import LrFit, fit_lr

    k = 1 if n_classes == 2 else n_classes
    order = sorted(range(len(l2s)), key=lambda g: -l2s[g])
    theta, iters, evals, converged = [], 0, 0, True
    for i, x in enumerate(xs):
        yi = y[i] if isinstance(y, (list, tuple)) else y
        si = None if stats is None else [stats[i]]
        t = torch.zeros((x.shape[1] + 1, len(l2s), k), dtype=torch.float64, device=x.device)
        start = None
        for g in order:
            if init is not None:
                start = [init[i][:, g : g + 1]]
            fit = fit_lr([x], yi, si, [l2s[g]], n_classes, cfg.tol, cfg.max_iter, start,
                         rtol=cfg.rtol, history=cfg.history)  # fmt: skip
            t[:, g] = fit.theta[0][:, 0]
            start = fit.theta
            iters, evals = iters + fit.iterations, evals + fit.evaluations
            converged = converged and fit.converged
        theta.append(t)
    return LrFit(theta, iters, evals, converged, n_classes)


def fit_select(trs: Sequence, ytr, vas: Sequence, yva, points, n_classes: int, cfg,
               init: list | None = None):  # fmt: skip
    """Fit every (layer, grid point) on the training Features ``trs`` (one per layer); return
    the fit and the validation accuracies ``(L, G)``."""
    import numpy as np

    from xprobe.errors import XProbeError
    from xprobe.probe.convex import fit_lr

    if any(pt.hidden or pt.dropout for pt in points):
        raise XProbeError("the converged lr solver takes L2 grid points only (no hidden units)")
    xs = [f.x[0] for f in trs]
    stats = None if trs[0].stats is None else [f.stats[0] for f in trs]
    l2s = [pt.l2 for pt in points]
    if applies(len(l2s), n_classes):  # many classes: screen, then polish the candidates
        return fit_screened(xs, ytr, stats, vas, yva, l2s, n_classes, cfg, init)
    if blockwise(len(l2s), n_classes):  # many classes: each point apart, along the path
        fit = fit_blockwise(xs, ytr, stats, l2s, n_classes, cfg, init)
    else:
        fit = fit_lr(xs, ytr, stats, l2s, n_classes, cfg.tol, cfg.max_iter, init,
                     rtol=cfg.rtol, history=cfg.history)  # fmt: skip
    best = np.stack([fit.dev_accuracies(i, va, yva) for i, va in enumerate(vas)])
    return fit, best

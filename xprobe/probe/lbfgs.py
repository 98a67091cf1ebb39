"""L-BFGS over many independent blocks at once: one history, step and stopping test per block.

The converged ``lr`` probe solves B = layers x grid points independent problems that share
their data. One L-BFGS over their sum (``torch.optim.LBFGS``) couples them through a common
step length and curvature scaling, and was measured to take 3x the iterations of solving each
alone. Here every block (a slice ``[:, b, :]`` of a parameter tensor ``(P, G, K)``) has its own
two-loop recursion (its own ``s^T y``, scaling and step), its own backtracking (Armijo) line
search and its own stopping test, while one call of the objective evaluates every block: the
passes over the data are shared, the iterations are those of the slowest block alone. During a
line search the objective is told which blocks still search (a ``(G,)`` mask per input); one
that computes those only (the many-class kernel) does not pay for the blocks that stopped.

A block stops when its stopping test holds (``stop``; default: its largest gradient component
is at most ``tol``). When a block's line search fails or a step no longer changes its value
before that (the objective's precision is exhausted: float32 products), ``refine(i)`` may raise
the precision of input ``i`` (float64 products) and the block goes on from where it was; when
it cannot, the block stops unconverged (reported, never hidden).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["minimise"]


def _dot(a, b):
    return (a * b).sum(dim=(0, 2))  # per block (G,)


def _direction(g, hist: list, gamma):
    """``-H g`` per block from the history ``[(s, y, rho), ...]`` (rho 0: pair ignored)."""
    q = g.clone()
    alphas = []
    for s, y, rho in reversed(hist):
        a = rho * _dot(s, q)
        q -= a.view(1, -1, 1) * y
        alphas.append(a)
    r = gamma.view(1, -1, 1) * q
    for (s, y, rho), a in zip(hist, reversed(alphas), strict=True):
        b = rho * _dot(y, r)
        r += s * (a - b).view(1, -1, 1)
    return -r


def _evaluate(fun: Callable, thetas: list, active: list, last: tuple) -> tuple[list, list]:
    """``fun`` on the blocks still searching (``active``: per input, a ``(G,)`` bool mask);
    the others keep ``last`` (their values at the same point: a block's value depends on its
    own parameters only, so a recomputation would give the same)."""
    import torch

    if all(bool(a.all()) for a in active):
        return fun(thetas)
    values, grads = fun(thetas, active)
    vs, gs = [], []
    for v, g, a, lv, lg in zip(values, grads, active, last[0], last[1], strict=True):
        if v is None:
            vs.append(lv)
            gs.append(lg)
        else:
            vs.append(torch.where(a, v, lv))
            gs.append(torch.where(a.view(1, -1, 1), g, lg))
    return vs, gs


def _max_grad_test(tol: float) -> Callable:
    def stop(i: int, f, g):
        return g.abs().amax(dim=(0, 2)) <= tol

    return stop


def minimise(
    fun: Callable,
    thetas: list,
    tol: float,
    max_iter: int,
    history: int = 100,
    stop: Callable | None = None,
    refine: Callable | None = None,
    memory: int = 1,
) -> tuple[list, list, int, bool]:
    """Minimise ``fun(thetas, active=None) -> (values: list of (G,), grads: list like thetas)``
    block by block (``active``: per input, whether it is needed; None where not); returns
    (thetas, grads, iterations, every block converged).

    ``stop(i, f_i, g_i) -> (G,) bool``: the stopping test of input ``i``'s blocks (default:
    largest gradient component at most ``tol``); ``refine(i) -> bool``: raise the precision of
    ``fun`` for input ``i`` (False: it is at its highest already); ``memory``: the line
    search's reference is the largest of a block's last ``memory`` values (1: the current
    value, a monotone search; more: Grippo, Lampariello and Lucidi's non-monotone Armijo rule,
    which keeps a unit step that overshoots a little instead of paying a pass to shorten it)."""
    import torch

    stop = stop or _max_grad_test(tol)
    f, g = fun(thetas)
    hist: list[list] = [[] for _ in thetas]
    gamma = [torch.ones_like(v) for v in f]
    done = [stop(i, f[i], g[i]) for i in range(len(thetas))]
    past: list[list] = [[] for _ in f]  # per input, the blocks' ``memory - 1`` values before
    first = True
    it = 0
    while it < max_iter and not all(bool(dn.all()) for dn in done):
        it += 1
        dirs, gtd, steps = [], [], []
        for i, (gr, dn) in enumerate(zip(g, done, strict=True)):
            d = _direction(gr, hist[i], gamma[i])
            slope = _dot(gr, d)
            uphill = slope >= 0  # lost curvature: steepest descent for that block
            d = torch.where(uphill.view(1, -1, 1), -gr, d) * (~dn).view(1, -1, 1)
            slope = _dot(gr, d)
            t = torch.ones_like(slope)
            if first:
                t = torch.clamp(1.0 / gr.abs().sum(dim=(0, 2)).clamp_min(1e-300), max=1.0)
            dirs.append(d)
            gtd.append(slope)
            steps.append(t)
        first = False
        ok = [dn.clone() for dn in done]
        fn_gn = ([v.clone() for v in f], [v.clone() for v in g])  # inputs all done: unchanged
        for _ in range(40):  # backtracking until every block satisfies Armijo
            trial = [th + (t.view(1, -1, 1) * d) for th, t, d in zip(thetas, steps, dirs,
                                                                      strict=True)]  # fmt: skip
            fn, gn = _evaluate(fun, trial, [~o for o in ok], fn_gn)
            fn_gn = (fn, gn)
            for i in range(len(thetas)):
                ref = torch.stack([f[i], *past[i]]).amax(dim=0) if past[i] else f[i]
                ok[i] = ok[i] | (fn[i] <= ref + 1e-4 * steps[i] * gtd[i])
                steps[i] = torch.where(ok[i], steps[i], steps[i] * 0.5)
            if all(bool(o.all()) for o in ok):
                break
        stuck = []
        for i in range(len(thetas)):
            failed = ~ok[i]
            s = trial[i] - thetas[i]
            y = gn[i] - g[i]
            sy, yy = _dot(s, y), _dot(y, y)
            good = (sy > 1e-10 * yy.sqrt() * s.norm()) & ~failed
            rho = torch.where(good, 1.0 / sy.clamp_min(1e-300), torch.zeros_like(sy))
            gamma[i] = torch.where(good, sy / yy.clamp_min(1e-300), gamma[i])
            hist[i].append((s, y, rho))
            if len(hist[i]) > history:
                hist[i].pop(0)
            keep = failed.view(1, -1, 1)  # a failed search keeps the old point
            flat = (f[i] - fn[i]).abs() <= 1e-12 * f[i].abs().clamp_min(1.0)
            thetas[i] = torch.where(keep, thetas[i], trial[i])
            g[i] = torch.where(keep, g[i], gn[i])
            if memory > 1:
                past[i] = [*past[i], f[i]][1 - memory :]
            f[i] = torch.where(failed, f[i], fn[i])
            conv = stop(i, f[i], g[i])
            limit = ~done[i] & ~conv & (failed | (flat & (it > 1)))
            done[i] = done[i] | conv
            if bool(limit.any()):
                stuck.append((i, limit))
        raised = [i for i, _ in stuck if refine is not None and refine(i)]
        if raised:
            f2, g2 = _evaluate(fun, thetas, [torch.full_like(dn, i in raised) for i, dn
                                              in enumerate(done)], (f, g))  # fmt: skip
            for i in raised:
                f[i], g[i] = f2[i], g2[i]  # the same point at the new precision
                done[i] = done[i] | stop(i, f[i], g[i])
        for i, lim in stuck:
            if i not in raised:
                done[i] = done[i] | lim  # precision exhausted: stopped, not converged
    all_conv = all(bool(stop(i, f[i], g[i]).all()) for i in range(len(thetas)))
    return thetas, g, it, all_conv

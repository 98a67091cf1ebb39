"""Probes that converge: ``lr`` is scikit-learn's converged logistic regression, its result does
not depend on a seed or an optimiser budget; the MLP does not stop while its validation loss
still falls; SentEval's protocol stays available."""

from __future__ import annotations

import numpy as np
import pytest

from xprobe.probe.classifiers import TrainConfig, grid_points, select, train_select

pytest.importorskip("torch")
sklearn_lm = pytest.importorskip("sklearn.linear_model")


def _embeddings(n: int, d: int, k: int, seed: int = 0):
    """Embedding-like features (correlated, offset, uneven scales) and noisy labels."""
    g = np.random.default_rng(seed)
    z = g.normal(size=(n, 8))
    x = z @ g.normal(size=(8, d)) + 0.7 * g.normal(size=(n, d))
    x = (x * g.uniform(0.2, 4, d) + g.normal(0, 3, d)).astype(np.float32)
    y = (z @ g.normal(size=(8, k)) + 1.5 * g.gumbel(size=(n, k))).argmax(1)
    return x, y


def _objective(xs, y, w, b, l2):
    """Mean cross-entropy + l2/2 |w|^2 (scikit-learn's objective divided by C * n)."""
    z = xs @ w + b
    if w.shape[1] == 1:  # binomial
        z = np.concatenate([np.zeros_like(z), z], 1)
    z = z - z.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    return -logp[np.arange(len(y)), y].mean() + l2 / 2 * float((w * w).sum())


@pytest.mark.parametrize("k", [2, 6])
def test_lr_is_sklearns_converged_logistic_regression(k):
    import torch

    from xprobe.probe.convex import fit_lr
    from xprobe.probe.features import standardisers

    x, y = _embeddings(2600, 40, k)
    xtr, ytr, xva, yva, xte, yte = (
        x[:1600],
        y[:1600],
        x[1600:2100],
        y[1600:2100],
        x[2100:],
        y[2100:],
    )
    mean, std = (t.double().numpy() for t in standardisers([xtr])[0])
    l2s = [p.l2 for p in grid_points("lr", "default")]
    fit = fit_lr([torch.from_numpy(xtr)], torch.from_numpy(ytr), standardisers([xtr]), l2s, k)
    sk_dev = []
    for i, l2 in enumerate(l2s):
        xs = (xtr - mean) / std
        sk = sklearn_lm.LogisticRegression(C=1 / (len(ytr) * l2), tol=1e-10, max_iter=20000)
        sk.fit(xs, ytr)
        th = fit.theta[0][:, i].numpy()
        ours, ref = (
            _objective(xs, ytr, th[:-1], th[-1], l2),
            _objective(xs, ytr, sk.coef_.T, sk.intercept_, l2),
        )
        assert abs(ours - ref) <= 1e-4 * ref, (l2, ours, ref)
        sk_dev.append(sk.score((xva - mean) / std, yva))
    res = train_select(xtr, ytr, xva, yva, xte, yte, kind="lr", n_classes=k)
    # the same validation accuracy per C (to two items: near-optimal weights may flip a
    # borderline item), so the selected C is scikit-learn's best or within two items of it
    np.testing.assert_allclose([a for _, a in res.grid_dev], sk_dev, atol=2 / len(yva))
    sel = l2s.index(res.selected.l2)
    assert sk_dev[sel] >= max(sk_dev) - 2 / len(yva)
    # at that C: scikit-learn's test accuracy and test log-loss (bits)
    sk = sklearn_lm.LogisticRegression(C=1 / (len(ytr) * l2s[sel]), tol=1e-10, max_iter=20000)
    sk.fit((xtr - mean) / std, ytr)
    assert res.test_acc == pytest.approx(sk.score((xte - mean) / std, yte), abs=2 / len(yte))
    p = sk.predict_proba((xte - mean) / std)[np.arange(len(yte)), yte]
    assert res.test_bits == pytest.approx(-np.log2(p).sum(), rel=1e-3)


def test_block_lbfgs_solves_each_point_as_if_alone():
    """Every (layer, L2) block has its own L-BFGS: a point's solution is the same whatever
    else is solved beside it (to the tolerance), and a layer's as if it were alone."""
    import torch

    from xprobe.probe.convex import fit_lr
    from xprobe.probe.features import standardisers

    x, y = _embeddings(800, 12, 3, seed=4)
    x2 = x[:, ::-1].copy() * 2 + 1
    ys = torch.from_numpy(y)
    both = fit_lr([torch.from_numpy(x), torch.from_numpy(x2)], ys, standardisers([x, x2]),
                  [1e-4, 1e-1], 3, tol=1e-7)  # fmt: skip
    alone = fit_lr([torch.from_numpy(x2)], ys, standardisers([x2]), [1e-1], 3, tol=1e-7)
    np.testing.assert_allclose(both.theta[1][:, 1].numpy(), alone.theta[0][:, 0].numpy(),
                               atol=1e-4)  # fmt: skip
    assert alone.iterations < both.iterations  # the strongly regularised point is done first


@pytest.mark.parametrize("k", [2, 3])
def test_objective_and_gradient_are_those_of_the_standardised_float64_problem(k):
    """The chunked objective (standardising folded into the weights, float32 products in the
    transposed order) gives the value and gradient of the float64 objective on standardised
    rows, for every grid point (autograd as the reference)."""
    import torch

    from xprobe.probe.convex import _Objective
    from xprobe.probe.features import standardisers

    d = 2048  # 2,048 rows a chunk: 3,000 rows are two chunks
    x, y = _embeddings(3000, d, k, seed=6)
    kk = 1 if k == 2 else k
    l2s = [1e-4, 1e-2]
    stats = standardisers([x])
    th = torch.from_numpy(np.random.default_rng(1).normal(size=(d + 1, 2, kk)) * 0.01)
    values, grads = _Objective([torch.from_numpy(x)], torch.from_numpy(y), stats, l2s, kk)([th])
    m, s = (t.double() for t in stats[0])
    xs = (torch.from_numpy(x).double() - m) / s
    for g, l2 in enumerate(l2s):
        t = th[:, g].clone().requires_grad_(True)
        z = xs @ t[:d] + t[d]
        if kk == 1:
            z = torch.cat([torch.zeros_like(z), z], dim=1)
        f = torch.nn.functional.cross_entropy(z, torch.from_numpy(y)) + l2 / 2 * (t[:d] ** 2).sum()
        f.backward()
        np.testing.assert_allclose(float(values[0][g]), float(f.detach()), rtol=1e-6)
        np.testing.assert_allclose(grads[0][:, g].numpy(), t.grad.numpy(), atol=1e-6)


def test_lr_does_not_depend_on_the_seed_or_an_epoch_budget():
    x, y = _embeddings(1500, 30, 3, seed=2)
    data = (x[:900], y[:900], x[900:1200], y[900:1200], x[1200:], y[1200:])
    a = train_select(*data, kind="lr", seed=0)
    b = train_select(*data, kind="lr", seed=7, config=TrainConfig(max_epochs=1, patience=1))
    assert a.solver == "lbfgs" and (a.test_acc, a.grid_dev) == (b.test_acc, b.grid_dev)


def test_mlp_keeps_training_while_validation_loss_falls():
    """A tiny validation split reaches its best accuracy at once and then stays flat while the
    probe is still learning (slow Adam): patience on validation accuracy stopped it after 5
    flat passes at a poor test accuracy; patience on the loss keeps it going."""
    g = np.random.default_rng(5)
    x = g.normal(size=(4030, 20)).astype(np.float32)
    y = (x @ g.normal(size=20) > 0).astype(int)
    xtr, ytr, xva, yva, xte, yte = (
        x[:2000],
        y[:2000],
        x[2000:2030],
        y[2000:2030],
        x[2030:],
        y[2030:],
    )
    cfg = TrainConfig(lr=1e-4, max_epochs=200)
    res = train_select(xtr, ytr, xva, yva, xte, yte, kind="mlp", grid="none", hidden=20,
                       seed=0, config=cfg)  # fmt: skip
    assert res.epochs > 30 and res.test_acc > 0.95


def test_senteval_protocol():
    x, y = _embeddings(1200, 16, 2, seed=3)
    data = (x[:600], y[:600], x[600:900], y[600:900], x[900:], y[900:])
    cfg = TrainConfig(protocol="senteval")
    res = train_select(*data, kind="lr", grid="senteval", config=cfg)
    assert res.solver == "adam" and res.epochs % 4 == 0  # a check every 4 passes
    # SentEval re-seeds every L2 fit: two identical points train identically
    same = [grid_points("lr", "none")[0]] * 2
    twin = train_select(*data, kind="lr", grid=same, config=cfg)
    assert twin.grid_dev[0][1] == twin.grid_dev[1][1]
    # dev accuracies rounded to 0.01 % before the argmax: the first of a rounded tie
    assert select(np.array([0.912341, 0.912349]), "senteval") == 0
    assert select(np.array([0.912341, 0.912349]), "converged") == 1


_PEAK = """
import resource, sys
import numpy as np
from xprobe.probe.classifiers import GridPoint, TrainConfig, train_select
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
g = np.random.default_rng(0)
small = [g.normal(size=(64, 8)).astype(np.float32) for _ in range(3)]
yy = np.arange(64) % 2
train_select(small[0], yy, small[1], yy, small[2], yy, kind=sys.argv[1],
             config=TrainConfig(max_epochs=1, min_epochs=1))  # libraries loaded, warm
n, d = 40000, 1024
xs = [g.standard_normal((m, d), dtype=np.float32) for m in (n, n // 8, n // 8)]  # no temps
for x in xs:
    x += 3
ys = [g.integers(0, 2, size=len(x)) for x in xs]
before = rss()
cfg = TrainConfig(max_epochs=1, min_epochs=1, device="cpu")
train_select(xs[0], ys[0], xs[1], ys[1], xs[2], ys[2], kind=sys.argv[1], grid=[GridPoint(0.1)],
             hidden=50, config=cfg)
print((rss() - before) / sum(x.nbytes for x in xs))
"""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["lr", "mlp"])
def test_peak_memory_is_the_embeddings_plus_chunks(kind):
    """No standardised copy: a probe's peak memory beyond its embeddings (measured as peak RSS
    in a fresh process) is a small fraction of them (a copy would be 1x: 2x in all)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", _PEAK, kind], env=env, capture_output=True,
                         text=True, check=True)  # fmt: skip
    extra = float(out.stdout.strip().splitlines()[-1])
    assert extra < 0.5, f"{kind}: peak {extra:.2f}x the embeddings on top of them"


def test_float32_products_on_the_cpu_are_numpys_and_agree_with_torchs():
    """A float32 evaluation on the CPU takes its rows as NumPy views (OpenBLAS's products,
    faster than torch's MKL on the project's AMD machine); float64 products stay torch's, and
    both give the same products to float32 rounding."""
    import torch

    from xprobe.probe.convex import _chunks_of, _times, _times_t

    x, _ = _embeddings(300, 50, 2, seed=8)
    xt = torch.from_numpy(x)
    wt = torch.from_numpy(np.random.default_rng(2).normal(size=(4, 50)).astype(np.float32))
    gz = torch.from_numpy(np.random.default_rng(3).normal(size=(120, 4)).astype(np.float32))
    fast, ref = _chunks_of(xt, torch.float32)(10, 130), _chunks_of(xt, torch.float64)(10, 130)
    assert isinstance(fast, np.ndarray) and isinstance(ref, torch.Tensor)
    np.testing.assert_allclose(_times(fast, wt).numpy(), _times(ref, wt.double()).numpy(),
                               rtol=1e-5, atol=1e-4)  # fmt: skip
    np.testing.assert_allclose(_times_t(gz, fast).numpy(), _times_t(gz.double(), ref).numpy(),
                               rtol=1e-5, atol=1e-4)  # fmt: skip


def test_binomial_line_search_keeps_a_step_that_overshoots_a_little(monkeypatch):
    """A binary problem's line search is non-monotone (the reference is the largest of a
    block's last ``MEMORY`` values): a unit step that raises the objective a little is kept
    instead of paying another pass over the rows to shorten it. Fewer evaluations reach the
    same certified optimum."""
    import torch

    from xprobe.probe import convex
    from xprobe.probe.features import standardisers

    x, y = _embeddings(3000, 200, 2, seed=3)
    l2s = [p.l2 for p in grid_points("lr", "default")]
    fits = {}
    for memory in (1, convex.MEMORY):
        monkeypatch.setattr(convex, "MEMORY", memory)
        fits[memory] = convex.fit_lr([torch.from_numpy(x)], torch.from_numpy(y),
                                     standardisers([x]), l2s, 2)  # fmt: skip
    mono, nonmono = fits[1], fits[convex.MEMORY]
    assert convex.MEMORY > 1 and mono.converged and nonmono.converged
    assert nonmono.evaluations < mono.evaluations
    mean, std = (t.double().numpy() for t in standardisers([x])[0])
    xs = (x - mean) / std
    for g, l2 in enumerate(l2s):
        a, b = (_objective(xs, y, f.theta[0][:-1, g].numpy(), f.theta[0][-1, g].numpy(), l2)
                for f in (mono, nonmono))  # fmt: skip
        assert abs(a - b) <= 1e-3 * min(a, b)  # both within the certificate of the optimum

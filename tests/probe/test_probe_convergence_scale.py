"""The ``lr`` probe is scale-invariant per column, as scikit-learn's z-scored logistic regression.

Issue 30's layer 6: all-MiniLM-L6-v2's last hidden layer has two columns whose values are about
1e-32 and which carry sentence length (correlation 0.42 with the SentLen label on 556 training
rows). Their float32 squares underflow to 0, so the column moments gave them std 0, and the
standardiser's absolute floor (std <= 1e-8: "constant") kept them at scale 1: the probe saw two
zero columns where scikit-learn's ``StandardScaler`` sees two unit-variance ones, and layer 6
lost 2-3 points against scikit-learn while layers 0-5 agreed. A column is constant when it does
not vary beyond float rounding, whatever its scale.

The case below is built like that one: six classes, about 90 training rows per class (556), a
weak signal in the ordinary columns and two informative columns at a scale of 1e-32, next to a
column that is exactly constant and one constant up to float32 rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sklearn_lm = pytest.importorskip("sklearn.linear_model")
sklearn_pre = pytest.importorskip("sklearn.preprocessing")

L2S = [1e-5, 1e-4, 1e-3, 1e-2, 1e-1]
TINY = 1e-32


def _case(n: int = 1356, d: int = 48, k: int = 6, seed: int = 3):
    """Weak signal in ``d`` ordinary columns; two tiny-scale columns with a stronger one;
    column 0 exactly constant, column 1 constant up to float32 rounding."""
    g = np.random.default_rng(seed)
    y = g.integers(0, k, n)
    centres = g.normal(size=(k, d))
    x = 0.12 * centres[y] + g.normal(size=(n, d))
    x = x * g.uniform(0.1, 3, d) + g.normal(0, 2, d)
    tiny = (g.normal(size=(k, 2))[y] + 1.5 * g.normal(size=(n, 2))) * TINY
    x = np.concatenate([x, tiny], axis=1).astype(np.float32)
    x[:, 0] = 7.0
    x[:, 1] = np.float32(3.0) * (1 + np.float32(1.2e-7) * g.integers(-1, 2, n))
    return x, y


def _split(x, y):
    return x[:556], y[:556], x[556:856], y[556:856], x[856:], y[856:]


def test_column_moments_resolve_a_tiny_scale_column():
    from xprobe.probe.features import column_moments

    x, _ = _case()
    mean, std = column_moments(torch.from_numpy(x))
    ref = x.astype(np.float64).std(0)
    np.testing.assert_allclose(std.numpy()[-2:], ref[-2:], rtol=1e-5)
    assert float(std[0]) == 0.0
    np.testing.assert_allclose(mean.numpy(), x.astype(np.float64).mean(0), rtol=1e-5, atol=1e-6)


def test_standardisers_scale_tiny_columns_and_keep_constant_ones():
    from xprobe.probe.features import standardisers

    x, _ = _case()
    ((mean, std),) = standardisers([x])
    z = ((x - mean.numpy()) / std.numpy()).astype(np.float64)
    # the tiny columns come out z-scored (unit variance), as StandardScaler's
    np.testing.assert_allclose(z[:, -2:].std(0), 1.0, rtol=1e-4)
    # constant (exactly, or up to rounding) columns keep scale 1: no noise blown up
    assert float(std[0]) == 1.0 and float(std[1]) == 1.0
    assert np.abs(z[:, :2]).max() < 1e-5


def _sklearn(xtr, ytr, xva, yva, xte, yte):
    """Per L2 point: validation and test accuracy of scikit-learn's converged solver on
    StandardScaler's z-scores (the issue's comparison); columns 0 and 1 are constant for both
    (StandardScaler would blow column 1's rounding noise up to unit variance)."""
    sc = sklearn_pre.StandardScaler().fit(xtr)
    a, b, c = (sc.transform(v).astype(np.float64) for v in (xtr, xva, xte))
    for v in (a, b, c):
        v[:, :2] = 0.0
    dev, test = [], []
    for l2 in L2S:
        m = sklearn_lm.LogisticRegression(C=1 / (len(ytr) * l2), tol=1e-10, max_iter=20000)
        m.fit(a, ytr)
        dev.append(m.score(b, yva))
        test.append(m.score(c, yte))
    return np.array(dev), np.array(test)


def test_lr_layers_match_sklearn_on_weak_six_classes_with_tiny_columns():
    """Through the layer-wise solve the harness runs (every layer x L2 point at once): per
    layer, every grid point's validation accuracy within two items of scikit-learn's, the same
    selected L2 and test accuracy within two items. Layer 1 is layer 0 with its tiny columns
    zeroed: there the two sides agreed before too."""
    from xprobe.probe.layerwise import train_select_layers

    x, y = _case()
    plain = x.copy()
    plain[:, -2:] = 0.0
    xtr, ytr, xva, yva, xte, yte = _split(x, y)
    ptr, _, pva, _, pte, _ = _split(plain, y)
    assert np.bincount(ytr).max() <= 110  # few rows per class
    rs = train_select_layers([xtr, ptr], ytr, [xva, pva], yva, [xte, pte], yte, kind="lr",
                             grid="default", n_classes=6)  # fmt: skip
    for r, data in zip(rs, [(xtr, xva, xte), (ptr, pva, pte)], strict=True):
        dev, test = _sklearn(data[0], ytr, data[1], yva, data[2], yte)
        ours = np.array([a for _, a in r.grid_dev])
        np.testing.assert_allclose(ours, dev, atol=2 / len(yva))
        assert r.selected.l2 == L2S[int(np.argmax(dev))]
        assert abs(r.test_acc - test[int(np.argmax(dev))]) <= 2 / len(yte)

"""The probing classifiers: separable data is learned, shuffled labels are not, selection works."""

from __future__ import annotations

import numpy as np
import pytest

from xprobe.errors import XProbeError
from xprobe.probe.classifiers import (
    GridPoint,
    TrainConfig,
    column_moments,
    grid_points,
    train_select,
)

pytest.importorskip("torch")


def _split(x, y):
    n = len(y)
    a, b = int(0.6 * n), int(0.8 * n)
    return x[:a], y[:a], x[a:b], y[a:b], x[b:], y[b:]


def _linear(n=3000, d=16, seed=0):
    g = np.random.default_rng(seed)
    x = g.normal(size=(n, d)).astype(np.float32)
    w = g.normal(size=(d, 3))
    return x, (x @ w).argmax(1)  # 3 classes, linearly separable


def _xor(n=5000, d=10, seed=1):
    g = np.random.default_rng(seed)
    x = g.normal(size=(n, d)).astype(np.float32)
    return x, ((x[:, 0] > 0) ^ (x[:, 1] > 0)).astype(int)


@pytest.mark.parametrize("kind", ["lr", "mlp"])
def test_linearly_separable_is_near_perfect(kind):
    cfg = TrainConfig(max_epochs=15, lr=1e-2)
    res = train_select(*_split(*_linear()), kind=kind, grid="default", seed=0, config=cfg)
    assert res.test_acc > 0.95 and res.dev_acc > 0.95
    assert res.n_train == 1800 and res.n_test == 600
    assert len(res.grid_dev) == 5 and res.selected in [p for p, _ in res.grid_dev]
    assert res.dev_acc == max(a for _, a in res.grid_dev)


def test_mlp_learns_xor_and_lr_cannot():
    data = _split(*_xor())
    fast = TrainConfig(lr=1e-2)  # sigmoid units leave the linear regime faster
    mlp = train_select(*data, kind="mlp", grid="senteval", seed=0, config=fast)
    lr = train_select(*data, kind="lr", grid="senteval", seed=0)
    assert mlp.test_acc > 0.9
    assert lr.test_acc < 0.6  # a linear model cannot represent XOR


def test_shuffled_labels_give_chance():
    x, y = _linear(n=4000)
    y = np.random.default_rng(5).permutation(np.arange(len(y)) % 2)  # balanced, no signal
    res = train_select(*_split(x, y), kind="mlp", seed=0, config=TrainConfig(max_epochs=10))
    assert 0.4 < res.test_acc < 0.6


def test_same_seed_same_result_and_seed_matters():
    data = _split(*_xor(n=2000))
    cfg = TrainConfig(max_epochs=5, lr=1e-2)
    a = train_select(*data, kind="mlp", grid="none", seed=3, config=cfg)
    b = train_select(*data, kind="mlp", grid="none", seed=3, config=cfg)
    c = train_select(*data, kind="mlp", grid="none", seed=4, config=cfg)
    assert (a.test_acc, a.dev_acc, a.epochs) == (b.test_acc, b.dev_acc, b.epochs)
    assert a.grid_dev != c.grid_dev or a.test_acc != c.test_acc


def test_grid_points_do_not_interact():
    """In the wide model, a point's training ignores its neighbours: changing the other point's
    L2 (same shapes, so the same initial weights for the first point) leaves it unchanged."""
    data = _split(*_linear(n=1500, d=8))
    cfg = TrainConfig(max_epochs=3, patience=10, lr=1e-2)
    a, b1, b2 = GridPoint(1e-4, 20), GridPoint(1e-1, 20), GridPoint(1e-3, 20)
    one = dict(train_select(*data, kind="mlp", grid=[a, b1], seed=0, config=cfg).grid_dev)
    two = dict(train_select(*data, kind="mlp", grid=[a, b2], seed=0, config=cfg).grid_dev)
    assert one[a] == two[a]
    assert one[a] > 0.9


def test_full_grid_mixes_hidden_sizes_and_dropout():
    pts = grid_points("mlp", "full")
    assert len(pts) == 45 and {p.hidden for p in pts} == {50, 100, 200}
    assert {p.dropout for p in pts} == {0.0, 0.1, 0.2}
    assert grid_points("lr", "full") == grid_points("lr", "default")
    assert [p.l2 for p in grid_points("lr", "senteval")] == [1e-5, 1e-4, 1e-3, 1e-2]
    data = _split(*_linear(n=800, d=6))
    res = train_select(
        *data, kind="mlp", grid="full", seed=0, config=TrainConfig(max_epochs=3, lr=1e-2)
    )
    assert len(res.grid_dev) == 45 and res.test_acc > 0.8


def test_unknown_grid_and_device():
    with pytest.raises(XProbeError, match="unknown grid"):
        grid_points("lr", "huge")
    with pytest.raises(XProbeError, match="must be auto, cpu, cuda or cuda:N, not 'tpu'"):
        train_select(*_split(*_linear(n=100)), kind="lr", config=TrainConfig(device="tpu"))


@pytest.mark.parametrize("chunk", [1, 7, 2048, None])
def test_column_moments_match_float64_and_survive_a_large_offset(chunk):
    import torch

    g = np.random.default_rng(3)
    # an offset 10^5 times the spread: a one-pass sum of squares would cancel to garbage
    x = (1000.0 + 0.01 * g.normal(size=(1001, 5))).astype(np.float32)
    x[:, 4] = 7.0  # a constant column: std 0
    mean, std = column_moments(torch.from_numpy(x), chunk=chunk)
    # the mean to within 1e-5 of a standard deviation (0.01 here), the std to 1e-4 relative
    np.testing.assert_allclose(mean.numpy(), x.mean(0, dtype=np.float64), rtol=0, atol=1e-7)
    np.testing.assert_allclose(std.numpy(), x.std(0, dtype=np.float64), rtol=1e-4, atol=1e-12)
    assert std[4] == 0


def test_standardising_leaves_the_callers_arrays_alone():
    from xprobe.probe.features import Features, standardisers

    g = np.random.default_rng(4)
    arrays = [g.normal(5, 3, size=(50, 4)).astype(np.float32) for _ in range(3)]
    before = [a.copy() for a in arrays]
    stats = standardisers([arrays[0]])
    xtr, xva = (Features([a], stats).rows(0, 50) for a in arrays[:2])
    for a, b in zip(arrays, before, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(xtr.mean(0).numpy(), 0, atol=1e-5)
    np.testing.assert_allclose(xtr.std(0, unbiased=False).numpy(), 1, atol=1e-5)
    expected = (arrays[1] - arrays[0].mean(0)) / arrays[0].std(0)
    np.testing.assert_allclose(xva.numpy(), expected, rtol=1e-4, atol=1e-4)

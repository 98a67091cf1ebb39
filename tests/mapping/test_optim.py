"""The mapping trainer's optimizer and clipping: cheaper, and the same update."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from xprobe.mapping.optim import clip_gradients, make_optimizer  # noqa: E402


def _params(scale: float, seed: int = 0) -> list:
    gen = torch.Generator().manual_seed(seed)
    params = [torch.nn.Parameter(torch.randn(*s, generator=gen)) for s in ((7, 5), (5,), (3, 4))]
    for p in params:
        p.grad = torch.randn(p.shape, generator=gen) * scale
    return params


@pytest.mark.parametrize("scale", [1e-3, 10.0, float("nan")])
def test_clip_gradients_matches_clip_grad_norm_bytes(scale):
    ours, theirs = _params(scale), _params(scale)
    norm = clip_gradients(ours, 5.0)
    want = torch.nn.utils.clip_grad_norm_(theirs, 5.0)
    for a, b in zip(ours, theirs, strict=True):
        assert a.grad.numpy().tobytes() == b.grad.numpy().tobytes()
    assert norm == pytest.approx(float(want), nan_ok=True)


def test_clip_gradients_leaves_gradients_within_the_norm_unwritten():
    """clip_grad_norm_ multiplies every gradient by 1.0 when nothing needs clipping: a full
    pass over the gradients that changes nothing; the trainer's clipping skips it."""
    params = _params(1e-3)
    versions = [p.grad._version for p in params]
    clip_gradients(params, 5.0)
    assert [p.grad._version for p in params] == versions
    big = _params(10.0)
    versions = [p.grad._version for p in big]
    clip_gradients(big, 5.0)
    assert all(p.grad._version > v for p, v in zip(big, versions, strict=True))


def test_make_optimizer_fused_only_when_asked_and_same_update():
    plain = make_optimizer(_params(1.0), 1e-2, fused=False)
    assert not plain.defaults.get("fused")
    a, b = _params(1.0), _params(1.0)
    fused = make_optimizer(a, 1e-2, fused=True)
    assert fused.defaults.get("fused") is True  # the CPU has torch's fused Adam kernel
    slow = make_optimizer(b, 1e-2, fused=False)
    for _ in range(3):
        fused.step()
        slow.step()
    for x, y in zip(a, b, strict=True):
        torch.testing.assert_close(x, y, rtol=1e-6, atol=1e-7)

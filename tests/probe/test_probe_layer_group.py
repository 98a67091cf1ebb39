"""The layer-wise wide model's step is the same arithmetic as before its rewrite, to the bit.

``_LayerGroup`` keeps the first layer's weights model by model, ``(M, d, width)``, and multiplies
them with one batched product; the coupled L2 goes into a gradient buffer kept across steps.
Before, the weights were ``(d, M, width)`` and went through ``einsum`` (which copied them, and
their gradient, every step), and the L2 term was a fresh tensor every step. The reference below
is that former step, written out; both run from the same weights on the same minibatches, with
early stopping's ``keep_only`` in between, and must agree exactly (weights and Adam moments),
with and without dropout, for the MLP and for logistic regression (``hidden`` 0).
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from xprobe.probe.classifiers import GridPoint  # noqa: E402
from xprobe.probe.layerwise import _LayerGroup  # noqa: E402
from xprobe.probe.minibatch import _Group  # noqa: E402


class _Former:
    """The former step: ``w1`` as ``(d, M, width)`` through ``einsum``, L2 in fresh tensors."""

    def __init__(self, grp: _LayerGroup) -> None:
        self.p = {k: v.detach().clone() for k, v in grp.p.items()}
        self.p["w1"] = self.p["w1"].permute(1, 0, 2).contiguous()  # (d, M, width)
        self.p = {k: v.requires_grad_(True) for k, v in self.p.items()}
        self.m = {k: torch.zeros_like(v) for k, v in self.p.items()}
        self.v = {k: torch.zeros_like(v) for k, v in self.p.items()}
        self.l2, self.drop, self.h = grp.l2.clone(), grp.drop.clone(), grp.h
        self.layer_of = grp.layer_of.clone()

    @staticmethod
    def gdim(k: str) -> int:
        return 1 if k == "w1" else 0

    def logits(self, x, gen):
        xs = x.index_select(1, self.layer_of)
        z = torch.einsum("nmd,dmw->nmw", xs, self.p["w1"]) + self.p["b1"]
        if not self.h:
            return z
        if bool((self.drop > 0).any()):
            keep = 1 - self.drop.view(1, -1, 1)
            z = z * (torch.rand(z.shape, generator=gen) < keep) / keep
        return torch.einsum("ngh,ghc->ngc", torch.sigmoid(z), self.p["w2"]) + self.p["b2"]

    def step(self, t: int) -> None:
        with torch.no_grad():
            names = list(self.p)
            ws = [self.p[k] for k in names]
            shapes = [[-1 if i == self.gdim(k) else 1 for i in range(w.dim())]
                      for k, w in zip(names, ws, strict=True)]  # fmt: skip
            grads = torch._foreach_mul(ws, [self.l2.view(s) for s in shapes])
            torch._foreach_add_(grads, [w.grad for w in ws])
            steps = [torch.tensor(float(t)) for _ in ws]
            torch._fused_adam_(ws, grads, [self.m[k] for k in names], [self.v[k] for k in names],
                               [], steps, lr=1e-3, beta1=0.9, beta2=0.999, weight_decay=0.0,
                               eps=1e-8, amsgrad=False, maximize=False)  # fmt: skip
            for w in ws:
                w.grad = None

    def keep_only(self, keep: list[int]) -> None:
        idx = torch.tensor(keep)
        for store in (self.m, self.v):
            for k in store:
                store[k] = store[k].index_select(self.gdim(k), idx)
        self.p = {k: v.detach().index_select(self.gdim(k), idx).requires_grad_(True)
                  for k, v in self.p.items()}  # fmt: skip
        self.l2, self.drop = self.l2[idx], self.drop[idx]
        self.layer_of = self.layer_of[idx]


def _loss(z, y):
    logp = torch.log_softmax(z, -1)
    return -logp.gather(2, y.view(-1, 1, 1).expand(-1, logp.shape[1], 1)).sum() / len(y)


@pytest.mark.parametrize(("hidden", "dropout"), [(20, 0.0), (20, 0.2), (0, 0.0)])
def test_layer_group_steps_equal_the_former_einsum_steps(hidden: int, dropout: float) -> None:
    n_layers, d, c, n = 3, 16, 3, 40
    points = [GridPoint(v, hidden, dropout) for v in (1e-4, 1e-2, 1e-1)]
    gen = torch.Generator().manual_seed(5)
    grp = _LayerGroup([_Group(points, d, c, gen, "cpu") for _ in range(n_layers)], "cpu")
    former = _Former(grp)
    data = torch.Generator().manual_seed(6)
    x = torch.randn(n, n_layers, d, generator=data)
    y = torch.randint(0, c, (n,), generator=data)
    g_new, g_old = (torch.Generator().manual_seed(7) for _ in range(2))
    for t in range(1, 13):
        idx = torch.randperm(n, generator=data)[:8]
        _loss(grp.logits(x[idx], True, g_new), y[idx]).backward()
        grp.adam_step(1e-3, t)
        _loss(former.logits(x[idx], g_old), y[idx]).backward()
        former.step(t)
        if t == 6:  # some models stop early: both drop the same ones
            keep = [0, 2, 3, 7, 8]
            grp.keep_only(keep)
            former.keep_only(keep)
    for k in grp.p:
        old = former.p[k].detach()
        new = grp.p[k].detach()
        if k == "w1":
            old, m_old, v_old = (a.permute(1, 0, 2) for a in (old, former.m[k], former.v[k]))
        else:
            m_old, v_old = former.m[k], former.v[k]
        assert torch.equal(new, old), k
        assert torch.equal(grp.m[k], m_old) and torch.equal(grp.v[k], v_old), k
    with torch.no_grad():  # and the forward pass (validation, test) agrees to the bit
        assert torch.equal(grp.logits(x, False), former.logits(x, None) if not dropout else
                           _no_drop(former, x))  # fmt: skip


def _no_drop(former: _Former, x):
    drop, former.drop = former.drop, torch.zeros_like(former.drop)
    try:
        return former.logits(x, None)
    finally:
        former.drop = drop

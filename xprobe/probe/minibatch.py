"""Minibatch training of many probes at once (the MLP, and both probes under SentEval's protocol).

All grid points train **at once as one wide model**: the first layers of G models are one
``(d, G*H)`` matrix, so a minibatch costs one large matrix product instead of G small ones; L2
is coupled (added to the gradient, as ``Adam(weight_decay=...)`` in SentEval) per grid point, and
Adam is element-wise, so the G models do not interact: it is exactly G independent trainings
that share the minibatch order. A grid point that has stopped leaves the wide model, and the
weights of its best check are kept in memory (no re-training).

When to stop (:class:`StopRule`):

* ``converged`` protocol (the default for the MLP): after every pass, the validation **loss**
  (mean cross-entropy, a smooth quantity, unlike the accuracy, which moves in steps of 1/n and
  can stall for passes while the model still improves); a point stops after ``patience`` passes
  without a loss at least ``min_delta`` below its best, and never before ``min_epochs`` passes.
  Its weights at the lowest validation loss are kept.
* ``senteval`` protocol: SentEval's ``PyTorchClassifier.fit``: a validation accuracy check every
  4 passes, kept when strictly better; a counter of checks without improvement that is never
  reset, stopping at the check after it reaches 5 (tenacity), or after 200 passes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from xprobe.files import derive_seed

__all__ = ["StopRule", "train_minibatch"]


@dataclass(frozen=True)
class StopRule:
    check_every: int = 1
    patience: int = 5
    reset: bool = True  # a better check resets the counter (SentEval: never)
    min_epochs: int = 0
    on_loss: bool = True  # watch the validation loss (else the accuracy)
    min_delta: float = 1e-4
    max_epochs: int = 60


class _Group:
    """G models of the same shape (hidden size H, or H = 0 for LR) stored side by side;
    ``same_init``: every model starts from the same weights (SentEval re-seeds each fit).
    ``gdims``: the model axis of each parameter (``w1`` is ``(d, G, width)``: one wide
    product ``x @ w1.reshape(d, G * width)`` for inputs shared by every model)."""

    gdims: ClassVar[dict[str, int]] = {"w1": 1, "b1": 0, "w2": 0, "b2": 0}

    def __init__(self, points: list, d: int, c: int, gen, device, same_init: bool = False):
        import torch

        self.points = points
        self.ids = list(range(len(points)))  # positions in the caller's grid
        g, h = len(points), points[0].hidden
        self.h, self.c = h, c
        gd = 1 if same_init else g
        p: dict[str, torch.Tensor] = {}
        width = h if h else c
        bound = 1.0 / math.sqrt(d)  # torch.nn.Linear's default init
        p["w1"] = (torch.rand(d, gd, width, generator=gen) * 2 - 1) * bound
        p["b1"] = (torch.rand(gd, width, generator=gen) * 2 - 1) * bound
        if h:
            b2 = 1.0 / math.sqrt(h)
            p["w2"] = (torch.rand(gd, h, c, generator=gen) * 2 - 1) * b2
            p["b2"] = (torch.rand(gd, c, generator=gen) * 2 - 1) * b2
        if same_init:
            p = {k: v.repeat_interleave(g, dim=self.gdims[k]) for k, v in p.items()}
        self.p = {k: v.to(device).requires_grad_(True) for k, v in p.items()}
        self.m = {k: torch.zeros_like(v) for k, v in self.p.items()}
        self.v = {k: torch.zeros_like(v) for k, v in self.p.items()}
        self.l2 = torch.tensor([pt.l2 for pt in points], device=device)
        self.drop = torch.tensor([pt.dropout for pt in points], device=device)
        self._buf: dict[str, torch.Tensor] = {}  # the gradients with L2, reused every step

    def logits(self, x, train: bool, gen=None):
        """``(n, G, C)`` logits of every model in the group."""
        g = len(self.ids)
        width = self.h if self.h else self.c
        z = (x @ self.p["w1"].reshape(x.shape[1], g * width)).view(-1, g, width) + self.p["b1"]
        if not self.h:
            return z
        return self._hidden_to_logits(z, train, gen)

    def _hidden_to_logits(self, z, train: bool, gen=None):
        """Dropout (when training), sigmoid and the output layer over first-layer outputs ``z``."""
        import torch

        g = len(self.ids)
        if train and bool((self.drop > 0).any()):
            keep = 1 - self.drop.view(1, g, 1)
            mask = torch.rand(z.shape, generator=gen, device=z.device) < keep
            z = z * mask / keep
        a = torch.sigmoid(z)
        return torch.einsum("ngh,ghc->ngc", a, self.p["w2"]) + self.p["b2"]

    def keep_only(self, keep: list[int]) -> None:
        """Drop the models not at local positions ``keep`` (parameters and Adam state)."""
        import torch

        idx = torch.tensor(keep, dtype=torch.long, device=self.l2.device)
        for store in (self.m, self.v):
            for k in store:
                store[k] = store[k].index_select(self.gdims[k], idx)
        self.p = {
            k: v.detach().index_select(self.gdims[k], idx).requires_grad_(True)
            for k, v in self.p.items()
        }
        self._buf = {}
        self.l2, self.drop = self.l2[idx], self.drop[idx]
        self.ids = [self.ids[i] for i in keep]
        self.points = [self.points[i] for i in keep]

    def snapshot(self, local: int) -> dict:
        return {k: v.detach().select(self.gdims[k], local).clone() for k, v in self.p.items()}

    def adam_step(self, lr: float, t: int, b1=0.9, b2=0.999, eps=1e-8) -> None:
        """Adam with coupled L2 (``grad + l2 * w``), per grid point, as torch's weight_decay."""
        import torch

        with torch.no_grad():  # every parameter in one fused kernel
            names = list(self.p)
            ws = [self.p[k] for k in names]
            grads = []
            for k, w in zip(names, ws, strict=True):  # coupled L2: l2 * w + grad, in a
                buf = self._buf.get(k)  # buffer kept across steps (a fresh tensor a step,
                if buf is None:  # megabytes for a layer-wise group, cost more than the product)
                    buf = self._buf[k] = torch.empty_like(w)
                torch.mul(w, self.l2.view(_gshape(self.gdims[k], w.dim())), out=buf)
                grads.append(buf.add_(w.grad))
            steps = [torch.tensor(float(t), device=w.device) for w in ws]
            torch._fused_adam_(ws, grads, [self.m[k] for k in names], [self.v[k] for k in names],
                               [], steps, lr=lr, beta1=b1, beta2=b2, weight_decay=0.0, eps=eps,
                               amsgrad=False, maximize=False)  # fmt: skip
            for w in ws:
                w.grad = None


def _gshape(gdim: int, dims: int) -> list[int]:
    """The shape that broadcasts a per-model vector over a parameter whose model axis is
    ``gdim``."""
    shape = [1] * dims
    shape[gdim] = -1
    return shape


def forward_single(snap: dict, x):
    """Logits of one snapshotted model (no dropout)."""
    import torch

    z = x @ snap["w1"] + snap["b1"]
    if "w2" not in snap:
        return z
    return torch.sigmoid(z) @ snap["w2"] + snap["b2"]


def _scores(groups: list[_Group], x, y, chunk: int = 8192):
    """Per group, per model: (accuracy, mean cross-entropy) on features ``x`` and labels ``y``."""
    import torch

    n = max(len(x), 1)
    correct = [torch.zeros(len(g.ids), dtype=torch.long, device=y.device) for g in groups]
    nll = [torch.zeros(len(g.ids), dtype=torch.float64, device=y.device) for g in groups]
    with torch.no_grad():
        for a, xb in x.chunks(chunk):
            yb = y[a : a + len(xb)]
            for j, grp in enumerate(groups):
                z = grp.logits(xb, train=False)
                correct[j] += (z.argmax(-1) == yb[:, None]).sum(0)
                lp = torch.log_softmax(z, -1)
                nll[j] -= lp.gather(2, yb.view(-1, 1, 1).expand(-1, z.shape[1], 1)).sum(0)[:, 0]
    return [(c.cpu().numpy() / n, s.cpu().numpy() / n) for c, s in zip(correct, nll, strict=True)]


def train_minibatch(groups, xtr, ytr, xva, yva, cfg, rule: StopRule, seed: int, dgen, n_points,
                    bs: int):  # fmt: skip
    """The shared training loop (``xtr``/``xva``: :class:`~xprobe.probe.features.Features`,
    minibatch ``bs``); returns each point's validation accuracy at its kept weights, the kept
    weights, and the passes made."""
    import torch
    from tqdm import tqdm

    best_acc = np.full(n_points, -1.0)
    best_loss = np.full(n_points, np.inf)
    bad = np.zeros(n_points, dtype=int)
    snaps: list[dict] = [{} for _ in range(n_points)]
    perm_gen = torch.Generator().manual_seed(derive_seed(seed, "order") % (2**63))
    n, t, epoch = len(xtr), 0, 0
    bar = tqdm(total=rule.max_epochs, desc="train", unit="ep", disable=not cfg.progress,
               leave=False)  # fmt: skip
    while groups and epoch < rule.max_epochs:
        epoch += 1
        order = torch.randperm(n, generator=perm_gen).to(ytr.device)
        for i in range(0, n, bs):
            idx = order[i : i + bs]
            xb, yb = xtr.take(idx), ytr[idx]
            t += 1
            loss = 0
            for grp in groups:
                logp = torch.log_softmax(grp.logits(xb, True, dgen), -1)
                loss = loss - logp.gather(2, yb.view(-1, 1, 1).expand(-1, logp.shape[1], 1)).sum()
            (loss / len(idx)).backward()
            for grp in groups:
                grp.adam_step(cfg.lr, t)
        bar.update(1)
        if epoch % rule.check_every and epoch < rule.max_epochs:
            continue
        for grp, (acc, nll) in zip(groups, _scores(groups, xva, yva), strict=True):
            keep = []
            for local, gid in enumerate(grp.ids):
                better = (nll[local] < best_loss[gid] - rule.min_delta if rule.on_loss
                          else acc[local] > best_acc[gid])  # fmt: skip
                if better:
                    best_acc[gid], best_loss[gid] = acc[local], nll[local]
                    snaps[gid] = grp.snapshot(local)
                    bad[gid] = 0 if rule.reset else bad[gid]
                    keep.append(local)
                    continue
                stop = bad[gid] >= rule.patience  # SentEval tests before counting
                bad[gid] += 1
                if rule.reset:
                    stop = bad[gid] >= rule.patience and epoch >= rule.min_epochs
                if not stop:
                    keep.append(local)
            if len(keep) < len(grp.ids):
                grp.keep_only(keep)
        groups = [g for g in groups if g.ids]
        bar.set_postfix(best=f"{best_acc.max():.4f}", active=sum(len(g.ids) for g in groups))
    bar.close()
    return best_acc, snaps, epoch

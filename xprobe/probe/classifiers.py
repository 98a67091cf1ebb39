"""Probing classifiers on frozen embeddings: logistic regression and a one-hidden-layer MLP.

Model selection follows SentEval (Conneau & Kiela 2018): every point of a grid (L2 strength,
optionally hidden size x dropout) is trained on the training split with early stopping on the
validation split; the point with the best validation accuracy is selected (ties: the first grid
point, as ``np.argmax`` in SentEval) and its test accuracy is reported. The MLP is SentEval's:
``Linear(d, H) -> Dropout -> Sigmoid -> Linear(H, C)`` (X-Probe: H = 150).

What makes it fast (same selection, far less time):

* all grid points train **at once as one wide model**: the first layers of G models are one
  ``(d, G*H)`` matrix, so a minibatch costs one large matrix product instead of G small ones;
  L2 is coupled (added to the gradient, as ``Adam(weight_decay=...)`` in SentEval) per grid point,
  and Adam is element-wise, so the G models do not interact: it is exactly G independent trainings
  that share the minibatch order;
* inputs are standardised with the training mean/std and trained with large minibatches
  (up to 1024; Adam lr 1e-3); validation after every pass over the data, with a patience;
* a grid point that has stopped is dropped from the wide model, so its cost ends with it;
* the best weights of each point are kept in memory, so there is no final re-training.

Example::

    res = train_select(Xtr, ytr, Xva, yva, Xte, yte, kind="lr", grid="default", seed=0)
    res.test_acc, res.selected.l2, res.dev_acc
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

import numpy as np

from xprobe.encoders.device import resolve_device
from xprobe.errors import XProbeError
from xprobe.files import derive_seed

__all__ = [
    "GRIDS",
    "GridPoint",
    "ProbeResult",
    "TrainConfig",
    "grid_points",
    "resolve_device",
    "train_select",
]

log = logging.getLogger(__name__)

# SentEval's SplitClassifier uses [10**t for t in range(-5, -1)]; the brief's grid adds 1e-1.
L2_SENTEVAL = (1e-5, 1e-4, 1e-3, 1e-2)
L2_DEFAULT = (1e-5, 1e-4, 1e-3, 1e-2, 1e-1)
HIDDEN_FULL = (50, 100, 200)
DROPOUT_FULL = (0.0, 0.1, 0.2)
GRIDS = ("default", "senteval", "full", "none")


@dataclass(frozen=True)
class GridPoint:
    """One hyperparameter setting: L2 strength, hidden units (0 = logistic regression), dropout."""

    l2: float
    hidden: int = 0
    dropout: float = 0.0


@dataclass
class TrainConfig:
    """Training settings shared by all grid points.

    ``batch_size``/``lr``: Adam minibatch size and learning rate; ``max_epochs``: passes over the
    training split; ``patience``: passes without a better validation accuracy before a grid point
    stops; ``standardize``: z-score inputs with training statistics; ``device``: auto|cpu|cuda;
    ``min_steps``: the batch shrinks (not below 32) so that a pass has at least this many steps.
    """

    batch_size: int = 1024
    lr: float = 1e-3
    max_epochs: int = 60
    patience: int = 5
    standardize: bool = True
    device: str = "auto"
    min_steps: int = 32
    progress: bool = False


@dataclass
class ProbeResult:
    """The outcome of a selection: the chosen point, its accuracies, and every point's dev score."""

    selected: GridPoint
    dev_acc: float
    test_acc: float
    epochs: int
    n_train: int
    n_test: int
    grid_dev: list[tuple[GridPoint, float]] = field(default_factory=list)
    test_correct: np.ndarray | None = None  # per test item: prediction == label (bool)
    test_bits: float = float("nan")  # sum over test items of -log2 p(label | x) (MDL)


def grid_points(kind: str, grid: str = "default", hidden: int = 150) -> list[GridPoint]:
    """The grid for ``kind`` (``lr`` or ``mlp``): ``default`` (L2 1e-5..1e-1), ``senteval``
    (1e-5..1e-2, as SentEval's code), ``full`` (default x hidden {50,100,200} x dropout
    {0,0.1,0.2} for the MLP) or ``none`` (no L2)."""
    h = 0 if kind == "lr" else hidden
    if grid == "none":
        return [GridPoint(0.0, h)]
    if grid == "senteval":
        return [GridPoint(v, h) for v in L2_SENTEVAL]
    if grid == "default" or (grid == "full" and kind == "lr"):
        return [GridPoint(v, h) for v in L2_DEFAULT]
    if grid == "full":
        return [
            GridPoint(v, hh, dr) for hh in HIDDEN_FULL for dr in DROPOUT_FULL for v in L2_DEFAULT
        ]
    raise XProbeError(f"unknown grid {grid!r}; valid: {', '.join(GRIDS)}")


class _Group:
    """G models of the same shape (hidden size H, or H = 0 for LR) stored side by side."""

    def __init__(self, points: list[GridPoint], d: int, c: int, gen, device) -> None:
        import torch

        self.points = points
        self.ids = list(range(len(points)))  # positions in the caller's grid
        g, h = len(points), points[0].hidden
        self.h, self.c = h, c
        fan = d
        p: dict[str, torch.Tensor] = {}
        width = h if h else c
        bound = 1.0 / math.sqrt(fan)  # torch.nn.Linear's default init
        p["w1"] = (torch.rand(d, g, width, generator=gen) * 2 - 1) * bound
        p["b1"] = (torch.rand(g, width, generator=gen) * 2 - 1) * bound
        if h:
            b2 = 1.0 / math.sqrt(h)
            p["w2"] = (torch.rand(g, h, c, generator=gen) * 2 - 1) * b2
            p["b2"] = (torch.rand(g, c, generator=gen) * 2 - 1) * b2
        self.p = {k: v.to(device).requires_grad_(True) for k, v in p.items()}
        self.m = {k: torch.zeros_like(v) for k, v in self.p.items()}
        self.v = {k: torch.zeros_like(v) for k, v in self.p.items()}
        self.l2 = torch.tensor([pt.l2 for pt in points], device=device)
        self.drop = torch.tensor([pt.dropout for pt in points], device=device)

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
                store[k] = store[k].index_select(_gdim(k), idx)
        self.p = {
            k: v.detach().index_select(_gdim(k), idx).requires_grad_(True)
            for k, v in self.p.items()
        }
        self.l2, self.drop = self.l2[idx], self.drop[idx]
        self.ids = [self.ids[i] for i in keep]
        self.points = [self.points[i] for i in keep]

    def snapshot(self, local: int) -> dict:
        return {k: v.detach().select(_gdim(k), local).clone() for k, v in self.p.items()}

    def adam_step(self, lr: float, t: int, b1=0.9, b2=0.999, eps=1e-8) -> None:
        """Adam with coupled L2 (``grad + l2 * w``), per grid point, as torch's weight_decay."""
        import torch

        with torch.no_grad():
            for k, w in self.p.items():
                shape = [1] * w.dim()
                shape[_gdim(k)] = -1
                grad = w.grad + self.l2.view(shape) * w
                self.m[k].mul_(b1).add_(grad, alpha=1 - b1)
                self.v[k].mul_(b2).addcmul_(grad, grad, value=1 - b2)
                denom = (self.v[k] / (1 - b2**t)).sqrt_().add_(eps)
                w.addcdiv_(self.m[k], denom, value=-lr / (1 - b1**t))
                w.grad = None


def _gdim(name: str) -> int:
    return 1 if name == "w1" else 0


def _forward_single(snap: dict, x):
    """Logits of one snapshotted model (no dropout)."""
    import torch

    z = x @ snap["w1"] + snap["b1"]
    if "w2" not in snap:
        return z
    return torch.sigmoid(z) @ snap["w2"] + snap["b2"]


def _accuracies(groups: list[_Group], x, y, chunk: int = 8192) -> list[np.ndarray]:
    """Per group, per model: accuracy on (x, y)."""
    import torch

    correct = [torch.zeros(len(g.ids), dtype=torch.long, device=x.device) for g in groups]
    with torch.no_grad():
        for i in range(0, len(x), chunk):
            xb, yb = x[i : i + chunk], y[i : i + chunk]
            for j, grp in enumerate(groups):
                pred = grp.logits(xb, train=False).argmax(-1)
                correct[j] += (pred == yb[:, None]).sum(0)
    return [c.cpu().numpy() / max(len(x), 1) for c in correct]


def column_moments(x, chunk: int = 2048):
    """Per-column mean and population std of a float32 ``(n, d)`` tensor, as float64.

    Chunk by chunk: float32 sums within a chunk, float64 across chunks; the first pass sums
    deviations from the first row (so a large offset does not eat float32's precision), the
    second the squared deviations from the mean. No full-size copy is made: on 100k x 4096
    inputs this takes about 2 s where ``x.double().std(0)`` took 9 s and two 3 GB copies.
    """
    import torch

    n = max(x.shape[0], 1)
    total = torch.zeros(x.shape[1], dtype=torch.float64)
    shift = x[0].clone() if x.shape[0] else torch.zeros(x.shape[1])
    for i in range(0, x.shape[0], chunk):
        total += (x[i : i + chunk] - shift).sum(0)
    mean = shift.double() + total / n
    m32 = mean.float()
    sq = torch.zeros_like(total)
    for i in range(0, x.shape[0], chunk):
        d = x[i : i + chunk] - m32
        sq += (d * d).sum(0)
    return mean, (sq / n).sqrt()


def _prepare(arrays, standardize: bool, device: str):
    import torch

    xtr = torch.as_tensor(np.asarray(arrays[0], dtype=np.float32))
    out = [xtr] + [torch.as_tensor(np.asarray(a, dtype=np.float32)) for a in arrays[1:]]
    if standardize:
        mean, std = column_moments(xtr)
        std = torch.where(std > 1e-8, std, torch.ones_like(std))
        mean, std = mean.float(), std.float()
        # one new array each (the callers' arrays are never modified)
        out = [a.sub(mean).div_(std) for a in out]
    return [a.to(device) for a in out]


def train_select(
    xtr: np.ndarray,
    ytr: np.ndarray,
    xva: np.ndarray,
    yva: np.ndarray,
    xte: np.ndarray,
    yte: np.ndarray,
    kind: str = "mlp",
    grid: str | list[GridPoint] = "default",
    seed: int = 0,
    n_classes: int | None = None,
    hidden: int = 150,
    config: TrainConfig | None = None,
) -> ProbeResult:
    """Train every grid point on train, select on validation, report test accuracy.

    ``kind`` is ``lr`` or ``mlp``; ``grid`` a grid name (see :func:`grid_points`) or a list of
    points; labels are integer class indices; ``n_classes`` defaults to ``max(label) + 1``.
    """
    import torch

    cfg = config or TrainConfig()
    points = grid if isinstance(grid, list) else grid_points(kind, grid, hidden)
    device = resolve_device(cfg.device)
    c = int(n_classes or 1 + max(int(ytr.max()), int(yva.max()), int(yte.max())))
    xtr_t, xva_t, xte_t = _prepare((xtr, xva, xte), cfg.standardize, device)
    ytr_t, yva_t, yte_t = (torch.as_tensor(np.asarray(a), device=device) for a in (ytr, yva, yte))
    gen = torch.Generator().manual_seed(derive_seed(seed, "init") % (2**63))
    dgen = torch.Generator(device=device).manual_seed(derive_seed(seed, "dropout") % (2**63))
    hs = sorted({pt.hidden for pt in points})
    groups = []
    for h in hs:
        members = [i for i, pt in enumerate(points) if pt.hidden == h]
        grp = _Group([points[i] for i in members], xtr_t.shape[1], c, gen, device)
        grp.ids = members
        groups.append(grp)
    best, snaps, epochs = _train(groups, xtr_t, ytr_t, xva_t, yva_t, cfg, seed, dgen, len(points))
    sel = int(np.argmax(best))
    with torch.no_grad():
        logits = [
            _forward_single(snaps[sel], xte_t[i : i + 8192]) for i in range(0, len(xte_t), 8192)
        ]
        logits_t = torch.cat(logits) if logits else torch.zeros((0, c), device=device)
        pred = logits_t.argmax(-1)
        logp = torch.log_softmax(logits_t.double(), -1).gather(1, yte_t.view(-1, 1))
        nll_bits = float(-logp.sum().item() / math.log(2))
    hit = pred == yte_t
    test_acc = int(hit.sum().item()) / len(yte_t) if len(yte_t) else float("nan")
    return ProbeResult(
        selected=points[sel],
        dev_acc=float(best[sel]),
        test_acc=test_acc,
        epochs=epochs,
        n_train=len(ytr),
        n_test=len(yte),
        grid_dev=[(pt, float(b)) for pt, b in zip(points, best, strict=False)],
        test_correct=hit.cpu().numpy(),
        test_bits=nll_bits,
    )


def _train(groups, xtr, ytr, xva, yva, cfg: TrainConfig, seed: int, dgen, n_points: int):
    """The shared training loop; returns best dev accuracy, best snapshot per grid point, epochs."""
    import torch
    from tqdm import tqdm

    best = np.full(n_points, -1.0)
    bad = np.zeros(n_points, dtype=int)
    snaps: list[dict] = [{} for _ in range(n_points)]
    perm_gen = torch.Generator().manual_seed(derive_seed(seed, "order") % (2**63))
    n, t, epoch = len(xtr), 0, 0
    bs = max(1, min(cfg.batch_size, max(32, math.ceil(n / cfg.min_steps))))
    bar = tqdm(total=cfg.max_epochs, desc="train", unit="ep", disable=not cfg.progress, leave=False)
    while groups and epoch < cfg.max_epochs:
        epoch += 1
        order = torch.randperm(n, generator=perm_gen).to(xtr.device)
        for i in range(0, n, bs):
            idx = order[i : i + bs]
            xb, yb = xtr[idx], ytr[idx]
            t += 1
            loss = 0
            for grp in groups:
                logp = torch.log_softmax(grp.logits(xb, True, dgen), -1)
                loss = loss - logp.gather(2, yb.view(-1, 1, 1).expand(-1, logp.shape[1], 1)).sum()
            (loss / len(idx)).backward()
            for grp in groups:
                grp.adam_step(cfg.lr, t)
        accs = _accuracies(groups, xva, yva)
        for grp, acc in zip(groups, accs, strict=False):
            keep = []
            for local, (gid, a) in enumerate(zip(grp.ids, acc, strict=False)):
                if a > best[gid]:
                    best[gid], bad[gid] = a, 0
                    snaps[gid] = grp.snapshot(local)
                else:
                    bad[gid] += 1
                if bad[gid] < cfg.patience:
                    keep.append(local)
            if len(keep) < len(grp.ids):
                grp.keep_only(keep)
        groups = [g for g in groups if g.ids]
        bar.update(1)
        bar.set_postfix(best=f"{best.max():.4f}", active=sum(len(g.ids) for g in groups))
    bar.close()
    return best, snaps, epoch

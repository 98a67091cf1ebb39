"""Probing classifiers on frozen embeddings: logistic regression and a one-hidden-layer MLP.

Model selection follows SentEval (Conneau & Kiela 2018): every point of a grid (L2 strength,
optionally hidden size x dropout) is trained on the training split; the point with the best
validation accuracy is selected (ties: the first grid point, as ``np.argmax`` in SentEval) and
its test accuracy is reported. The MLP is SentEval's: ``Linear(d, H) -> Dropout -> Sigmoid ->
Linear(H, C)`` (X-Probe: H = 150). Inputs are z-scored with the training split's statistics,
on the fly (:mod:`xprobe.probe.features`: no standardised copy of the embeddings).

Two protocols (``TrainConfig.protocol``, ``xprobe probe --protocol``):

* ``converged`` (default): ``lr`` is solved **to convergence** for every L2 point at once
  (:mod:`xprobe.probe.convex`: full-batch L-BFGS; the same optimum as scikit-learn's
  ``LogisticRegression(C=1/(n*l2))``), so its accuracy depends on the features and the L2 grid
  only, not on an optimiser budget or a seed. The ``mlp`` trains with Adam (lr 1e-3, minibatches
  up to 1024) as one wide model (:mod:`xprobe.probe.minibatch`) and each point stops on its
  validation *loss* (patience 5 passes, at least 10 passes), keeping its weights at the lowest
  loss.
* ``senteval``: SentEval's ``SplitClassifier`` exactly as configured for the probing tasks
  (Conneau et al. 2018): raw (not standardised) inputs, Adam lr 1e-3 with ``weight_decay`` = L2,
  batch 64, a validation accuracy check every 4 passes, tenacity 5 (a counter never reset), at
  most 200 passes, every L2 fit from the same initial weights and minibatch order, dev
  accuracies rounded to 0.01 % before the argmax; SentEval's final re-training with the chosen
  L2 repeats that L2's fit (same seed), so its kept weights are used. For comparisons with
  published numbers.

Example::

    res = train_select(Xtr, ytr, Xva, yva, Xte, yte, kind="lr", grid="default", seed=0)
    res.test_acc, res.selected.l2, res.dev_acc
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field, replace

import numpy as np

from xprobe.encoders.device import resolve_device
from xprobe.errors import XProbeError
from xprobe.files import derive_seed
from xprobe.probe.features import Features, column_moments, standardisers
from xprobe.probe.minibatch import StopRule, _Group, forward_single, train_minibatch

__all__ = [
    "GRIDS",
    "PROTOCOLS",
    "GridPoint",
    "ProbeResult",
    "TrainConfig",
    "column_moments",
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
PROTOCOLS = ("converged", "senteval")


@dataclass(frozen=True)
class GridPoint:
    """One hyperparameter setting: L2 strength, hidden units (0 = logistic regression), dropout."""

    l2: float
    hidden: int = 0
    dropout: float = 0.0


@dataclass
class TrainConfig:
    """Training settings shared by all grid points.

    ``protocol``: ``converged`` or ``senteval`` (module docstring; ``senteval`` fixes batch,
    learning rate, passes, checks and standardisation to SentEval's values). MLP (converged):
    ``batch_size``/``lr``: Adam minibatch size and learning rate; ``max_epochs``: passes at most;
    ``patience``: passes without a validation loss ``min_delta`` below the best before a point
    stops, not before ``min_epochs``; ``min_steps``: the batch shrinks (not below 32) so that a
    pass has at least this many steps. LR (converged): ``tol`` (largest gradient component of
    the mean-loss objective), ``rtol`` (certified suboptimality relative to the objective, for
    L2 > 0: :mod:`xprobe.probe.convex`), ``max_iter`` and ``history`` (pairs kept; None: as
    many as fit in about 200 MB for the whole solve) of L-BFGS. ``standardize``: z-score
    inputs with training statistics; ``device``: auto|cpu|cuda.
    """

    batch_size: int = 1024
    lr: float = 1e-3
    max_epochs: int = 60
    patience: int = 5
    standardize: bool = True
    device: str = "auto"
    min_steps: int = 32
    progress: bool = False
    protocol: str = "converged"
    min_epochs: int = 10
    min_delta: float = 1e-4
    tol: float = 1e-4
    rtol: float = 1e-3
    max_iter: int = 1000
    history: int | None = None


@dataclass
class ProbeResult:
    """The outcome of a selection: the chosen point, its accuracies, and every point's dev score.

    ``epochs``: passes of the minibatch trainer, or L-BFGS iterations (``lr``, converged)."""

    selected: GridPoint
    dev_acc: float
    test_acc: float
    epochs: int
    n_train: int
    n_test: int
    grid_dev: list[tuple[GridPoint, float]] = field(default_factory=list)
    test_correct: np.ndarray | None = None  # per test item: prediction == label (bool)
    test_bits: float = float("nan")  # sum over test items of -log2 p(label | x) (MDL)
    solver: str = "adam"  # adam | lbfgs
    state: object = None  # lbfgs: the solution (a warm start for a related fit)


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


def protocol_config(cfg: TrainConfig) -> tuple[TrainConfig, StopRule]:
    """The effective settings and the minibatch trainer's stopping rule of a protocol."""
    if cfg.protocol == "senteval":
        eff = replace(cfg, batch_size=64, lr=1e-3, standardize=False)
        return eff, StopRule(4, 5, False, 0, False, 0.0, 204)
    if cfg.protocol != "converged":
        raise XProbeError(f"unknown protocol {cfg.protocol!r}; valid: {', '.join(PROTOCOLS)}")
    rule = StopRule(1, cfg.patience, True, cfg.min_epochs, True, cfg.min_delta, cfg.max_epochs)
    return cfg, rule


def batch_for(cfg: TrainConfig, n: int) -> int:
    """The minibatch: ``cfg.batch_size``, shrunk (not below 32) to give ``min_steps`` a pass;
    SentEval's protocol keeps 64."""
    if cfg.protocol == "senteval":
        return 64
    return max(1, min(cfg.batch_size, max(32, math.ceil(n / cfg.min_steps))))


def select(best: np.ndarray, protocol: str) -> int:
    """The selected grid point: the first best dev accuracy (SentEval: rounded to 0.01 %)."""
    scores = np.round(100 * best, 2) if protocol == "senteval" else best
    return int(np.argmax(scores))


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
    init: object = None,
) -> ProbeResult:
    """Train every grid point on train, select on validation, report test accuracy.

    ``kind`` is ``lr`` or ``mlp``; ``grid`` a grid name (see :func:`grid_points`) or a list of
    points; labels are integer class indices; ``n_classes`` defaults to ``max(label) + 1``;
    ``init``: a previous ``lr`` result's ``state`` to start L-BFGS from (same optimum).
    """
    import torch

    cfg, rule = protocol_config(config or TrainConfig())
    points = grid if isinstance(grid, list) else grid_points(kind, grid, hidden)
    device = resolve_device(cfg.device)
    c = int(n_classes or 1 + max(int(ytr.max()), int(yva.max()), int(yte.max())))
    stats = standardisers([xtr], device) if cfg.standardize else None
    tr, va, te = (Features([a], stats, device) for a in (xtr, xva, xte))
    ytr_t, yva_t, yte_t = (torch.as_tensor(np.asarray(a), device=device) for a in (ytr, yva, yte))
    if kind == "lr" and cfg.protocol == "converged":
        from xprobe.probe.fastgrid import fit_select

        fit, best = fit_select([tr], ytr_t, [va], yva_t, points, c, cfg, init)
        sel = select(best[0], cfg.protocol)
        logits = fit.logits_of(0, te, sel)
        return _result(points, best[0], sel, logits, yte_t, fit.iterations, len(ytr), fit)
    gen = torch.Generator().manual_seed(derive_seed(seed, "init") % (2**63))
    dgen = torch.Generator(device=device).manual_seed(derive_seed(seed, "dropout") % (2**63))
    same = cfg.protocol == "senteval"
    groups = []
    for h in sorted({pt.hidden for pt in points}):
        members = [i for i, pt in enumerate(points) if pt.hidden == h]
        grp = _Group([points[i] for i in members], tr.dim, c, gen, device, same_init=same)
        grp.ids = members
        groups.append(grp)
    bs = batch_for(cfg, len(tr))
    best, snaps, epochs = train_minibatch(groups, tr, ytr_t, va, yva_t, cfg, rule, seed, dgen,
                                          len(points), bs)  # fmt: skip
    sel = select(best, cfg.protocol)
    with torch.no_grad():
        parts = [forward_single(snaps[sel], xb) for _, xb in te.chunks(8192)]
        logits = torch.cat(parts) if parts else torch.zeros((0, c), device=device)
    return _result(points, best, sel, logits, yte_t, epochs, len(ytr))


def _result(points, best, sel: int, logits, yte, epochs: int, n: int, fit=None) -> ProbeResult:
    """A :class:`ProbeResult` from the selected point's test logits ``(n_test, C)``."""
    import torch

    with torch.no_grad():
        pred = logits.argmax(-1)
        logp = torch.log_softmax(logits.double(), -1).gather(1, yte.view(-1, 1))
        nll_bits = float(-logp.sum().item() / math.log(2))
    hit = pred == yte
    test_acc = int(hit.sum().item()) / len(yte) if len(yte) else float("nan")
    return ProbeResult(
        selected=points[sel],
        dev_acc=float(best[sel]),
        test_acc=test_acc,
        epochs=epochs,
        n_train=n,
        n_test=len(yte),
        grid_dev=[(pt, float(b)) for pt, b in zip(points, best, strict=False)],
        test_correct=hit.cpu().numpy(),
        test_bits=nll_bits,
        solver="adam" if fit is None else "lbfgs",
        state=None if fit is None else fit.theta,
    )

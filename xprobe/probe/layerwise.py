"""Layer-wise probing: every layer's classifiers (x every grid point) trained as one wide model.

:func:`xprobe.probe.classifiers.train_select` trains the G grid points of one input at once. For
L layers of a transformer this module trains L x G models at once.

* ``lr`` (converged protocol): one block L-BFGS over every (layer, L2 point)
  (:mod:`xprobe.probe.convex`), each block solved as if alone; layers may differ in width.
* ``mlp`` (and both under ``--protocol senteval``): a minibatch is gathered from every layer
  and stacked ``(b, L, d)`` (each layer standardised with its own training statistics, on the
  fly), model ``m`` reads layer ``layer_of[m]``, and one minibatch step is one batched product
  for all of them (first-layer weights ``(M, d, width)``: read where they lie, no copy). Each
  layer's models are initialised exactly as ``train_select`` would for that layer alone (the
  same seeded generator), they share the minibatch order, their losses are summed but their
  gradients do not mix, and each stops on its own validation loss: the result
  per layer is that of ``train_select`` on the layer alone (up to float rounding; a test checks
  it), at a fraction of the cost. Layers of different widths (a ``st:`` model whose last module
  is a ``Dense``) fall back to one ``train_select`` per layer.

Example::

    results = train_select_layers([X0tr, X1tr], ytr, [X0va, X1va], yva, [X0te, X1te], yte)
    [r.test_acc for r in results]
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

import numpy as np

from xprobe.files import derive_seed, np_rng
from xprobe.probe.classifiers import (
    ProbeResult,
    TrainConfig,
    _result,
    batch_for,
    grid_points,
    protocol_config,
    resolve_device,
    select,
    train_select,
)
from xprobe.probe.datasets import ProbingSet
from xprobe.probe.features import Features, standardisers
from xprobe.probe.minibatch import _Group, forward_single, train_minibatch

__all__ = ["cap_eval", "encoder_layers", "train_select_layers"]


class _LayerGroup(_Group):
    """Models of one hidden size over stacked layer inputs; model ``m`` reads ``layer_of[m]``.
    ``w1`` is ``(M, d, width)``: model by model, the batched product reads its weights where
    they lie (a ``(d, M, width)`` one was copied twice a step, forward and backward)."""

    gdims: ClassVar[dict[str, int]] = {"w1": 0, "b1": 0, "w2": 0, "b2": 0}

    def __init__(self, parts: list[_Group], device) -> None:
        """Join one :class:`_Group` per layer (same points, same hidden size) side by side."""
        import torch

        first = parts[0]
        self.points = [pt for q in parts for pt in q.points]
        self.h, self.c = first.h, first.c
        self.ids = list(range(len(self.points)))
        layer_of = [layer for layer, q in enumerate(parts) for _ in q.points]
        self.p = {
            k: torch.cat([q.p[k].detach().movedim(q.gdims[k], 0) for q in parts])
            .contiguous()
            .requires_grad_(True)
            for k in first.p
        }
        self.m = {k: torch.zeros_like(v) for k, v in self.p.items()}
        self.v = {k: torch.zeros_like(v) for k, v in self.p.items()}
        self.l2 = torch.cat([q.l2 for q in parts])
        self.drop = torch.cat([q.drop for q in parts])
        self.layer_of = torch.tensor(layer_of, dtype=torch.long, device=device)
        self._buf = {}

    def logits(self, x, train: bool, gen=None):
        """``(n, M, C)`` logits; ``x`` is ``(n, L, d)``."""
        import torch

        xs = x.index_select(1, self.layer_of).transpose(0, 1)  # (M, n, d)
        z = torch.bmm(xs, self.p["w1"]).transpose(0, 1) + self.p["b1"]  # (n, M, width)
        if not self.h:
            return z
        return self._hidden_to_logits(z, train, gen)

    def keep_only(self, keep: list[int]) -> None:
        import torch

        idx = torch.tensor(keep, dtype=torch.long, device=self.layer_of.device)
        self.layer_of = self.layer_of.index_select(0, idx)
        super().keep_only(keep)


def train_select_layers(
    xtr: Sequence[np.ndarray],
    ytr: np.ndarray,
    xva: Sequence[np.ndarray],
    yva: np.ndarray,
    xte: Sequence[np.ndarray],
    yte: np.ndarray,
    kind: str = "mlp",
    grid: str = "default",
    seed: int = 0,
    n_classes: int | None = None,
    hidden: int = 150,
    config: TrainConfig | None = None,
) -> list[ProbeResult]:
    """One :class:`ProbeResult` per layer (inputs given as one array per layer, same rows)."""
    import torch

    cfg, rule = protocol_config(config or TrainConfig())
    n_layers = len(xtr)
    same_width = len({a.shape[1] for a in (*xtr, *xva, *xte)}) == 1
    converged_lr = kind == "lr" and cfg.protocol == "converged"
    if n_layers == 1 or not (same_width or converged_lr):
        return [
            train_select(a, ytr, b, yva, t, yte, kind, grid, seed, n_classes, hidden, cfg)
            for a, b, t in zip(xtr, xva, xte, strict=True)
        ]
    points = grid_points(kind, grid, hidden)
    device = resolve_device(cfg.device)
    c = int(n_classes or 1 + max(int(ytr.max()), int(yva.max()), int(yte.max())))
    stats = standardisers(xtr, device) if cfg.standardize else None
    ytr_t, yva_t, yte_t = (torch.as_tensor(np.asarray(a), device=device) for a in (ytr, yva, yte))
    if converged_lr:  # every layer x L2 point in one L-BFGS (widths may differ)
        from xprobe.probe.fastgrid import fit_select

        def one(xs, i):
            return Features([xs[i]], None if stats is None else [stats[i]], device)

        trs = [one(xtr, i) for i in range(n_layers)]
        vas = [one(xva, i) for i in range(n_layers)]
        fit, best = fit_select(trs, ytr_t, vas, yva_t, points, c, cfg)
        out = []
        for i in range(n_layers):
            sel = select(best[i], cfg.protocol)
            logits = fit.logits_of(i, one(xte, i), sel)
            res = _result(points, best[i], sel, logits, yte_t, fit.iterations, len(ytr))
            out.append(replace(res, solver="lbfgs"))  # counts are L-BFGS iterations
        return out
    tr, va, te = (Features(x, stats, device, layered=True) for x in (xtr, xva, xte))
    # every layer's models start as train_select's would (same seeded generator per layer)
    gens = [
        torch.Generator().manual_seed(derive_seed(seed, "init") % (2**63)) for _ in range(n_layers)
    ]
    same = cfg.protocol == "senteval"
    groups = []
    g, d = len(points), tr.dim
    for h in sorted({pt.hidden for pt in points}):
        members = [i for i, pt in enumerate(points) if pt.hidden == h]
        parts = [_Group([points[i] for i in members], d, c, gen, device, same) for gen in gens]
        grp = _LayerGroup(parts, device)
        grp.ids = [layer * g + i for layer in range(n_layers) for i in members]
        groups.append(grp)
    dgen = torch.Generator(device=device).manual_seed(derive_seed(seed, "dropout") % (2**63))
    best, snaps, epochs = train_minibatch(groups, tr, ytr_t, va, yva_t, cfg, rule, seed, dgen,
                                          n_layers * g, batch_for(cfg, len(tr)))  # fmt: skip
    out = []
    for layer in range(n_layers):
        b, s = best[layer * g : (layer + 1) * g], snaps[layer * g : (layer + 1) * g]
        sel = select(b, cfg.protocol)
        with torch.no_grad():
            parts_ = [forward_single(s[sel], xb[:, layer]) for _, xb in te.chunks(8192)]
            logits = torch.cat(parts_) if parts_ else torch.zeros((0, c), device=device)
        out.append(_result(points, b, sel, logits, yte_t, epochs, len(ytr)))
    return out


def encoder_layers(encoder: object, language: str) -> tuple[int | None, ...]:
    """The layers a layer-wise encoder (``encode_layers``/``layer_id``) gives, after telling it
    the probing set's language (its detokeniser follows it); ``(None,)`` for other encoders."""
    if not (hasattr(encoder, "encode_layers") and hasattr(encoder, "layer_id")):
        return (None,)
    set_language = getattr(encoder, "set_language", None)
    if set_language is not None:
        set_language(language)
    return tuple(encoder.layers)  # type: ignore[attr-defined]


def cap_eval(ps: ProbingSet, max_dev: int | None, max_test: int | None) -> ProbingSet:
    """At most ``max_dev`` validation and ``max_test`` test sentences: a seeded uniform sample
    (label proportions kept in expectation), fixed per (language, task) so every seed and
    encoder sees the same rows. The dataset hash and protocol record the caps."""
    caps = {"va": max_dev, "te": max_test}
    cut = {s: n for s, n in caps.items() if n is not None and ps.size(s) > n}
    if not cut:
        return ps
    tokens, labels, rows = dict(ps.tokens), dict(ps.labels_of), dict(ps.rows)
    for split, n in cut.items():
        idx = np.sort(np_rng(0, ps.language, ps.task, split, "cap").permutation(ps.size(split))[:n])
        tokens[split] = [ps.tokens[split][i] for i in idx]
        labels[split] = [ps.labels_of[split][i] for i in idx]
        rows[split] = ps.rows[split][idx]
    note = ", ".join(f"{s} capped to {n}" for s, n in cut.items())
    digest = hashlib.sha256(f"{ps.sha256}|{note}".encode()).hexdigest()
    return replace(
        ps, tokens=tokens, labels_of=labels, rows=rows, sha256=digest,
        protocol=f"{ps.protocol}; {note}", _index={},
    )  # fmt: skip

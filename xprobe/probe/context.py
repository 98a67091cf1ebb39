"""One probing unit (a task, a classifier, a seed) from embeddings to result records.

:class:`ProbeContext` is what :func:`xprobe.probe.harness.run_probe` builds once per run: the
prepared encoder, the embedding cache and each task's embeddings (per layer; a layer-wise
encoder's distinct lines encoded once, :mod:`xprobe.probe.lines`; layers in blocks,
:mod:`xprobe.probe.streaming`), and for each :class:`Unit` the training of every layer
(:mod:`xprobe.probe.layerwise`, :mod:`xprobe.probe.classifiers`, the baselines, the sklearn
classifiers of :mod:`xprobe.probe.design`), the MDL code and control task when asked, and the
dev and test records of every layer. Cross-validated units go through
:class:`~xprobe.probe.crossval.CrossValidating`, mixed in. It logs as the harness did.

Example (what ``run_probe`` does for each unit)::

    ctx = ProbeContext(probed, dataset, opts, EmbeddingCache(opts.cache_dir))
    records = ctx.run_unit(Unit(ps, "mlp", 0))
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from xprobe import __version__
from xprobe.probe.baselines import BASELINES, run_baseline
from xprobe.probe.cache import sentences_hash
from xprobe.probe.checks import check_finite, check_npy
from xprobe.probe.classifiers import grid_points, train_select
from xprobe.probe.coverage import vocab_coverage, warn_low_coverage
from xprobe.probe.crossval import CrossValidating, CVPlan
from xprobe.probe.datasets import ProbingSet
from xprobe.probe.design import warn_few_per_class
from xprobe.probe.heartbeat import Heartbeat
from xprobe.probe.layerwise import train_select_layers
from xprobe.probe.lines import DistinctLines
from xprobe.probe.probed import ProbedEncoder
from xprobe.probe.records import pack_correct
from xprobe.probe.streaming import joint_history, joint_iterations, plan_blocks

__all__ = ["ProbeContext", "Unit"]

log = logging.getLogger("xprobe.probe.harness")  # the records' messages, as before the split


@dataclass
class Unit:
    """One task (a probing set), one classifier, one seed: the records of every layer."""

    ps: ProbingSet
    classifier: str
    seed: int


class ProbeContext(CrossValidating):
    """A run's encoder, cache, options and per-task state; :meth:`run_unit` gives a unit's
    records (cross-validated ones through :class:`CrossValidating`)."""

    def __init__(self, probed: ProbedEncoder, dataset: str, opts: Any, cache) -> None:
        # opts: the run's xprobe.probe.harness.ProbeOptions (not imported: harness imports this)
        self.probed, self.name = probed, probed.name  # the encoder side, prepared once
        self.dataset, self.opts, self.cache = dataset, opts, cache
        self.partial: set[str] = set()  # task files the manifest marks partial
        self._emb: dict[tuple[str, str], dict] = {}
        self._coverage: dict[str, dict[str, int] | None] = {}
        self.one_class: dict[str, dict[str, str]] = {}
        self._capped: set[str] = set()  # tasks whose --max-train cap was checked
        self.plans: dict[str, CVPlan] = {}  # cross-validation: each task's folds (by file)
        self.lines: DistinctLines | None = None  # a layer-wise encoder's lines, encoded once
        self.beat = Heartbeat("probe", 0, 0)  # progress, logged once a minute (run_probe)

    def forget(self) -> None:
        self._emb.clear()

    def encoder_id(self, layer: int | None = None) -> str:
        return self.probed.id(layer)

    def layers(self, ps: ProbingSet) -> tuple[int | None, ...]:
        """The layers probed (a layer-wise encoder's, for ``ps``'s language), else ``(None,)``."""
        return self.probed.layers(ps.language)

    def base(
        self, ps: ProbingSet, classifier: str, seed: int, layer: int | None = None
    ) -> dict[str, Any]:
        baseline = classifier in BASELINES
        trained = classifier.removeprefix("mdl-") in ("lr", "mlp")
        rec = {
            "encoder": "baseline" if baseline else self.name,
            "encoder_id": "none" if baseline else self.encoder_id(layer),
            "dataset": self.dataset,
            "language": ps.language,
            "task": ps.task,
            "classifier": classifier,
            "seed": seed,
            "metric": "accuracy",
            "dataset_hash": ps.sha256,
            "protocol": ps.protocol,
            "grid": self.opts.grid if trained else "none",
            **({"training_protocol": self.opts.train.protocol} if trained else {}),
            "max_train": self.opts.max_train,
            "version": __version__,
            **({} if baseline else self.probed.fields),
            **({"partial": True} if ps.file in self.partial else {}),
            **({"one_class": self.one_class[ps.file]} if ps.file in self.one_class else {}),
        }
        return rec if layer is None else {**rec, "layer": layer}

    def unit_layers(self, ps: ProbingSet, classifier: str) -> tuple[int | None, ...]:
        return (None,) if classifier in BASELINES else self.layers(ps)

    def skeletons(self, ps: ProbingSet, classifier: str, seed: int) -> list[dict[str, Any]]:
        return [
            {**self.base(ps, classifier, seed, layer), "split": s}
            for layer in self.unit_layers(ps, classifier)
            for s in ("dev", "test")
        ]

    def embeddings(
        self, ps: ProbingSet, split: str, block: tuple | None = None
    ) -> dict[int | None, np.ndarray]:
        """Per layer (``None`` for a one-vector encoder), the embeddings of a split (of the
        layers in ``block`` only, when given)."""
        key = (sentences_hash(ps.tokens[split]) + ps.protocol, split, block)
        if key not in self._emb:
            from xprobe.encoders.spec import NpyEmbeddings

            enc = self.probed.encoder
            desc = f"encode {ps.language}/{ps.task}/{split}"
            layers = block or self.layers(ps)
            if isinstance(enc, NpyEmbeddings):
                check_npy(enc, ps)
                self._emb[key] = {None: enc.for_rows(ps.file, ps.rows[split])}
            elif layers != (None,) and self.lines is not None:
                get = self.lines.features if block is None else self.lines.split_entries
                self._emb[key] = get(self.cache, enc, ps.tokens[split], layers,
                                     f"encode {ps.language}")  # fmt: skip
            elif layers != (None,):
                toks = ps.tokens[split]
                # a block of a streamed model: memory-mapped, read from disk as it is used
                self._emb[key] = self.cache.get_or_encode_layers(
                    enc, toks, layers, desc, mmap=block is not None
                )
            else:
                self._emb[key] = {
                    None: self.cache.get_or_encode(
                        enc, ps.tokens[split], self.opts.batch_size, desc
                    )
                }
            for layer, x in self._emb[key].items():
                at = "" if layer is None else f" layer {layer}"
                check_finite(x, f"{self.name}{at} ({self.encoder_id()})", ps, split)
        return self._emb[key]

    def run_unit(self, u: Unit) -> list[dict[str, Any]]:
        if u.ps.file in self.plans:
            return self.run_cv_unit(u, self.plans[u.ps.file])
        if u.ps.file not in self._capped:
            self._capped.add(u.ps.file)
            where = f"{u.ps.task} ({u.ps.language})"
            warn_few_per_class(u.ps.y("tr"), self.opts.max_train, where)
        ps, idx = _subsample(u.ps, self.opts.max_train, u.seed)
        log.info("%s %s/%s %s seed %d", self.name, ps.language, ps.task, u.classifier, u.seed)
        if u.classifier in BASELINES:
            res = run_baseline(u.classifier, ps, u.seed)
            results = {None: (res.dev_acc, res.test_acc, res.params, res.test_correct)}
            xs, n_tr = None, res.n_train
        else:
            y = (ps.y("tr"), ps.y("va"), ps.y("te"))
            results, xs = self._layer_results(u, ps, idx, y)
            n_tr = len(y[0])
        sizes = (n_tr, ps.size("va"), ps.size("te"))
        extras = xs or {}
        return [r for layer, res in results.items()
                for r in self._records(u, layer, res, sizes, extras.get(layer, {}))]  # fmt: skip

    def _records(self, u: Unit, layer, res: tuple, sizes: tuple, extra: dict) -> list[dict]:
        """The dev and test records of one layer: ``res`` = (dev, test, hyperparameters, test
        correctness), ``sizes`` = (training, dev, test items), ``extra``: the test record's."""
        dev, test, hp, hit = res
        b = {**self.base(u.ps, u.classifier, u.seed, layer), **self.input_fields(u)}
        if u.ps.file in self.plans:
            b["folds"] = self.plans[u.ps.file].sizes()
        out = [
            {**b, "split": split, "value": round(float(value), 6), "n_train": sizes[0],
             "n_test": n, "hyperparameters": hp}
            for split, value, n in (("dev", dev, sizes[1]), ("test", test, sizes[2]))
        ]  # fmt: skip
        if hit is not None:  # per-item correctness, for intervals and paired tests (report)
            out[-1]["correct"] = pack_correct(hit)
        out[-1].update(extra)
        return out

    def _layer_results(self, u: Unit, ps: ProbingSet, idx, y) -> tuple[dict, dict]:
        """Per layer, (dev, test, hyperparameters, test correctness) and the extra fields of
        its test record; the layers ``--layer-block`` at a time (xprobe.probe.streaming)."""
        layers = self.unit_layers(ps, u.classifier)
        blocks, widths = self._plan(ps, layers)
        lr = u.classifier == "lr" and len(blocks) > 1
        history = joint_history(widths, len(grid_points("lr", self.opts.grid)),
                                len(ps.labels)) if lr else None  # fmt: skip
        results: dict = {}
        extras: dict = {}
        for block in blocks:
            # only the sentences used are encoded (a --max-train subsample, capped dev/test)
            part = None if len(blocks) == 1 else block
            x = [self.embeddings(ps, s, part) for s in ("tr", "va", "te")]
            results.update(self._fit_layers(u.classifier, x, y, u.seed, len(ps.labels),
                                            joint=len(layers) > 1, history=history))  # fmt: skip
            for layer in block:
                extras[layer] = self._extras(u, idx, [p[layer] for p in x], y, len(ps.labels))
            self.beat.layers_done(len(block))
            if len(blocks) > 1:
                del x  # this block's features let go before the next is read
                self.forget()
        return (joint_iterations(results) if len(blocks) > 1 else results), extras

    def _plan(self, ps: ProbingSet, layers: tuple) -> tuple[list[tuple], list[int]]:
        """The blocks of layers probed together (``--layer-block``, else chosen from the
        features' size and ``--memory-budget``: xprobe.probe.streaming.plan_blocks) and every
        layer's width; every layer of every split is in the cache afterwards (encoded straight
        to disk, never every layer in memory)."""
        block = self.opts.layer_block
        if len(layers) == 1 or (block is not None and block >= len(layers)):
            return [layers], []
        enc, pool = self.probed.encoder, self.lines
        shapes = [
            pool.shapes(self.cache, enc, ps.size(s), layers, f"encode {ps.language}")
            if pool is not None else
            self.cache.layer_shapes(enc, ps.tokens[s], layers,
                                    f"encode {ps.language}/{ps.task}/{s}")
            for s in ("tr", "va", "te")
        ]  # fmt: skip
        sizes = [sum(4 * sh[k][0] * sh[k][1] for sh in shapes) for k in layers]
        blocks = plan_blocks(layers, sizes, block, self.opts.memory_budget,
                             f"{self.name} {ps.language}/{ps.task}")  # fmt: skip
        return blocks, [shapes[0][k][1] for k in layers]

    def _extras(self, u: Unit, idx, x: list[np.ndarray], y, n_classes: int) -> dict[str, Any]:
        """The MDL code (mdl-* classifiers) and control-task fields (--control) of one layer."""
        extra: dict[str, Any] = {}
        if u.classifier.startswith("mdl-"):
            extra["mdl"] = self._mdl(u, x[0], x[1], y, n_classes)
        if self.opts.control:
            from xprobe.probe.controls import control_fields

            def fit(*yc):
                return self._fit(u.classifier, x[0], x[1], x[2], yc, u.seed, n_classes)

            extra.update(control_fields(u.ps, idx, u.seed, fit))
        return extra

    def _mdl(self, u: Unit, xtr, xva, y, n_classes: int) -> dict[str, Any]:
        from xprobe.probe.mdl import online_code

        cfg = replace(self.opts.train, device=self.opts.device)
        kind = u.classifier.removeprefix("mdl-")
        res = online_code(xtr, y[0], xva, y[1], n_classes, kind, u.seed, self.opts.grid,
                          self.opts.hidden, cfg)  # fmt: skip
        return res.as_record()

    def _fit_layers(self, clf: str, x: list[dict], y, seed: int, n_classes: int,
                    joint: bool | None = None, history: int | None = None) -> dict:  # fmt: skip
        """Per layer, (dev, test, hyperparameters, test correctness): LR/MLP of every layer
        trained at once (``joint``: of a model's layers, default: more than one here)."""
        layers = list(x[0])
        if clf in ("lr", "mlp") and (len(layers) > 1 if joint is None else joint):
            cfg = replace(
                self.opts.train,
                device=self.opts.device,
                history=self.opts.train.history if history is None else history,
            )
            rs = train_select_layers(
                [x[0][k] for k in layers], y[0], [x[1][k] for k in layers], y[1],
                [x[2][k] for k in layers], y[2], kind=clf, grid=self.opts.grid, seed=seed,
                n_classes=n_classes, hidden=self.opts.hidden, config=cfg,
            )  # fmt: skip
            return {
                k: (r.dev_acc, r.test_acc, _hp(clf, r, joint=True), r.test_correct)
                for k, r in zip(layers, rs, strict=True)
            }
        return {k: self._fit(clf, x[0][k], x[1][k], x[2][k], y, seed, n_classes) for k in layers}

    def input_fields(self, u: Unit) -> dict[str, Any]:
        """Record fields about the input: overlap removed, the encoder's vocabulary coverage."""
        fields: dict[str, Any] = {"overlap_removed": dict(u.ps.overlap_removed)}
        if u.classifier not in BASELINES:
            if u.ps.file not in self._coverage:
                enc = self.probed.encoder
                self._coverage[u.ps.file] = cov = vocab_coverage(enc, u.ps)
                warn_low_coverage(cov, self.name, u.ps, getattr(enc, "vectors", None))
            if self._coverage[u.ps.file] is not None:
                fields["vocab_coverage"] = self._coverage[u.ps.file]
        return fields

    def _fit(self, clf: str, xtr, xva, xte, y, seed: int, n_classes: int):
        clf = clf.removeprefix("mdl-")
        if clf in ("lr", "mlp"):
            cfg = replace(self.opts.train, device=self.opts.device)
            r = train_select(
                xtr, y[0], xva, y[1], xte, y[2], kind=clf, grid=self.opts.grid, seed=seed,
                n_classes=n_classes, hidden=self.opts.hidden, config=cfg,
            )  # fmt: skip
            return r.dev_acc, r.test_acc, _hp(clf, r), r.test_correct
        from xprobe.probe.design import fit_sklearn

        r = fit_sklearn(clf, xtr, y[0], xva, y[1], xte, y[2], seed)
        return r.dev_acc, r.test_acc, r.params, r.test_correct


def _hp(clf: str, r: Any, joint: bool = False) -> dict[str, Any]:
    """A selection's hyperparameters; ``epochs_joint``: passes of a layer-wise joint training
    (until the last layer's last grid point stopped), not this layer's own count;
    ``iterations``: L-BFGS iterations of a converged lr (``_joint``: of all layers at once)."""
    what = "iterations" if getattr(r, "solver", "adam") == "lbfgs" else "epochs"
    hp = {"l2": r.selected.l2, f"{what}_joint" if joint else what: r.epochs}
    if clf == "mlp":
        hp.update(hidden=r.selected.hidden, dropout=r.selected.dropout)
    return hp


def _subsample(ps: ProbingSet, n: int | None, seed: int) -> tuple[ProbingSet, np.ndarray | None]:
    """At most ``n`` training sentences with the class proportions kept (Eger et al.; see
    design.stratified_subsample)."""
    if n is None or ps.size("tr") <= n:
        return ps, None
    from xprobe.probe.design import stratified_subsample

    idx = stratified_subsample(ps.y("tr"), n, seed, ps.language, ps.task)
    tokens = dict(ps.tokens, tr=[ps.tokens["tr"][i] for i in idx])
    labels = dict(ps.labels_of, tr=[ps.labels_of["tr"][i] for i in idx])
    rows = dict(ps.rows, tr=ps.rows["tr"][idx])
    return replace(ps, tokens=tokens, labels_of=labels, rows=rows, _index={}), idx

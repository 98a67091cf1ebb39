"""Probing orchestration: probing sets + an encoder -> result records.

For each task of a probing folder: read it (SentEval or X-Probe layout), make sure it has train,
validation and test splits (:func:`~xprobe.probe.datasets.ensure_train`), encode each split through
the embedding cache, train and select each requested classifier for each seed, and append one
record per (encoder, language, task, classifier, seed, split) to the results file. Work whose
records are already present is skipped (no encoding, no training) unless ``force``.

Classifiers: ``mlp`` and ``lr`` (:mod:`xprobe.probe.classifiers`), ``nb`` (Gaussian naive
Bayes) and ``rf`` (random forest) on the embeddings (:mod:`xprobe.probe.design`), and the
encoder-free baselines ``majority``, ``length``, ``nb-unigram``, ``nb-bigram``
(:mod:`xprobe.probe.baselines`), whose records carry ``encoder: "baseline"``.

Example::

    opts = ProbeOptions(classifiers=("mlp", "majority"), seeds=2)
    records = run_probe("bov:en.vec", "probing/en", "results.jsonl", opts)
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from xprobe import __version__
from xprobe.encoders.encoder_spec import EncoderSpec
from xprobe.errors import XProbeError
from xprobe.languages import na_text
from xprobe.probe.baselines import BASELINES, run_baseline
from xprobe.probe.cache import EmbeddingCache, sentences_hash
from xprobe.probe.checks import check_finite, check_npy, check_one_class, check_sets
from xprobe.probe.classifiers import TrainConfig, grid_points, train_select
from xprobe.probe.coverage import vocab_coverage, warn_low_coverage
from xprobe.probe.crossval import CrossValidating, CVPlan, cv_sets
from xprobe.probe.datasets import (
    ProbingSet,
    dir_dataset,
    dir_language,
    ensure_train,
    load_probing_dir,
)
from xprobe.probe.design import warn_few_per_class
from xprobe.probe.heartbeat import Heartbeat
from xprobe.probe.layerwise import cap_eval, train_select_layers
from xprobe.probe.lines import DistinctLines
from xprobe.probe.not_applicable import na_records, split_na
from xprobe.probe.probed import ProbedEncoder
from xprobe.probe.provenance import manifest_tasks, partial_tasks
from xprobe.probe.records import append_records, pack_correct, read_records, record_key
from xprobe.probe.streaming import joint_history, joint_iterations, plan_blocks
from xprobe.protocol import parse_protocol

__all__ = [
    "AUTO_SEEDS",
    "CLASSIFIERS",
    "EMBEDDING_CLASSIFIERS",
    "ProbeOptions",
    "n_seeds",
    "run_probe",
]

log = logging.getLogger(__name__)

EMBEDDING_CLASSIFIERS = ("mlp", "lr", "nb", "rf", "mdl-mlp", "mdl-lr")  # mdl-*: xprobe.probe.mdl
CLASSIFIERS = EMBEDDING_CLASSIFIERS + BASELINES
# Seeds when none are asked for: 1 for the costly MLP and random forest, and for what is
# deterministic (a second seed would repeat the number: lr is solved to convergence, so its
# seed changes nothing unless --max-train subsamples). Test-item noise is covered by the
# report's bootstrap intervals either way.
AUTO_SEEDS = {"lr": 1, "mlp": 1, "rf": 1, "nb": 1, "mdl-mlp": 1, "mdl-lr": 1,
              **dict.fromkeys(BASELINES, 1)}  # fmt: skip


def n_seeds(seeds: int | None, classifier: str) -> int:
    """Seeds to run for ``classifier``: ``seeds`` when given, else :data:`AUTO_SEEDS`."""
    return seeds if seeds is not None else AUTO_SEEDS.get(classifier, 1)


@dataclass
class ProbeOptions:
    """What to probe and how (see ``xprobe probe --help`` for each field)."""

    tasks: list[str] | None = None
    classifiers: tuple[str, ...] = ("mlp",)
    seeds: int | None = 1  # None: AUTO_SEEDS per classifier (the CLI's default)
    grid: str = "default"
    hidden: int = 150
    max_train: int | None = None
    batch_size: int = 128
    cache_dir: str | os.PathLike[str] | None = None
    force: bool = False
    name: str | None = None
    dataset: str | None = None
    layout: str = "auto"
    language: str | None = None
    device: str = "auto"
    train: TrainConfig = field(default_factory=TrainConfig)
    threads: int | None = None
    max_dev: int | None = None
    max_test: int | None = None
    lowercase: bool = False
    cache_dtype: str = "float32"
    layer_block: int | None = None  # layers in memory at once (xprobe.probe.streaming)
    memory_budget: int | None = None  # bytes of features at once when layer_block is None
    control: bool = False  # also probe the control task (xprobe.probe.controls)
    allow_one_class: bool = False  # probe a one-class test/validation split (flagged)
    protocol: str = "tr/va/te"  # or cv:K, every line scored once (xprobe.probe.crossval)


@dataclass
class _Unit:
    ps: ProbingSet
    classifier: str
    seed: int


def run_probe(
    encoder: Any,
    data_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    opts: ProbeOptions | None = None,
) -> list[dict[str, Any]]:
    """Probe ``encoder`` (an :class:`~xprobe.encoders.encoder_spec.EncoderSpec` or a spec string,
    an Encoder, or None for baselines only) on every task of
    ``data_dir``; append the records to ``out``; return the records written."""
    if isinstance(encoder, (str, dict)):  # a caller outside the package: parsed here once
        encoder = EncoderSpec.parse(encoder)
    opts = opts or ProbeOptions()
    if opts.threads:
        import torch

        torch.set_num_threads(opts.threads)
    bad = [c for c in opts.classifiers if c not in CLASSIFIERS]
    if bad:
        raise XProbeError(f"unknown classifier(s) {bad}; valid: {', '.join(CLASSIFIERS)}")
    needs_encoder = any(c in EMBEDDING_CLASSIFIERS for c in opts.classifiers)
    if needs_encoder and encoder is None:
        missing = "--encoder is required for classifiers " + ", ".join(opts.classifiers)
        if not os.path.exists(data_dir):  # both said at once: the folder first
            missing = f"{data_dir}: probing data folder not found; and {missing}"
        raise XProbeError(missing)
    na, wanted = split_na(data_dir, opts.tasks)
    if wanted is None and na and len(na) == len(manifest_tasks(data_dir)):
        wanted = []  # every task n/a (a treebank too small for any): records, no files to load
    loaded = [] if wanted == [] else load_probing_dir(data_dir, opts.layout, wanted, opts.language)
    sets = [ensure_train(ps) for ps in loaded]
    unscorable: dict[str, tuple[str, str, str]] = {}  # every te/va sentence seen in training
    protocol, plans = parse_protocol(opts.protocol), {}
    if protocol.cv and protocol.folds is not None:
        capped = opts.max_dev is not None or opts.max_test is not None
        sets, plans = cv_sets(data_dir, sets, protocol.folds, capped, unscorable)
    elif sets:  # checked and rid of va/te sentences seen in training first, then capped
        checked = check_sets(data_dir, sets, unscorable)
        sets, plans = [cap_eval(ps, opts.max_dev, opts.max_test) for ps in checked], {}
    na.update(unscorable)
    one_class = {ps.file: check_one_class(ps, opts.allow_one_class) for ps in sets if not plans}
    dataset = opts.dataset or dir_dataset(data_dir)
    done = {record_key(r) for r in read_records(out)} if not opts.force else set()
    probed = ProbedEncoder.prepare(encoder, opts, sets if needs_encoder else [])
    ctx = _Context(probed, dataset, opts, EmbeddingCache(opts.cache_dir, opts.cache_dtype))
    ctx.plans = plans
    ctx.lines = _distinct_lines(probed, opts, sets if needs_encoder else [])
    ctx.partial = partial_tasks(data_dir)
    ctx.one_class = {f: v for f, v in one_class.items() if v}
    todo = [
        _Unit(ps, c, s)
        for ps in sets
        for c in opts.classifiers
        for s in range(n_seeds(opts.seeds, c))
        if opts.force or any(record_key(r) not in done for r in ctx.skeletons(ps, c, s))
    ]
    skipped = len(sets) * sum(n_seeds(opts.seeds, c) for c in opts.classifiers) - len(todo)
    if skipped:
        log.info("%d (task, classifier, seed) already recorded in %s: skipped", skipped, out)
    written: list[dict[str, Any]] = []
    written.extend(_na_records(na, ctx, opts, data_dir, out))
    lang = opts.language or (sets[0].language if sets else "")
    tasks = [ps for ps in sets if any(u.ps is ps for u in todo)]
    label = f"probe {ctx.name}" + (f" ({lang})" if lang else "")
    with Heartbeat(label, len(todo), len(tasks)) as ctx.beat:
        for ps in tasks:
            units = [u for u in todo if u.ps is ps]
            records = []
            for i, u in enumerate(units):
                ctx.beat.start(f"{ps.task} {u.classifier} seed {u.seed}",
                               len(ctx.unit_layers(ps, u.classifier)))  # fmt: skip
                records += ctx.run_unit(u)
                ctx.beat.done(ps.task, last=i == len(units) - 1)
            append_records(out, records, replace=opts.force)
            written.extend(records)
            ctx.forget()  # one task's embeddings in memory at a time
    return written


def _distinct_lines(probed: ProbedEncoder, opts: ProbeOptions, sets: list) -> DistinctLines | None:
    """The distinct lines of ``sets`` when a layer-wise encoder (a transformer) is probed on
    every line as written (no --max-train, --max-dev or --max-test: those encode only the
    lines they keep): each is then encoded once for every task (:mod:`xprobe.probe.lines`)."""
    capped = (opts.max_train, opts.max_dev, opts.max_test) != (None, None, None)
    if capped or not sets or (probed.spec is None and probed.loaded is None):
        return None
    if probed.layers(sets[0].language) == (None,):
        return None
    return DistinctLines.of(sets)


def _na_records(na: dict, ctx: Any, opts: ProbeOptions, data_dir: Any, out: Any) -> list[dict]:
    """Write (and return) the records of the tasks the data's manifest marks not applicable."""
    if not na:
        return []
    fields = {"encoder": ctx.name, "dataset": ctx.dataset, "grid": opts.grid,
              "max_train": opts.max_train,
              "language": opts.language or dir_language(data_dir)}  # fmt: skip
    recs = na_records(na, opts.classifiers, BASELINES, fields, ctx.probed.id)
    if append_records(out, recs, replace=opts.force):
        shown = (f"{v[0]} ({na_text(v[1], v[2] if len(v) > 2 else '')})" for v in na.values())
        log.info("%s: n/a: %s", fields["language"], "; ".join(shown))
    return recs


class _Context(CrossValidating):
    def __init__(self, probed: ProbedEncoder, dataset: str, opts: ProbeOptions, cache) -> None:
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

    def run_unit(self, u: _Unit) -> list[dict[str, Any]]:
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

    def _records(self, u: _Unit, layer, res: tuple, sizes: tuple, extra: dict) -> list[dict]:
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

    def _layer_results(self, u: _Unit, ps: ProbingSet, idx, y) -> tuple[dict, dict]:
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

    def _extras(self, u: _Unit, idx, x: list[np.ndarray], y, n_classes: int) -> dict[str, Any]:
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

    def _mdl(self, u: _Unit, xtr, xva, y, n_classes: int) -> dict[str, Any]:
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

    def input_fields(self, u: _Unit) -> dict[str, Any]:
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

"""Probing orchestration: probing sets + an encoder -> result records.

For each task of a probing folder: read it (SentEval or X-Probe layout), make sure it has train,
validation and test splits (:func:`~xprobe.probe.datasets.ensure_train`), encode each split through
the embedding cache, train and select each requested classifier for each seed, and append one
record per (encoder, language, task, classifier, seed, split) to the results file. Work whose
records are already present is skipped (no encoding, no training) unless ``force``. One unit
(task, classifier, seed) from embeddings to records: :mod:`xprobe.probe.context`.

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
from dataclasses import dataclass, field
from typing import Any

from xprobe.encoders.encoder_spec import EncoderSpec
from xprobe.errors import XProbeError
from xprobe.languages import na_text
from xprobe.probe.baselines import BASELINES
from xprobe.probe.cache import EmbeddingCache
from xprobe.probe.checks import check_one_class, check_sets
from xprobe.probe.classifiers import TrainConfig
from xprobe.probe.context import ProbeContext, Unit
from xprobe.probe.crossval import cv_sets
from xprobe.probe.datasets import (
    dir_dataset,
    dir_language,
    ensure_train,
    load_probing_dir,
)
from xprobe.probe.heartbeat import Heartbeat
from xprobe.probe.layerwise import cap_eval
from xprobe.probe.lines import DistinctLines
from xprobe.probe.not_applicable import na_records, split_na
from xprobe.probe.probed import ProbedEncoder
from xprobe.probe.provenance import manifest_tasks, partial_tasks
from xprobe.probe.records import append_records, read_records, record_key
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
    ctx = ProbeContext(probed, dataset, opts, EmbeddingCache(opts.cache_dir, opts.cache_dtype))
    ctx.plans = plans
    ctx.lines = _distinct_lines(probed, opts, sets if needs_encoder else [])
    ctx.partial = partial_tasks(data_dir)
    ctx.one_class = {f: v for f, v in one_class.items() if v}
    todo = [
        Unit(ps, c, s)
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

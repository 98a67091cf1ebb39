"""Build the probing sets of a language from CoNLL-U parses: ``xprobe extract``.

Two passes over the input (one file or many, plain or gzipped):

1. frequency pass (:func:`xprobe.extract.scan.count_corpus`): surface-form counts, (form, UPOS)
   counts, and adjacent-form bigram counts when a selected task needs them; then every task's
   ``prepare``. A sentence whose tokens repeat an earlier one's is one source sentence: the
   first occurrence is used, the repeats are neither counted nor offered (``corpus.duplicates``
   in the manifest). The sentences of ``min_tokens``..``max_tokens`` surface tokens go, checked and
   split into columns, to a temporary file (:class:`xprobe.extract.scan.SentenceCache`);
2. selection pass, over that file: each of those sentences that can be written one space
   between tokens (:func:`xprobe.tasks.common.writable`: a word written with spaces, UD
   Vietnamese "học sinh", is written with its syllables apart; other white space inside a
   token is not) is offered to every task; candidates go to bounded, seeded pools
   (:mod:`xprobe.extract.pools`), so memory does not grow with the corpus beyond the frequency
   tables.

Then tasks pick rarest first (:mod:`xprobe.extract.select`), classes are balanced per split and
stratum (:mod:`xprobe.extract.plan`), and the files and ``manifest.json`` are written atomically
(:mod:`xprobe.extract.write`). Same inputs and seed give byte-identical files. Treebank mode
(``ExtractConfig.treebank``, :mod:`xprobe.extract.treebank`) sizes every task from what a small
corpus fills instead, tasks sharing source sentences.
:func:`check_probing_dir` (:mod:`xprobe.extract.check`) validates a written directory.

Example::

    >>> from xprobe.extract.pipeline import ExtractConfig, extract
    >>> manifest = extract(ExtractConfig(lang="en", out=Path("probing/en"),
    ...     inputs=["en.conllu.gz"], tasks=["SentLen", "BShift"], sizes=(1000, 100, 100)))
    ... # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xprobe.corpus.tagonly import marker_tasks
from xprobe.errors import XProbeError
from xprobe.extract import applicable
from xprobe.extract import treebank as tbmode
from xprobe.extract.check import check_probing_dir, small_test_splits
from xprobe.extract.lang_check import language_warnings
from xprobe.extract.leftovers import clean_leftovers
from xprobe.extract.length import LengthPlan, apply_bins, bins_of, check_window, plan_length
from xprobe.extract.named_logs import naming_language
from xprobe.extract.pools import text_hasher
from xprobe.extract.scan import SentenceCache, count_corpus, spool_stdin
from xprobe.extract.select import TaskResult, TaskRun, resolve
from xprobe.extract.starved import annotate, exclusivity_notes, note_text, partial_note
from xprobe.extract.windows import WINDOW_MODES, resolve_all_windows
from xprobe.extract.write import build_manifest, raise_unfilled, write_outputs
from xprobe.extract.yields import yield_lines
from xprobe.files import input_file_problem, sha256_file
from xprobe.languages import LanguageProfile, load_profile
from xprobe.protocol import SPLITS_PROTOCOL, parse_protocol
from xprobe.tasks import TASKS, Context, CorpusStats, TaskSpec, get_task, resolve_params
from xprobe.tasks.common import writable
from xprobe.ud import ReadStats

__all__ = ["ExtractConfig", "Extraction", "check_probing_dir", "extract", "run_extraction"]

log = logging.getLogger(__name__)

DEFAULT_SIZES = (100_000, 10_000, 10_000)


@dataclass
class ExtractConfig:
    """Everything ``xprobe extract`` is asked to do.

    lang: profile code or path to a ``.toml``; out: output directory; inputs: CoNLL-U paths
    (``-`` = stdin, spooled to a temporary file); tasks: names or file stems (None = all);
    sizes: sentences per split (tr, va, te); params: ``{task: {param: value}}`` overriding the
    profile's ``[tasks.<file>]``; on_error: ``raise`` or ``skip`` malformed sentences;
    pool_margin: spare pool room for candidates that rarer tasks take first.
    treebank: treebank mode (``xprobe extract --treebank``, :mod:`xprobe.extract.treebank`):
    each task takes all its balanced candidates can fill, split in ``ratio``, at most ``sizes``
    per split; tasks share source sentences; a task whose test split would hold fewer than
    ``min_test`` lines is n/a (kind ``corpus``). ``protocol`` (treebank mode): ``tr/va/te``
    (the default: the test split is scored, the ``min_test`` floor holds) or ``cv:K`` (every
    line is scored once in K folds: no ``min_test``, the floor of
    :func:`xprobe.protocol.cv_floor`; provenance always written, the folds read its keys).
    """

    lang: str
    out: Path
    inputs: list[str]
    tasks: list[str | TaskSpec] | None = None
    sizes: tuple[int, int, int] = DEFAULT_SIZES
    seed: int = 1111
    allow_partial: bool = False
    exclusive: bool = True
    params: dict[str, dict[str, Any]] = field(default_factory=dict)
    on_error: str = "raise"
    provenance: bool = False
    min_tokens: int | None = None  # None: the profile's (xprobe.extract.length), else 5
    max_tokens: int | None = None  # None: the profile's, else 28
    pool_margin: float = 0.5
    windows: str = "auto"  # frequency windows: auto, absolute or per-million (windows.py)
    progress: bool | None = None  # None: a bar only on a terminal
    treebank: bool = False  # size each task from what the corpus fills (xprobe.extract.treebank)
    min_test: int = 100  # treebank mode: fewer test lines than this make a task n/a (corpus)
    ratio: tuple[int, int, int] = tbmode.DEFAULT_RATIO  # treebank mode: tr/va/te proportions
    protocol: str = SPLITS_PROTOCOL  # treebank mode: tr/va/te, or cv:K (xprobe.protocol)
    dataset: str | None = None  # recorded in the manifest: `xprobe probe`'s default dataset


def _select_tasks(names: list[str | TaskSpec] | None) -> list[TaskSpec]:
    """Registry tasks by name, in registry order; TaskSpec objects (tests, plug-ins) after."""
    if not names:
        if not TASKS:
            raise XProbeError("no probing tasks are installed")
        return list(TASKS.values())
    chosen = {get_task(n).name for n in names if isinstance(n, str)}
    specs = [spec for spec in TASKS.values() if spec.name in chosen]
    specs += [n for n in names if isinstance(n, TaskSpec)]
    if len({s.file for s in specs}) != len(specs):
        raise XProbeError("two tasks share one output file name")
    return specs


def _validate(config: ExtractConfig) -> None:
    if len(config.sizes) != 3 or any(n < 0 for n in config.sizes):
        raise XProbeError(
            f"sizes must be three non-negative numbers (tr,va,te), got {config.sizes}"
        )
    if config.windows not in WINDOW_MODES:
        raise XProbeError(
            f"windows must be one of {', '.join(WINDOW_MODES)}, not {config.windows!r}"
        )
    if config.on_error not in ("raise", "skip"):
        raise XProbeError(f"on_error must be 'raise' or 'skip', not {config.on_error!r}")
    if not config.inputs:
        raise XProbeError("no input CoNLL-U files given")
    if parse_protocol(config.protocol).cv and not config.treebank:
        raise XProbeError(
            f"--protocol {config.protocol} sizes every task for cross-validation in treebank "
            "mode: add --treebank (a folder written without it can still be probed under cv:K)"
        )
    for p in config.inputs:
        problem = None if p == "-" else input_file_problem(p)
        if problem is not None:
            if problem.startswith("is not a regular file"):  # extract reads its inputs twice
                problem += "; extract reads an input twice: give '-' and pipe it to stdin"
            raise XProbeError(f"{p}: {problem}")


def _progress(config: ExtractConfig, desc: str, total: int | None = None) -> Any:
    from tqdm import tqdm

    disable = None if config.progress is None else not config.progress
    return tqdm(total=total, desc=desc, unit=" sent", unit_scale=True, disable=disable, leave=False)


def _task_params(specs: list[TaskSpec], profile: LanguageProfile, config: ExtractConfig) -> dict:
    overrides: dict[str, dict[str, Any]] = {}
    by_name = {k.lower(): s.file for s in specs for k in (s.name, s.file)}
    for name, values in config.params.items():
        file = by_name.get(name.lower()) or get_task(name).file
        overrides.setdefault(file, {}).update(values)
    chosen = {s.file for s in specs}
    for file in overrides:
        if file not in chosen:
            raise XProbeError(f"--param given for task {file!r}, which is not being extracted")
    return {s.file: resolve_params(s, profile, overrides.get(s.file)) for s in specs}


def _marked_asks() -> Any:
    """For a sentence of a shard parsed in part (:mod:`xprobe.corpus.tagonly`): the tasks that
    need no tree, and, when it was parsed, the tasks it was parsed for (a task it was not
    parsed for would see only the sentences other tasks' filters passed: a biased sample)."""
    memo: dict[tuple[int, bool, frozenset[str]], list[Any]] = {}

    def asks_of(asks: list[Any], marks: tuple[bool, frozenset[str]]) -> list[Any]:
        key = (id(asks), *marks)
        got = memo.get(key)
        if got is None:
            parsed, files = marks
            got = memo[key] = [
                a for a in asks if not a[0].spec.needs_tree or (parsed and a[0].spec.file in files)
            ]
        return got

    return asks_of


def _selection_pass(
    cache: SentenceCache,
    names: list[str],
    runs: list[TaskRun],
    config: ExtractConfig,
    lang: str,
    binned_max: int | None = None,
    hits: dict[int, bytearray] | None = None,
    wanted: bytes | None = None,
) -> dict[str, int]:
    """Pass 2: offer each sentence that passes the common filters to every task.

    The sentences of ``min_tokens``..``max_tokens`` tokens come from the frequency pass's
    cache, already parsed and checked. ``binned_max`` (treebank mode): a sentence longer than
    this is not offered to the tasks whose length bins end there. ``hits`` receives, per run
    index, a bitmap of the sentences (numbered as in the cache) the task made a candidate of;
    ``wanted``: only the sentences of this bitmap are read (a pass again for some tasks: a
    task's answer depends only on the sentence, so the others would give none again)."""
    h_of = text_hasher(config.seed, lang)
    counts = {"in_length_range": cache.count, "whitespace_token": 0, "offered": 0}
    size = (cache.count + 7) >> 3
    if hits is None:
        hits = {}
    for run in runs:
        if len(hits.setdefault(run.index, bytearray(size))) != size:
            hits[run.index] = bytearray(size)
    every = [(run, run.candidate, run.ctx, run.rng, run.salt_rng, hits[run.index]) for run in runs]
    longer = [a for a in every if not tbmode.binned(a[2].params)]
    cap = cache.hi if binned_max is None else binned_max
    bar = _progress(config, "extract pass 2/2 (selection)", cache.count)
    shown = 0  # sentences the bar counts (those a pass again skips included)
    collect = _YOUNG_EVERY  # the collector is paused (_gc_paused): its young objects now and then
    marked = _marked_asks()
    with bar:
        for i, fi, start, sent in cache.numbered(names, wanted):
            if i - shown >= 1000:
                bar.update(i - shown)
                shown = i
                if i >= collect:
                    _collect_young()
                    collect = i + _YOUNG_EVERY
            tokens = sent.tokens
            text = " ".join(tokens)
            if not writable(text):
                counts["whitespace_token"] += 1
                continue
            counts["offered"] += 1
            h = h_of(text)
            asks = every if len(tokens) <= cap else longer
            if sent.comments and (marks := marker_tasks(sent.comments)) is not None:
                asks = marked(asks, marks)
            byte, bit = i >> 3, 1 << (i & 7)
            for run, candidate, ctx, r, salt, hit in asks:
                r._pending = h ^ salt  # LazyRandom.arm, inlined: this loop is the hot path
                cand = candidate(sent, ctx, r)
                if cand is not None:
                    run.add(cand, sent, tokens, text, h, fi, start)
                    hit[byte] |= bit
        bar.update(cache.count - shown)
    return counts


@dataclass
class Extraction:
    """Both passes done, nothing written yet: the selected sentences and the manifest to be.

    :meth:`write` writes the folder; :func:`xprobe.extract.rounds.build_language` looks at
    :attr:`partial` to decide whether more text must be parsed first. ``results`` holds every
    task run (the profile's n/a tasks are not run; their manifest entries are final);
    ``found``: the tasks extract found with nothing to write (no candidate, one label), which
    :meth:`write` makes n/a entries (or refuses, without ``allow_partial``), as it does the
    tasks shrunk too far with ``allow_partial`` (:func:`xprobe.extract.applicable.too_small`).
    """

    config: ExtractConfig
    profile: LanguageProfile
    results: list[TaskResult]
    manifest: dict[str, Any]
    found: dict[str, str] = field(default_factory=dict)
    notes: dict[int, Any] = field(default_factory=dict)  # exclusivity notes (starved.py)
    kinds: dict[str, str] = field(default_factory=dict)  # kind of each ``found`` (NA_KINDS)

    @property
    def lang(self) -> str:
        return self.profile.code

    @property
    def partial(self) -> list[str]:
        """Names of the tasks that could not be filled (found n/a so far included: more text
        may fill them)."""
        return [r.run.spec.name for r in self.results if r.partial or r.run.spec.file in self.found]

    def write(self) -> dict[str, Any]:
        """Decide the n/a tasks, raise for an unfilled task (unless ``allow_partial``), else
        write ``config.out`` (no file for an n/a task)."""
        c, manifest = self.config, self.manifest
        na = dict(self.found)
        if c.allow_partial:
            na.update(self._too_small(na))
        undeclared = na
        if c.treebank:  # a treebank too small for a task is a result there, not an error
            undeclared = {f: r for f, r in na.items() if self.kinds.get(f) != applicable.CORPUS}
        applicable.raise_undeclared(undeclared, self.profile, c.allow_partial)
        corpus = self._below_floor(na) if c.treebank else {}
        na.update(corpus)
        results = [r for r in self.results if r.run.spec.file not in na]
        raise_unfilled(results, c.allow_partial, c.exclusive)
        for r in self.results:
            if r.run.spec.file in na:
                kind = self.kinds.get(r.run.spec.file, applicable.CORPUS)
                manifest["tasks"][r.run.spec.file] = _found_entry(r, na, manifest, kind)
        for f in na:
            manifest.get("treebank", {}).get("task_sizes", {}).pop(f, None)
        manifest["task_order"] = [f for f in manifest["task_order"] if f not in na]
        if small := small_test_splits(manifest):
            manifest["warnings"] = small
        drop = sorted(f for f, e in manifest["tasks"].items() if e.get("applicable") is False)
        write_outputs(
            Path(c.out), results, manifest, list(c.inputs), c.seed, self.lang, c.provenance,
            drop=drop,
        )  # fmt: skip
        for res in results:
            level, why = partial_note(res, self.notes)
            log.log(level, "%s: %d lines%s", res.run.spec.name, sum(map(len, res.picked)), why)
        for line in manifest.get("warnings", []):
            log.warning("%s", line)
        for line in yield_lines(manifest):
            log.info("%s", line)
        return manifest

    def _below_floor(self, na: dict[str, str]) -> dict[str, str]:
        """Treebank mode: the tasks whose test split would be below ``min_test`` lines, or
        under ``cv:K`` whose balanced lines are below the cross-validation floor."""
        c = self.config
        folds = parse_protocol(c.protocol).folds
        if folds is not None:
            small = applicable.below_cv_floor(self.results, folds, c.ratio, na)
        else:
            small = applicable.below_min_test(self.results, c.min_test, c.ratio, na)
        for f, reason in sorted(small.items()):
            log.warning("%s: not applicable to this corpus: %s", f, reason)
        return small

    def _too_small(self, na: dict[str, str]) -> dict[str, str]:
        """The tasks shrunk below one line per class, each reason with what rarer tasks took
        from it first where exclusivity starved it (and whether --no-exclusive would fill it)."""
        small = applicable.too_small(self.results, na)
        for r in self.results:
            note = self.notes.get(r.run.index)
            if r.run.spec.file in small and note is not None:
                small[r.run.spec.file] += f"; {note_text(note)}"
        for r in self.results:
            if r.run.spec.file in small:
                log.warning("%s: not applicable to this corpus: %s", r.run.spec.name,
                            small[r.run.spec.file])  # fmt: skip
        return small


def _found_entry(
    res: TaskResult, na: dict[str, str], manifest: dict[str, Any], kind: str
) -> dict[str, Any]:
    """The n/a entry of a task extract ran and found not to apply (its params and windows kept)."""
    f = res.run.spec.file
    ran = manifest["tasks"][f]
    entry = applicable.na_entry(res.run.spec, na[f], "extract", ran.get("params"), kind=kind)
    if "windows" in ran:
        entry["windows"] = ran["windows"]
    return entry


def extract(config: ExtractConfig) -> dict[str, Any]:
    """Run both passes and write ``config.out``; returns the manifest.

    Raises :class:`XProbeError` when a task cannot be filled (unless ``allow_partial``), naming
    per split and class what was found and what was needed. A task that does not apply (the
    profile says so, or it finds nothing it could write: :mod:`xprobe.extract.applicable`) gets
    no file and a manifest entry with its reason.
    """
    with naming_language(Path(str(config.lang)).stem):  # a code, or a profile's path
        return run_extraction(config).write()


def run_extraction(config: ExtractConfig) -> Extraction:
    """Both passes over ``config.inputs``, without writing (temporary files go to ``out``)."""
    _validate(config)
    asked = config
    if config.treebank:  # every task sized from the caps down; tasks share sentences
        config = _treebank_config(config)
    profile = load_profile(config.lang)
    specs = _select_tasks(config.tasks)
    na = applicable.declared(profile, specs)
    params = {f: p for f, p in _task_params(specs, profile, config).items() if f not in na}
    out = Path(config.out)
    clean_leftovers(out)
    with spool_stdin(config.inputs, out) as paths:
        length = plan_length(
            profile.length,
            (profile.min_tokens, profile.max_tokens),
            (config.min_tokens, config.max_tokens),
            paths,
        )
        check_window(length)
        apply_bins(params, length, profile.tasks, config.params)
        run_specs = [s for s in specs if s.file not in na]
        win = tbmode.window(length, config.max_tokens, paths) if config.treebank else None
        results, found_kinds, windows, notes, parts = _run_passes(
            config, profile, run_specs, params, length, paths, win
        )
    for line in language_warnings(profile, parts[1].forms):  # --lang against the text
        log.warning("%s: %s", ", ".join(map(str, config.inputs)), line)
    manifest = build_manifest(config, profile, results, params, *parts)
    if win is not None:
        manifest["treebank"] = tbmode.manifest_entry(
            config.ratio, config.min_test, asked.sizes, win, results, config.protocol
        )
    manifest["common"] = {"min_tokens": length.min_tokens, "max_tokens": length.max_tokens}
    manifest["length"] = length.manifest(bins_of(params))
    for file, how in windows.items():
        manifest["tasks"][file]["windows"] = how
    by_file = {s.file: s for s in specs}
    kinds = applicable.declared_kinds(profile)
    for f, reason in sorted(na.items()):
        log.info("%s: n/a (%s), the profile says: %s", f, kinds[f], reason)
        manifest["tasks"][f] = applicable.na_entry(by_file[f], reason, "profile", kind=kinds[f])
    annotate(manifest, results, notes)
    found = {f: reason for f, (reason, _) in found_kinds.items()}
    found_kind = {f: kind for f, (_, kind) in found_kinds.items()}
    return Extraction(config, profile, results, manifest, found, notes, found_kind)


def _refuse_empty(read: ReadStats, names: list[str]) -> None:
    """No sentence in any input: one error naming them (it used to give every task n/a and exit
    0); an input without a sentence among others: a warning naming it."""
    if read.sentences == 0 and read.skipped == 0:
        raise XProbeError(f"{', '.join(names)}: no sentences (an empty CoNLL-U input); nothing "
                          "written")  # fmt: skip
    for name in read.empty:
        log.warning("%s: no sentences (an empty CoNLL-U input): the other inputs are read", name)


def _treebank_config(config: ExtractConfig) -> ExtractConfig:
    """Treebank mode's settings: the splits' sizes from the caps down, tasks sharing sentences;
    under ``cv:K`` no ``min_test`` floor and provenance always written (the folds read keys)."""
    proto = parse_protocol(config.protocol)
    tbmode.validate(config.ratio, config.min_test)
    sizes = tbmode.run_sizes(config.ratio, config.sizes, 0 if proto.cv else config.min_test)
    return dataclasses.replace(
        config, sizes=sizes, exclusive=False, protocol=str(proto),
        provenance=config.provenance or proto.cv,
    )  # fmt: skip


def _run_passes(
    config: ExtractConfig,
    profile: LanguageProfile,
    run_specs: list[TaskSpec],
    params: dict[str, Any],
    length: LengthPlan,
    paths: list[str],
    win: tbmode.TreebankWindow | None = None,
) -> tuple[
    list[TaskResult],
    dict[str, tuple[str, str]],
    dict[str, dict[str, Any]],
    dict[int, Any],
    tuple[ReadStats, CorpusStats, dict[str, int], list[dict]],
]:
    """Both passes and the resolution; returns the results, the tasks found with nothing to
    write (``{file: (reason, kind)}``, :func:`xprobe.extract.applicable.detect_kinds`), the
    frequency windows used (``params`` resolved in place), the exclusivity notes of short tasks
    (:mod:`xprobe.extract.starved`) and (reader stats, corpus stats, pass counts, inputs).
    ``win``: treebank mode's windows (every task but the length-binned ones up to the longest
    sentence); the results are then settled (:func:`xprobe.extract.treebank.settle`)."""
    names = ["<stdin>" if p == "-" else p for p in config.inputs]
    hi = win.longest if win is not None else length.max_tokens
    binned_max = win.binned if win is not None else None
    with (
        SentenceCache(length.min_tokens, hi, Path(config.out)) as cache,
        _tables_kept_from_gc(),
    ):
        read = ReadStats()
        with _gc_paused():
            with _progress(config, "extract pass 1/2 (frequencies)") as bar:
                bigrams = any(s.uses_bigrams for s in run_specs)
                stats, read = count_corpus(paths, bigrams, config.on_error, read, bar, names, cache)
            _refuse_empty(read, names)
            _note_duplicates(stats)
            windows = resolve_all_windows(run_specs, params, stats.tokens, config.windows)
            runs = _prepare_runs(run_specs, profile, params, stats, config)
            gc.freeze()  # the tables and indexes, from now on outside the collector's view
        hits: dict[int, bytearray] = {}
        with _gc_paused():  # the passes make no cycles; _selection_pass collects now and then
            counts = _selection_pass(cache, names, runs, config, profile.code, binned_max, hits)
            results = resolve(runs, config.exclusive)
            notes = exclusivity_notes(results) if config.exclusive else {}
            results = _top_up(cache, names, results, config, profile.code,
                              binned_max=binned_max, hits=hits)  # fmt: skip
            gc.freeze()  # the pools and picks, kept to the end: not walked again either
        if win is not None:
            cv = parse_protocol(config.protocol).cv
            tbmode.settle(results, config.ratio, None if cv else config.min_test)
        sentences = (s for _, _, s in cache.sentences(names) if writable(s.text))
        window = (length.min_tokens, hi)
        found = applicable.detect_kinds(
            results, sentences, window, counts["offered"], allow_partial=False
        )
    inputs = [
        {"path": given, "sha256": sha256_file(p)}
        for given, p in zip(config.inputs, paths, strict=True)
    ]
    return results, found, windows, notes, (read, stats, counts, inputs)


def _note_duplicates(stats: CorpusStats) -> None:
    if stats.duplicates:
        log.info(
            "%d sentences repeat an earlier one's tokens: the first occurrence is used, "
            "the repeats are not counted (manifest: corpus.duplicates)",
            stats.duplicates,
        )
    if stats.dedup_saturated:
        log.warning(
            "the table of sentences seen is full: repeats of later sentences were not detected"
        )


_YOUNG_EVERY = 1 << 17  # sentences between two collections of the young generation


def _collect_young() -> None:
    """Collect the young generation (the cycles made since the last call), then freeze what
    survived (pooled candidates, mostly), so that the next call walks only newer objects
    (:func:`_tables_kept_from_gc` unfreezes them all at the end)."""
    gc.collect(0)
    gc.freeze()


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off (as it was before on exit), for the frequency pass and
    the tasks' ``prepare``, then for the selection passes and the resolution.

    These create no reference cycles (or a few, collected later), but their tables and indexes
    grow to millions of tuples, which every full collection would walk again (several percent
    of the run); the selection passes and the resolution made the collector run some thousand
    times at the bench's 100k sentences (0.76 s, 2.5 % of the run), finding no cycle. The
    selection pass collects the young generation every ``_YOUNG_EVERY`` sentences
    (:func:`_collect_young`), so that a cycle a task might make one day cannot pile up with
    the corpus."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextlib.contextmanager
def _tables_kept_from_gc() -> Iterator[None]:
    """Undo, on exit, the ``gc.freeze`` that keeps the frequency tables and the tasks' indexes
    (which live as long as the run) out of the collections made during the selection pass."""
    try:
        yield
    finally:
        gc.unfreeze()


def _prepare_runs(
    specs: list[TaskSpec],
    profile: LanguageProfile,
    params: dict[str, Any],
    stats: CorpusStats,
    config: ExtractConfig,
) -> list[TaskRun]:
    runs = []
    for i, spec in enumerate(specs):
        ctx = Context(profile, params[spec.file], stats)
        ctx = dataclasses.replace(ctx, data=spec.prepare(ctx))
        runs.append(
            TaskRun(
                spec,
                ctx,
                spec.labels_of(ctx),
                tuple(config.sizes),
                config.seed,
                profile.code,
                i,
                margin=config.pool_margin,
                provenance=config.provenance,
            )
        )
    return runs


def _top_up(
    cache: SentenceCache,
    names: list[str],
    results: list[TaskResult],
    config: ExtractConfig,
    lang: str,
    rounds: int = 2,
    binned_max: int | None = None,
    hits: dict[int, bytearray] | None = None,
) -> list[TaskResult]:
    """Re-run the selection pass for tasks that fell short although their pools overflowed.

    Pools keep a margin for candidates that rarer tasks take first; when rarer tasks took more
    than that, the short task is collected again with what the rarer tasks took excluded up
    front (and a doubled margin), and all tasks are resolved again in the same order. Likewise
    a task with data-driven strata whose shrunk pools overflowed is collected again with
    full-size pools. Only ever needed when the corpus barely holds what is asked. ``hits``
    (the first pass's bitmaps, :func:`_selection_pass`): only the sentences these tasks made a
    candidate of are read again.
    """
    for _ in range(rounds):
        retry = [r for r in results if r.partial and r.run.starved]
        if not retry:
            return results
        retried = {r.run.index for r in retry}
        runs = []
        for r in retry:
            rarer = [o for o in results if o.run.index not in retried and o.rank < r.rank]
            exclude = {p[6] for o in rarer for split in o.picked for p in split}
            runs.append(
                dataclasses.replace(
                    r.run,
                    margin=2 * r.run.margin + 1,
                    eligible=0,
                    duplicates=0,
                    flexible=None,
                    pools={},
                    members=set(),
                    exclude=exclude if config.exclusive else frozenset(),
                    shrink=False,
                )
            )
        log.info("selection pass again for %s", ", ".join(r.spec.name for r in runs))
        wanted = None
        if hits is not None and all(r.index in hits for r in runs):
            union = 0
            for r in runs:
                union |= int.from_bytes(hits[r.index], "little")
            wanted = union.to_bytes((cache.count + 7) >> 3, "little")
        _selection_pass(cache, names, runs, config, lang, binned_max, hits, wanted)
        fresh = {r.index: r for r in runs}
        results = resolve([fresh.get(r.run.index, r.run) for r in results], config.exclusive)
    return results

"""The corpus stage: inputs -> paragraphs -> sentences -> tokens -> filters -> UDPipe -> shards.

Parsing is the cost (about 10,000 words/s per core with UDPipe 1); everything before it is cheap
and runs in the calling process, which reads, segments, tokenises and filters the next shards
while the workers parse (see :mod:`xprobe.corpus.parallel`). Only sentences that pass the filters
are parsed.

Tokenisation (measured on EWT test, see BENCHMARKS.md): Moses tokens for the
profile's ``moses_lang`` with the contraction fix-up (``didn 't`` -> ``did n't``), joined by
spaces and given to UDPipe's tokenizer in ``presegmented`` mode, which splits multiword tokens
(German ``zum`` -> ``zu dem``) and never re-splits the sentence. The surface tokens (multiword
tokens once) are the ``# text`` of every sentence: what the probing files and encoders see.

Example::

    >>> cfg = CorpusConfig(lang="en", out=Path("work/en/parsed"), inputs=(Path("dump.xml.bz2"),))
    >>> manifest = run_corpus(cfg)                                        # doctest: +SKIP
"""

from __future__ import annotations

import collections
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from xprobe.corpus.filters import REASONS, FilterConfig, SentenceFilter
from xprobe.corpus.parallel import ParseJob, ParseResult, make_executor
from xprobe.corpus.shards import Manifest, input_fingerprint, write_shard
from xprobe.corpus.sources import InputReader, iter_paragraphs
from xprobe.errors import XProbeError
from xprobe.files import sha256_file
from xprobe.languages import LanguageProfile, load_profile

__all__ = ["TOKENIZATIONS", "CorpusConfig", "covers", "resolve_model", "run_corpus"]

log = logging.getLogger(__name__)

# tokenisation strategy -> (Moses fix-ups on?, UDPipe input mode)
TOKENIZATIONS = {
    "moses+fix/presegmented": (True, "presegmented"),
    "moses+fix/horizontal": (True, "horizontal"),
    "moses/presegmented": (False, "presegmented"),
    "moses/horizontal": (False, "horizontal"),
}


@dataclass(frozen=True)
class CorpusConfig:
    """Everything a corpus run depends on. ``workers=0`` parses in-process."""

    lang: str
    out: Path
    inputs: tuple[Path, ...]
    model: Path | None = None
    workers: int = 1
    scheduler: str | None = None
    max_sentences: int | None = None
    shard_size: int = 10_000
    filters: FilterConfig = field(default_factory=FilterConfig)
    tokenization: str = "moses+fix/presegmented"
    punkt_train_chars: int = 2_000_000
    progress: bool = True
    # tag first, parse only what this passes (xprobe.corpus.tagonly; its ``tasks`` are recorded
    # per shard); None: parse every sentence. Not a setting: a shard is parsed again when it was
    # filtered for tasks that do not cover this one's
    select: Any = None


def resolve_model(profile: LanguageProfile, model: Path | None) -> Path:
    """``--model`` if given, else the profile's ``udpipe_model`` in the download cache."""
    from xprobe.corpus.udpipe import ModelError

    if model is not None:
        return model
    if not profile.udpipe_model:
        raise ModelError(f"profile {profile.code!r} names no udpipe_model; pass --model FILE")
    from xprobe.download import cache_dir

    path = cache_dir() / "udpipe" / profile.udpipe_model
    if not path.exists():
        raise ModelError(
            f"UDPipe model {profile.udpipe_model} not in the cache ({path}); run "
            f"'xprobe download udpipe --lang {profile.code}' or pass --model FILE.udpipe"
        )
    return path


@dataclass
class _Front:
    """The cheap front end: segment, tokenise, filter; counts every stage."""

    config: CorpusConfig
    profile: LanguageProfile
    model: Path
    readers: list[InputReader] = field(default_factory=list)
    counts: collections.Counter[str] = field(default_factory=collections.Counter)

    def __post_init__(self) -> None:
        from xprobe.corpus.segment import make_segmenter
        from xprobe.corpus.tokenize import MosesTokenizer

        fixups, self.mode = TOKENIZATIONS[self.config.tokenization]
        self.tokenizer = MosesTokenizer(self.profile.moses_lang, fixups=fixups)
        training: Iterator[str] = iter(())
        if self.profile.segmenter == "punkt":
            training = (p.text for p in iter_paragraphs(self.config.inputs))
        self.segmenter = make_segmenter(
            self.profile.segmenter, self.model, training, self.config.punkt_train_chars
        )
        self.filter = SentenceFilter(self.config.filters, self.profile.sentence_final)

    def sentences(self) -> Iterator[list[str]]:
        limit = self.config.max_sentences
        kept = 0
        split, tokenize, check = self.segmenter.split, self.tokenizer.tokenize, self.filter.check
        for para in iter_paragraphs(self.config.inputs, on_open=self.readers.append):
            self.counts["paragraphs"] += 1
            for sent in split(para.text):
                self.counts["sentences"] += 1
                tokens = tokenize(sent)
                if check(sent, tokens) is None:
                    kept += 1
                    yield tokens
                    if limit is not None and kept >= limit:
                        return

    def position(self) -> int:
        done = sum(r.size for r in self.readers[:-1])
        return done + (self.readers[-1].position() if self.readers else 0)


def _shards(front: _Front, size: int) -> Iterator[list[list[str]]]:
    batch: list[list[str]] = []
    for tokens in front.sentences():
        batch.append(tokens)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _settings(config: CorpusConfig, profile: LanguageProfile, model: Path) -> dict[str, Any]:
    # the variant only when there is one: a corpus begun before variants existed still resumes
    variant = {"variant": profile.variant} if profile.variant else {}
    return {
        "language": profile.code,
        **variant,
        "inputs": [input_fingerprint(p) for p in config.inputs],
        "model": {"file": model.name, "sha256": sha256_file(model)},
        "segmenter": profile.segmenter,
        "tokenization": config.tokenization,
        "moses_lang": profile.moses_lang,
        "filters": asdict(config.filters),
        "sentence_final": list(profile.sentence_final),
        "shard_size": config.shard_size,
    }


def run_corpus(
    config: CorpusConfig, on_shard: Callable[[int], None] | None = None
) -> dict[str, Any]:
    """Build (or resume) the parsed corpus in ``config.out``; return the manifest's content.

    ``on_shard(index)`` is called after each shard is written and recorded (tests use it to
    interrupt a run). Raises :class:`~xprobe.errors.XProbeError` for user-facing problems.
    """
    from xprobe.corpus.udpipe import load_model

    if config.tokenization not in TOKENIZATIONS:
        raise XProbeError(
            f"unknown tokenization {config.tokenization!r}: {', '.join(TOKENIZATIONS)}"
        )
    if config.shard_size < 1:
        raise XProbeError("--shard-size must be at least 1")
    profile = load_profile(config.lang)
    model = resolve_model(profile, config.model)
    load_model(model)  # fail early and clearly on a missing or wrong model
    config.out.mkdir(parents=True, exist_ok=True)
    settings = _settings(config, profile, model)
    manifest = Manifest.open(config.out, settings)
    _refuse_shrinking(config, manifest)
    t0 = time.perf_counter()
    front = _Front(config, profile, model)
    executor = make_executor(config.workers, config.scheduler)
    try:
        stats = _drive(config, front, manifest, executor, on_shard)
    except BaseException:  # a signal, an error: stop the workers now, keep finished shards
        executor.close(abort=True)
        raise
    executor.close()
    elapsed = time.perf_counter() - t0
    counts = _counts(front, manifest)
    if counts["kept"] == 0:
        manifest.save(complete=False, counts=counts)
        raise XProbeError(_nothing_kept(config, counts))
    manifest.save(
        complete=True,
        counts=counts,
        max_sentences=config.max_sentences,
        exhausted=config.max_sentences is None or counts["kept"] < config.max_sentences,
        inputs=[str(p) for p in config.inputs],
        tokenizer={**front.tokenizer.description, "udpipe_input": front.mode},
        executor=executor.description,
        timing={
            "seconds": round(elapsed, 2),
            "parse_seconds_this_run": round(stats["parse_seconds"], 2),
            "sentences_per_second": round(stats["parsed"] / elapsed, 1) if elapsed else None,
            "shards_parsed_this_run": stats["shards"],
            "shards_resumed": stats["resumed"],
        },
    )
    log.info(
        "corpus: %d sentences in %d shards -> %s", counts["kept"], len(manifest.shards), config.out
    )
    return {"settings": settings, **manifest.extra}


def _refuse_shrinking(config: CorpusConfig, manifest: Manifest) -> None:
    """A folder may grow (a larger ``--max-sentences`` reuses every shard already parsed), never
    shrink: shards beyond a smaller limit would stay in the folder and be read by ``extract``."""
    limit = config.max_sentences
    if limit is None:
        return
    beyond = [k for k in manifest.shards if k * config.shard_size >= limit]
    if beyond:
        held = sum(r["sentences"] for r in manifest.shards.values())
        raise XProbeError(
            f"{config.out} already holds {held} parsed sentences ({len(manifest.shards)} shards), "
            f"more than --max-sentences {limit}; raise the limit or use another --out folder"
        )


def _nothing_kept(config: CorpusConfig, counts: dict[str, Any]) -> str:
    names = ", ".join(p.name for p in config.inputs)
    rejected = ", ".join(f"{r} {n}" for r, n in counts["rejected"].items() if n) or "none"
    return (
        f"no sentence kept from {names} ({counts['paragraphs']} paragraphs, "
        f"{counts['sentences']} sentences read; rejected: {rejected}): is it the right kind of "
        "input and language, and are --min-tokens/--max-tokens right?"
    )


def _counts(front: _Front, manifest: Manifest) -> dict[str, Any]:
    shards = manifest.shards.values()
    return {
        "paragraphs": front.counts["paragraphs"],
        "sentences": front.counts["sentences"],
        "rejected": {r: front.filter.rejected[r] for r in REASONS},
        "kept": sum(r["sentences"] for r in shards),
        "words": sum(r["words"] for r in shards),
        "dedup_saturated": front.filter.dedup_saturated,
    }


def covers(record: dict[str, Any], config: CorpusConfig) -> bool:
    """Whether a shard as recorded serves ``config``: parsed whole, or filtered for tasks that
    include every task ``config.select`` filters for."""
    done = record.get("parsed_for")
    if done is None:
        return True
    return config.select is not None and set(config.select.tasks) <= set(done)


def _drive(
    config: CorpusConfig,
    front: _Front,
    manifest: Manifest,
    executor: Any,
    on_shard: Callable[[int], None] | None,
) -> dict[str, Any]:
    """Feed shards to the executor (bounded in flight), write results in order."""
    stats = {"parsed": 0, "parse_seconds": 0.0, "shards": 0, "resumed": 0}
    pending: collections.deque[Any] = collections.deque()
    in_flight = 2 * executor.workers + 1
    bar = _Progress(config, front)

    def finish(fut: Any) -> None:
        res: ParseResult = fut.result()
        rec = write_shard(config.out, res.index, res.conllu)
        rec.update(sentences=res.sentences, words=res.words, **(res.detail or {}))
        manifest.record(res.index, rec)
        manifest.save(complete=False, counts=_counts(front, manifest))
        stats["parsed"] += res.sentences
        stats["parse_seconds"] += res.seconds
        stats["shards"] += 1
        bar.update(res.sentences, stats["parsed"])
        if on_shard is not None:
            on_shard(res.index)

    try:
        for index, batch in enumerate(_shards(front, config.shard_size)):
            done = manifest.done(index)
            # a shard cut short by an earlier, smaller --max-sentences is parsed again
            if done is not None and done["sentences"] == len(batch) and covers(done, config):
                stats["resumed"] += 1
                bar.update(len(batch), stats["parsed"])
                continue
            first_id = index * config.shard_size + 1
            job = ParseJob(index, first_id, batch, str(front.model), front.mode, config.select)
            pending.append(executor.submit(job))
            while len(pending) >= in_flight:
                finish(pending.popleft())
        while pending:
            finish(pending.popleft())
    finally:
        bar.close()
    return stats


class _Progress:
    """tqdm bar: over ``--max-sentences`` when given, else over input bytes (for the ETA)."""

    def __init__(self, config: CorpusConfig, front: _Front) -> None:
        from tqdm import tqdm

        self.front = front
        self.by_bytes = config.max_sentences is None
        total = sum(p.stat().st_size for p in config.inputs) if self.by_bytes else None
        self.bar = tqdm(
            total=total if self.by_bytes else config.max_sentences,
            unit="B" if self.by_bytes else "sent",
            unit_scale=self.by_bytes,
            disable=None if config.progress else True,
            desc="corpus",
        )
        self.t0 = time.perf_counter()
        self.pos = 0

    def update(self, sentences: int, parsed: int) -> None:
        if self.by_bytes:
            pos = self.front.position()
            self.bar.update(max(0, pos - self.pos))
            self.pos = max(pos, self.pos)
        else:
            self.bar.update(sentences)
        rate = parsed / max(time.perf_counter() - self.t0, 1e-9)
        self.bar.set_postfix(parsed=parsed, sent_s=f"{rate:.0f}")

    def close(self) -> None:
        self.bar.close()

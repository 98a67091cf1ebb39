"""Parse only what the quotas need: corpus and extract in rounds, for one language.

:func:`build_language` parses the first ``first`` kept sentences of the input
(:func:`xprobe.corpus.pipeline.run_corpus` with ``max_sentences``), extracts from them without
writing (:func:`xprobe.extract.pipeline.run_extraction`), and stops when every task is filled or
the input is exhausted (or the ``limit`` is reached); otherwise it parses more and extracts
again. The next round's size is the larger of ``growth`` x this one and the projection of the
scarcest partial task (its lines per parsed sentence, times ``margin``; see
:mod:`xprobe.extract.yields`) capped at ``max_growth`` x this one, rounded up to whole shards.
Then the probing folder is written once, with a ``rounds`` entry in its manifest (every round:
sentences parsed, tasks still partial, seconds).

Every round parses whole shards, and a later round (or a rerun) reuses every shard already
parsed that serves it. With ``Rounds.tag_filter`` (the default), every round after the first
tags its shards first and parses only the sentences whose tags can make a candidate of a task
the round before left short (:mod:`xprobe.extract.tagfilter`, :mod:`xprobe.corpus.tagonly`);
such a shard records the tasks it was parsed for, serves a round whose short tasks are among
them, and is parsed again for one that needs more. Each round's record adds ``filter``,
``sentences`` (read, tagged, parsed) and per task ``passed`` and ``kept``
(:func:`xprobe.extract.tagfilter.round_counts`).

What is deterministic:

* the probing files are those of ``xprobe extract`` over the first K parsed shards, where K is
  what the last round asked for; with the input exhausted and the tag filter off (or every task
  that needs a tree short in every round), that is a single full pass (``xprobe corpus`` on the
  whole input, then ``xprobe extract``) over the same parsed sentences, byte for byte;
* K depends only on the inputs and settings (corpus, extract, ``first``, ``growth``,
  ``margin``, ``limit``), not on interruptions: the rounds done are recorded in
  ``PARSED/rounds.json`` under a digest of those settings, and a rerun continues from the last
  one recorded; with other settings (or no record) the rounds start again from ``first``, reading
  shards already parsed instead of parsing them again;
* the number of workers and the scheduler change neither K nor any byte.

The cost: every round reads the input's front (wikiextractor, segmentation, tokenisation; cheap
next to parsing) and extracts again from all shards so far; with ``growth`` 2 the extractions
together cost at most about twice the last one.

Example::

    >>> manifest = build_language(CorpusConfig(lang="de", out=Path("work/de/parsed"),
    ...     inputs=(Path("dewiki.xml.bz2"),)), ExtractConfig(lang="de", out=Path("probing/de"),
    ...     inputs=[], sizes=(10_000, 1_000, 1_000), allow_partial=True))   # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xprobe.corpus.pipeline import CorpusConfig, covers, run_corpus
from xprobe.corpus.shards import MANIFEST as CORPUS_MANIFEST
from xprobe.corpus.shards import shard_name
from xprobe.errors import XProbeError
from xprobe.extract.named_logs import naming_language
from xprobe.extract.pipeline import ExtractConfig, Extraction, run_extraction
from xprobe.extract.tagfilter import round_counts, select_for
from xprobe.files import write_json

__all__ = ["ROUNDS_FILE", "Rounds", "build_language", "next_target"]

log = logging.getLogger(__name__)

ROUNDS_FILE = "rounds.json"


@dataclass(frozen=True)
class Rounds:
    """How rounds grow: ``first`` kept sentences, then at least ``growth`` times more per
    round, or the scarcest partial task's projection x ``margin``, but at most ``max_growth``
    times more (a task starved by rarer ones, 2 lines of 600, projects far beyond what it will
    need); ``limit`` caps the total (None: the whole input)."""

    first: int = 20_000
    growth: float = 2.0
    margin: float = 1.1
    max_growth: float = 8.0
    limit: int | None = None
    # after the first round, tag every sentence and parse only those whose tags can still make
    # a candidate for a task left short (xprobe.extract.tagfilter); False: parse every sentence
    tag_filter: bool = True


def _whole_shards(n: int, shard: int) -> int:
    return max(shard, math.ceil(n / shard) * shard)


def next_target(target: int, parsed: int, manifest: dict[str, Any], rounds: Rounds) -> int:
    """The kept sentences the next round parses (before rounding to shards and the limit).
    Entries without ``partial`` or ``yield`` (tasks the profile declares n/a) are skipped."""
    grown = math.ceil(target * rounds.growth)
    needs = [
        e["yield"]["more_sentences_needed"]
        for e in manifest["tasks"].values()
        if e.get("partial") and e.get("yield", {}).get("more_sentences_needed") is not None
    ]
    projected = math.ceil((parsed + max(needs)) * rounds.margin) if needs else 0
    return max(min(projected, math.ceil(target * rounds.max_growth)), grown, target + 1)


def _digest(corpus: CorpusConfig, extract: ExtractConfig, rounds: Rounds) -> str:
    c = dataclasses.asdict(
        dataclasses.replace(corpus, max_sentences=None, progress=False, select=None)
    )
    c.pop("workers"), c.pop("scheduler"), c.pop("select")
    c["inputs"] = [str(p) for p in corpus.inputs]
    e = dataclasses.asdict(dataclasses.replace(extract, inputs=[], progress=None))
    e["tasks"] = [t if isinstance(t, str) else t.file for t in extract.tasks or []]
    text = json.dumps([c, e, dataclasses.asdict(rounds)], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _load_state(parsed_dir: Path, digest: str) -> list[dict[str, Any]]:
    try:
        data = json.loads((parsed_dir / ROUNDS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if data.get("settings_sha256") != digest:
        log.info("%s: other settings; rounds start again", parsed_dir / ROUNDS_FILE)
        return []
    return list(data.get("rounds", []))


def _shards_held(corpus: CorpusConfig, target: int) -> list[str] | None:
    """The first ``target / shard_size`` shards when the folder already holds more full
    shards than that (so the input goes on beyond them), each parsed for what this round
    needs (:func:`xprobe.corpus.pipeline.covers`), else None."""
    parsed_dir, shard_size = corpus.out, corpus.shard_size
    try:
        data = json.loads((parsed_dir / CORPUS_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    records = {r["index"]: r for r in data.get("shards", []) if r.get("sentences") == shard_size}
    k = target // shard_size
    if not all(i in records for i in range(k + 1)):
        return None
    if not all(covers(records[i], corpus) for i in range(k)):
        return None
    paths = [parsed_dir / shard_name(i) for i in range(k)]
    return [str(p) for p in paths] if all(p.is_file() for p in paths) else None


def _parse(corpus: CorpusConfig, target: int) -> tuple[list[str], bool]:
    """The shard paths of the first ``target`` kept sentences, and whether the input ended."""
    whole = target % corpus.shard_size == 0  # (a limit may cut the last shard)
    held = _shards_held(corpus, target) if whole else None
    if held is not None:
        return held, False
    # a folder may hold more than the target (another round's shards, some of them filtered for
    # other tasks): reparse what does not serve this round up to what it holds, never shrink it
    held_count = _held_count(corpus.out)
    man = run_corpus(dataclasses.replace(corpus, max_sentences=max(target, held_count)))
    n = math.ceil(min(target, man["counts"]["kept"]) / corpus.shard_size)
    paths = [str(corpus.out / shard_name(i)) for i in range(n)]
    return paths, bool(man.get("exhausted")) and man["counts"]["kept"] <= target


def _held_count(parsed_dir: Path) -> int:
    try:
        return sum(r["sentences"] for r in _recorded(parsed_dir))
    except (OSError, ValueError, KeyError):
        return 0


def _recorded(parsed_dir: Path) -> list[dict[str, Any]]:
    data = json.loads((parsed_dir / CORPUS_MANIFEST).read_text(encoding="utf-8"))
    return list(data.get("shards", []))


def build_language(
    corpus: CorpusConfig, extract: ExtractConfig, rounds: Rounds | None = None
) -> dict[str, Any]:
    """Parse in rounds until every task is filled or the input is exhausted, then write the
    probing folder ``extract.out``; returns its manifest (with ``rounds``). ``extract.inputs``
    is ignored (the shards are the inputs). Raises like ``extract`` for an unfilled task
    without ``allow_partial``. Every line it logs names the language."""
    with naming_language(Path(str(extract.lang)).stem):
        return _build_language(corpus, extract, rounds)


def _build_language(
    corpus: CorpusConfig, extract: ExtractConfig, rounds: Rounds | None
) -> dict[str, Any]:
    rounds = rounds or Rounds()
    if rounds.first < 1 or not 1 < rounds.growth <= rounds.max_growth or rounds.margin < 1:
        raise XProbeError("rounds need first >= 1, 1 < growth <= max_growth and margin >= 1")
    if rounds.limit is not None and rounds.limit < 1:
        raise XProbeError("the sentence limit of the rounds must be at least 1")
    corpus.out.mkdir(parents=True, exist_ok=True)
    digest = _digest(corpus, extract, rounds)
    done = _load_state(corpus.out, digest)
    if done and done[-1]["next"] is None:  # a finished build: its last round again
        target = done.pop()["asked"]
    else:
        target = done[-1]["next"] if done else rounds.first
    while True:
        select = _select(extract, rounds, done)
        ex, record = _one_round(dataclasses.replace(corpus, select=select), extract, rounds, target)
        done.append(record)
        if record["next"] is None:
            break
        _save_state(corpus.out, digest, done)
        log.info(
            "round %d: %d sentences read, %d with a tree, partial: %s; next round reads up to %d"
            "%s", len(done), record["parsed"], record["sentences"]["parsed"],
            ", ".join(record["partial"]), record["next"], _filter_note(extract, rounds, done),
        )  # fmt: skip
        target = record["next"]
    ex.manifest["rounds"] = {"settings": dataclasses.asdict(rounds), "done": done}
    manifest = ex.write()
    _save_state(corpus.out, digest, done)
    return manifest


def _select(extract: ExtractConfig, rounds: Rounds, done: list[dict[str, Any]]) -> Any:
    """This round's tag filter: none in the first round (or with ``tag_filter`` off), else the
    filters of the tasks the last round left short (None when one of them has none)."""
    if not rounds.tag_filter or not done:
        return None
    return select_for(extract, done[-1]["partial"])


def _filter_note(extract: ExtractConfig, rounds: Rounds, done: list[dict[str, Any]]) -> str:
    select = _select(extract, rounds, done)
    if select is None:
        return ""
    return f", tagging first, parsing for {', '.join(select.tasks) or 'no task'}"


def _one_round(
    corpus: CorpusConfig, extract: ExtractConfig, rounds: Rounds, target: int
) -> tuple[Extraction, dict[str, Any]]:
    t0 = time.perf_counter()
    target = _whole_shards(target, corpus.shard_size)
    if rounds.limit is not None:
        target = min(target, rounds.limit)
    paths, exhausted = _parse(corpus, target)
    t1 = time.perf_counter()
    ex = run_extraction(dataclasses.replace(extract, inputs=paths, allow_partial=True))
    ex.config = dataclasses.replace(extract, inputs=paths)  # written with the caller's settings
    ex.manifest["allow_partial"] = extract.allow_partial
    parsed = ex.manifest["reader"]["sentences"]
    at_limit = rounds.limit is not None and target >= rounds.limit
    more = None
    if ex.partial and not exhausted and not at_limit:
        more = _whole_shards(next_target(target, parsed, ex.manifest, rounds), corpus.shard_size)
        more = min(more, rounds.limit) if rounds.limit is not None else more
    record = {
        "asked": target,
        "parsed": parsed,
        "exhausted": exhausted,
        "partial": ex.partial,
        "parse_seconds": round(t1 - t0, 2),
        "extract_seconds": round(time.perf_counter() - t1, 2),
        "next": more,
        **round_counts(corpus, paths, ex.manifest),
    }
    return ex, record


def _save_state(parsed_dir: Path, digest: str, done: list[dict[str, Any]]) -> None:
    write_json(parsed_dir / ROUNDS_FILE, {"settings_sha256": digest, "rounds": done})

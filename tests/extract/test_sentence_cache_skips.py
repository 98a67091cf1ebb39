"""The sentence cache read again for some tasks only: a selection pass again (``_top_up``) reads
only the sentences the retried tasks made a candidate of in the first pass, and gives the same
files as reading every sentence."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.extract.handmade import short_and_long
from tests.extract.test_starved_by_exclusivity import PICKY, fixture
from xprobe.extract import pipeline
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.extract.scan import SentenceCache, _any_bit, count_corpus
from xprobe.tasks.base import Candidate, Context, TaskSpec, Variant
from xprobe.ud import Sentence


def test_any_bit_is_any_of_the_range() -> None:
    rnd = random.Random(5)
    for _ in range(3000):
        n = rnd.randrange(1, 6)
        bits = bytes(
            rnd.choice((0, 0, 0, 1 << rnd.randrange(8), rnd.randrange(256))) for _ in range(n)
        )
        lo = rnd.randrange(0, 8 * n + 1)
        hi = rnd.randrange(lo, 8 * n + 1)
        want = any(bits[i >> 3] >> (i & 7) & 1 for i in range(lo, hi))
        assert _any_bit(bits, lo, hi) == want, (bits, lo, hi)


def test_numbered_reads_only_the_wanted_sentences(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SentenceCache, "_BATCH", 3)  # many batches, some skipped whole
    path = str(fixture(tmp_path))
    names = [path]
    with SentenceCache(5, 28, tmp_path / "out") as cache:
        count_corpus(names, bigrams=False, cache=cache)
        every = list(cache.numbered(names))
        assert [i for i, *_ in every] == list(range(cache.count)) and cache.count == 16
        rnd = random.Random(1)
        for _ in range(50):
            keep = {i for i in range(cache.count) if rnd.random() < 0.3}
            wanted = bytearray((cache.count + 7) >> 3)
            for i in keep:
                wanted[i >> 3] |= 1 << (i & 7)
            got = list(cache.numbered(names, bytes(wanted)))
            assert got == [x for x in every if x[0] in keep]


def _most(s: Sentence, ctx: Context, rng: random.Random) -> Candidate | None:
    """Sentences s0..s5, s8..s13, ...: three in four."""
    i = int(s.comment("sent_id")[1:])
    if i % 8 >= 6:
        return None
    return Candidate((Variant("short" if len(s.tokens) < 13 else "long", s.tokens),))


MOST = TaskSpec("Most", "most", ("short", "long"), type(PICKY.params()), _most)


def _config(tmp_path: Path, out: str) -> ExtractConfig:
    """Most starved by the rarer Picky, with pools of no spare room: a pass again for Most."""
    corpus = short_and_long(tmp_path / "c64.conllu", 64)
    return ExtractConfig(
        lang="en", out=tmp_path / out, inputs=[str(corpus)], tasks=[MOST, PICKY],
        sizes=(16, 4, 4), allow_partial=True, progress=False, pool_margin=0.0,
    )  # fmt: skip


def test_pass_again_reads_only_candidates_and_writes_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[tuple[bool, int]] = []
    numbered = SentenceCache.numbered

    def counting(self, names, wanted=None):  # type: ignore[no-untyped-def]
        for x in numbered(self, names, wanted):
            read.append((wanted is not None, x[0]))
            yield x

    monkeypatch.setattr(SentenceCache, "numbered", counting)
    extract(_config(tmp_path, "skip"))
    again = [i for skipped, i in read if skipped]
    assert again, "the fixture no longer makes extract pass again for a starved task"
    first = [i for skipped, i in read if not skipped]
    assert len(first) == 64 and len(again) == 48  # Most's candidates only

    top_up = pipeline._top_up

    def every_sentence(*args, **kwargs):  # type: ignore[no-untyped-def]
        kwargs["hits"] = None
        return top_up(*args, **kwargs)

    monkeypatch.setattr(pipeline, "_top_up", every_sentence)
    read.clear()
    extract(_config(tmp_path, "all"))
    assert not any(skipped for skipped, _ in read)
    files = sorted(p.name for p in (tmp_path / "skip").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "all").iterdir())
    for name in files:
        assert (tmp_path / "skip" / name).read_bytes() == (tmp_path / "all" / name).read_bytes()

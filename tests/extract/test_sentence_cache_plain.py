"""The sentence cache keeps its first ``_PLAIN`` bytes of batches uncompressed and compresses
the rest: whichever way a batch was stored, the sentences read back are the same, all of them
or only the wanted ones."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.extract.test_starved_by_exclusivity import fixture
from xprobe.extract.scan import SentenceCache, count_corpus


def _read(tmp: Path, names: list[str], plain: int, wanted: list[bytes]) -> tuple[list, list]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SentenceCache, "_PLAIN", plain)
        with SentenceCache(5, 28, tmp) as cache:
            count_corpus(names, bigrams=False, cache=cache)
            every = list(cache.numbered(names))
            some = [list(cache.numbered(names, w)) for w in wanted]
            kinds = _kinds(cache)
    return [every, some], kinds


def _kinds(cache: SentenceCache) -> list[int]:
    """Whether each batch of the file is compressed (its header's flag)."""
    f = cache._file
    f.seek(0)
    out = []
    while size := f.read(8):
        out.append(int.from_bytes(f.read(4), "little") & 1)
        f.seek(int.from_bytes(size, "little"), 1)
    return out


def test_plain_and_compressed_batches_read_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SentenceCache, "_BATCH", 3)  # many batches
    names = [str(fixture(tmp_path))]
    rnd = random.Random(2)
    wanted = [bytes(rnd.randrange(256) for _ in range(2)) for _ in range(20)]
    packed, kinds = _read(tmp_path / "a", names, 0, wanted)
    assert set(kinds) == {1}
    plain, kinds = _read(tmp_path / "b", names, 1 << 30, wanted)
    assert set(kinds) == {0}
    mixed, kinds = _read(tmp_path / "c", names, 1500, wanted)
    assert kinds[0] == 0 and kinds[-1] == 1 and kinds == sorted(kinds)
    assert len(packed[0]) == 16 and packed == plain == mixed

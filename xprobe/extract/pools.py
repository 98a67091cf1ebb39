"""Bounded candidate pools for the selection pass, and the seeded hashes they rank by.

Memory does not grow with the corpus: each task keeps, per cell (split, label, stratum), only the
``cap`` candidates of lowest *priority*, a seeded 64-bit hash of the sentence text (bottom-k
sampling). The sample is therefore a uniform random one, independent of corpus order, and a text
seen twice has the same priority (so duplicates collapse).

Splits: a candidate with a lexical key (Tense's verb form...) goes to the split that a seeded hash
of (seed, language, task, case-folded key) picks in proportion to the sizes, so a key occurs in
one split only, whatever its case ("People" and "people" are one key). Other candidates share
one pool across splits; the validation and test splits are filled from it first
(:mod:`xprobe.extract.select`).

Example::

    >>> pool = Pool(cap=2)
    >>> for prio, h in ((5, 1), (3, 2), (9, 3), (1, 4)):
    ...     _ = pool.offer(prio, h, None)
    >>> [e[1] for e in pool.sorted()]
    [4, 2]
"""

from __future__ import annotations

import hashlib
import heapq
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from xprobe.files import derive_seed
from xprobe.tasks.base import fold_key

__all__ = ["MASK", "Entry", "LazyRandom", "Pool", "SplitPicker", "mix64", "text_hasher"]

MASK = (1 << 64) - 1
SPLITS = ("tr", "va", "te")

# A pooled candidate: (priority, text hash, variants, label or None, stratum, provenance).
# variants: ((label, text, key), ...); label: the fixed label (one variant) or None (flexible).
Entry = tuple[int, int, tuple[tuple[str, str, str | None], ...], str | None, str, tuple[Any, ...]]


def mix64(x: int) -> int:
    """SplitMix64 finaliser: a cheap, well-mixed 64-bit hash of a 64-bit integer."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def text_hasher(seed: int, lang: str) -> Any:
    """A function ``text -> 64-bit int``, keyed by (seed, language)."""
    key = derive_seed(seed, lang, "text").to_bytes(8, "little")
    blake = hashlib.blake2b

    def h(text: str) -> int:
        data = text.encode("utf-8", "surrogateescape")
        return int.from_bytes(blake(data, digest_size=8, key=key).digest(), "little")

    return h


class LazyRandom(random.Random):
    """A ``random.Random`` re-seeded per sentence at no cost: a SplitMix64 stream.

    ``arm(seed)`` (or setting ``_pending``) starts the stream of ``seed``; draws are
    ``mix64(seed + k * GOLDEN)`` for k = 1, 2, ... (Steele, Lea and Flood's SplitMix64, which
    passes BigCrush). Seeding Python's Mersenne Twister costs about 4 us, and the selection pass
    re-seeds one generator per task and sentence; here arming is one assignment. Every method
    of ``random.Random`` works (they build on ``random``, ``getrandbits`` and ``_randbelow``),
    and the draws depend only on the seed armed.
    """

    def __init__(self, seed: int = 0) -> None:
        self._pending: int | None = seed & MASK
        self._state = 0
        super().__init__(seed)

    def seed(self, a: object = None, version: int = 2) -> None:  # type: ignore[override]
        """Start the stream of an integer seed (``random.Random.__init__`` calls this)."""
        if not isinstance(a, int):
            raise TypeError("LazyRandom takes an integer seed")
        self._pending = a & MASK

    def arm(self, seed: int) -> None:
        self._pending = seed & MASK

    def _next(self) -> int:
        """The next 64-bit output."""
        if self._pending is not None:
            self._state, self._pending = self._pending, None
        x = self._state = (self._state + _GOLDEN) & MASK
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK  # mix64, inlined
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
        return x ^ (x >> 31)

    def random(self) -> float:
        return (self._next() >> 11) * _2_POW_M53

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k <= 64:
            return self._next() >> (64 - k)
        out = 0
        for _ in range((k + 63) // 64):
            out = (out << 64) | self._next()
        return out >> (-k % 64)

    def _randbelow(self, n: int) -> int:
        """Uniform in ``0..n-1`` by rejection on ``n.bit_length()`` bits (as ``random`` does)."""
        k = n.bit_length()
        if k > 64:
            r = self.getrandbits(k)
            while r >= n:
                r = self.getrandbits(k)
            return r
        shift = 64 - k
        r = self._next() >> shift
        while r >= n:
            r = self._next() >> shift
        return r

    def getstate(self) -> tuple[int, int | None]:  # type: ignore[override]
        return self._state, self._pending

    def setstate(self, state: tuple[int, int | None]) -> None:  # type: ignore[override]
        self._state, self._pending = state


_GOLDEN = 0x9E3779B97F4A7C15
_2_POW_M53 = 2.0**-53


@dataclass
class SplitPicker:
    """Picks a split in proportion to the sizes from a hash (of a key or of a text)."""

    sizes: Sequence[int]
    seed: int
    purpose: tuple[Any, ...]
    _cut: tuple[int, ...] = ()
    _keys: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        total = sum(self.sizes) or 1
        acc = 0
        cuts = []
        for n in self.sizes:
            acc += n
            cuts.append((acc << 64) // total)
        self._cut = tuple(cuts)

    def of_hash(self, h: int) -> int:
        """Split index for a 64-bit hash."""
        for i, c in enumerate(self._cut):
            if h < c:
                return i
        return len(self._cut) - 1

    def of_key(self, key: str) -> int:
        """Split index of a lexical key, compared case-folded ("People" and "people", Turkish
        "İnsanlar" and "insanlar" are one key: ``fold_key``; cached by the key as written)."""
        got = self._keys.get(key)
        if got is None:
            folded = fold_key(key)
            got = self._keys.get(folded)
            if got is None:
                got = self._keys[folded] = self.of_hash(
                    derive_seed(self.seed, *self.purpose, folded)
                )
            self._keys[key] = got
        return got


class Pool:
    """The ``cap`` entries of lowest priority offered so far (a max-heap on priority)."""

    __slots__ = ("cap", "evicted", "heap")

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.heap: list[tuple[int, int, Any]] = []
        self.evicted = 0

    def offer(self, prio: int, h: int, entry: Any) -> int | None:
        """Add an entry; returns the text hash that left the pool (the new one if refused),
        or None when nothing left."""
        heap = self.heap
        if len(heap) < self.cap:
            heapq.heappush(heap, (-prio, h, entry))
            return None
        self.evicted += 1
        if not heap or -heap[0][0] <= prio:
            return h
        return heapq.heapreplace(heap, (-prio, h, entry))[1]

    def sorted(self) -> list[tuple[int, int, Any]]:
        """Entries by increasing priority, as ``(priority, hash, entry)``."""
        return sorted((-p, h, e) for p, h, e in self.heap)

"""Bounded candidate pools for the selection pass, and the seeded hashes they rank by.

Memory does not grow with the corpus: each task keeps, per cell (split, label, stratum), only the
``cap`` candidates of lowest *priority*, a seeded 64-bit hash of the sentence text (bottom-k
sampling). The sample is therefore a uniform random one, independent of corpus order, and a text
seen twice has the same priority (so duplicates collapse).

Splits: a candidate with a lexical key (Tense's verb form...) goes to the split that a seeded hash
of (seed, language, task, key) picks in proportion to the sizes, so a key occurs in one split
only. Other candidates share one pool across splits; the validation and test splits are filled
from it first (:mod:`xprobe.extract_select`).

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
    """A ``random.Random`` that is re-seeded per sentence but seeds only when first drawn from.

    Seeding costs microseconds and most candidates never draw; the draws are the same as those of
    ``random.Random(seed)``.
    """

    def __init__(self) -> None:
        super().__init__(0)
        self._pending: int | None = None

    def arm(self, seed: int) -> None:
        self._pending = seed

    def _wake(self) -> None:
        seed, self._pending = self._pending, None
        self.seed(seed)

    def random(self) -> float:
        if self._pending is not None:
            self._wake()
        return super().random()

    def getrandbits(self, k: int) -> int:
        if self._pending is not None:
            self._wake()
        return super().getrandbits(k)

    def _randbelow(self, n: int) -> int:
        """``Random._randbelow_with_getrandbits`` drawing from the C generator directly (one
        Python call per integer, not one per draw); same draws."""
        if self._pending is not None:
            self._wake()
        k = n.bit_length()
        r = _GETRANDBITS(self, k)
        while r >= n:
            r = _GETRANDBITS(self, k)
        return r


_GETRANDBITS = random.Random.getrandbits  # the C method, without the lazy check


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
        """Split index of a lexical key (cached: keys are few)."""
        got = self._keys.get(key)
        if got is None:
            got = self._keys[key] = self.of_hash(derive_seed(self.seed, *self.purpose, key))
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

"""Cheap filters applied before parsing, so that only usable sentences reach UDPipe.

In order (the first that fails names the reason counted in the manifest):

``markup``
    leftovers of wiki or HTML markup in the raw sentence: ``< > { } [ ] | =``, ``\\``, URLs,
    HTML entities, list/heading markers at the start.
``not_sentence``
    does not start with a capital letter, digit or caseless letter (after opening quotes or
    brackets), does not end with one of the profile's ``sentence_final`` tokens, or has fewer than
    half of its tokens containing a letter.
``too_short`` / ``too_long``
    fewer than ``min_tokens`` or more than ``max_tokens`` tokens (defaults 5 and 28).
``duplicate``
    the same token sequence was seen before (8-byte hashes in a fixed-size table: memory is
    bounded; when the table is full, new sentences are no longer remembered and the manifest says
    so).

Example::

    >>> f = SentenceFilter(FilterConfig(min_tokens=3), sentence_final=(".",))
    >>> f.check("A cat sat .", ["A", "cat", "sat", "."])
    >>> f.check("A cat sat .", ["A", "cat", "sat", "."])
    'duplicate'
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["REASONS", "DedupTable", "FilterConfig", "SentenceFilter"]

REASONS = ("markup", "not_sentence", "too_short", "too_long", "duplicate")

_MARKUP = re.compile(
    r"[<>{}\[\]|=\\]|https?:|www\.|&[A-Za-z]+;|&#\d+;|^\s*[*#:;!]|\b(?:thumb|px|File|Image):"
)
_OPENERS = "\"'“‘„«‹([¿¡"


@dataclass(frozen=True)
class FilterConfig:
    """Filter settings (recorded in the manifest)."""

    min_tokens: int = 5
    max_tokens: int = 28
    dedup_slots_log2: int = 25  # at most 2**25 slots of 8 bytes (256 MiB), ~23 M sentences


class DedupTable:
    """A set of 64-bit hashes in a numpy open-addressing table (linear probing).

    ``add(h)`` returns True when ``h`` is new. The table starts small and doubles while it is
    70 % full, up to ``2**slots_log2`` slots; once the largest table is 70 % full it stops
    remembering new hashes (``saturated`` becomes True). Memory never exceeds
    ``8 * 2**slots_log2`` bytes and stays proportional to the sentences seen.
    """

    def __init__(self, slots_log2: int = 25, start_log2: int = 16) -> None:
        self._max_log2 = slots_log2
        self.size = 0
        self.saturated = False
        self._alloc(min(start_log2, slots_log2))

    def _alloc(self, log2: int) -> None:
        self._log2 = log2
        self._table = np.zeros(1 << log2, dtype=np.uint64)
        self._mask = (1 << log2) - 1
        self._limit = int(0.7 * (1 << log2))

    def _grow(self) -> None:
        old = self._table[self._table != 0]
        self._alloc(self._log2 + 1)
        table, mask = self._table, self._mask
        for v in old.tolist():
            i = v & mask
            while table[i]:
                i = (i + 1) & mask
            table[i] = v

    def __contains__(self, h: object) -> bool:
        if not isinstance(h, int):
            return False
        h = (h & 0xFFFFFFFFFFFFFFFF) or 1
        table, mask = self._table, self._mask
        i = h & mask
        while v := int(table[i]):
            if v == h:
                return True
            i = (i + 1) & mask
        return False

    def add(self, h: int) -> bool:
        h = (h & 0xFFFFFFFFFFFFFFFF) or 1  # 0 marks an empty slot
        table, mask = self._table, self._mask
        i = h & mask
        while True:
            v = int(table[i])
            if v == 0:
                break
            if v == h:
                return False
            i = (i + 1) & mask
        if self.size >= self._limit:
            if self._log2 >= self._max_log2:
                self.saturated = True
                return True
            self._grow()
            return self.add(h)
        table[i] = h
        self.size += 1
        return True


@dataclass
class SentenceFilter:
    """Applies the filters in order and counts rejections per reason in ``rejected``."""

    config: FilterConfig = field(default_factory=FilterConfig)
    sentence_final: Sequence[str] = (".", "!", "?", "…")
    rejected: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._final = frozenset(self.sentence_final)
        self._seen = DedupTable(self.config.dedup_slots_log2)

    @property
    def dedup_saturated(self) -> bool:
        return self._seen.saturated

    def check(self, raw: str, tokens: Sequence[str]) -> str | None:
        """None when the sentence should be parsed, else the reason it is dropped (counted)."""
        reason = self._reason(raw, tokens)
        if reason is not None:
            self.rejected[reason] += 1
        return reason

    def _reason(self, raw: str, tokens: Sequence[str]) -> str | None:
        if _MARKUP.search(raw):
            return "markup"
        if not _looks_like_sentence(raw, tokens, self._final):
            return "not_sentence"
        if len(tokens) < self.config.min_tokens:
            return "too_short"
        if len(tokens) > self.config.max_tokens:
            return "too_long"
        digest = hashlib.blake2b(" ".join(tokens).encode("utf-8"), digest_size=8).digest()
        if not self._seen.add(int.from_bytes(digest, "little")):
            return "duplicate"
        return None


def _looks_like_sentence(raw: str, tokens: Sequence[str], final: frozenset[str]) -> bool:
    if not tokens or tokens[-1] not in final:
        return False
    first = raw.lstrip(_OPENERS + " ")[:1]
    if not first or not (first.isdigit() or (first.isalpha() and not first.islower())):
        return False
    wordy = sum(1 for t in tokens if any(c.isalpha() for c in t))
    return 2 * wordy >= len(tokens)

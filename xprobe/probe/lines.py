"""Every distinct line of a probe run, encoded once for every layer: :class:`DistinctLines`.

The tasks of one probing folder share most of their sentences (a treebank's SentLen, WC,
TreeDepth, Tense, SubjNum and ObjNum lines are its own sentences, and half of BShift's and
SOMO's): over the 23 shared treebanks, 141,318 lines hold 86,956 distinct ones per language. A
layer-wise encoder (a transformer) probed split by split encoded each of them once per task file
that holds it. Here the distinct lines of every set of the run (every split, in set order, each
line where it first appears) are encoded once, every layer in one forward pass per batch,
into one embedding-cache entry per layer (:meth:`EmbeddingCache.get_or_encode_layers`, read
memory-mapped), and a split's features are its rows of those entries.

One line then has one vector in every task, however its task file was batched; the vectors
are those of the encoder on this batching (sorted by length over all distinct lines of the run
instead of one split), so they differ from split-by-split encoding in float rounding only. The
entries are keyed by the distinct lines, in order: a rerun, or a resumed run, of the same
folder reads them; a run over other tasks (``--tasks``) forms other entries.

Example::

    lines = DistinctLines.of(sets)
    per_layer = lines.features(cache, encoder, ps.tokens["tr"], layers=(0, 6))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["DistinctLines"]

SPLITS = ("tr", "va", "te")


@dataclass
class DistinctLines:
    """The distinct lines of a run, in first-appearance order, and each one's row."""

    lines: list[tuple[str, ...]]
    row: dict[tuple[str, ...], int]
    total: int = 0  # lines of the sets, repeats counted
    digest: str = ""  # the distinct lines' SHA-256, once asked for
    _entries: dict[Any, np.ndarray] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, sets: Sequence[Any]) -> DistinctLines:
        """The distinct lines of ``sets`` (probing sets: every split, tr, va, te, in order)."""
        row: dict[tuple[str, ...], int] = {}
        total = 0
        for ps in sets:
            for split in SPLITS:
                for toks in ps.tokens.get(split, ()):
                    row.setdefault(tuple(toks), len(row))
                    total += 1
        return cls(list(row), row, total)

    def __len__(self) -> int:
        return len(self.lines)

    def rows(self, sentences: Sequence[Sequence[str]]) -> np.ndarray:
        """The rows of ``sentences`` (each one a line of the run)."""
        return np.fromiter((self.row[tuple(s)] for s in sentences), dtype=np.int64,
                           count=len(sentences))  # fmt: skip

    def entries(
        self, cache: Any, encoder: Any, layers: Sequence[int], desc: str = "encode"
    ) -> dict[int, np.ndarray]:
        """Per layer, every distinct line's features (memory-mapped cache entries), encoded
        the first time they are asked for."""
        missing = [k for k in layers if (encoder.layer_id(k), k) not in self._entries]
        if missing:
            got = cache.get_or_encode_layers(encoder, self.lines, missing, desc, mmap=True)
            for k, arr in got.items():
                self._entries[(encoder.layer_id(k), k)] = arr
        return {k: self._entries[(encoder.layer_id(k), k)] for k in layers}

    def features(
        self, cache: Any, encoder: Any, sentences: Sequence[Sequence[str]],
        layers: Sequence[int], desc: str = "encode",
    ) -> dict[int, np.ndarray]:  # fmt: skip
        """Per layer, the features of ``sentences`` (in memory: their rows gathered)."""
        idx = self.rows(sentences)
        return {k: np.ascontiguousarray(a[idx]) for k, a in
                self.entries(cache, encoder, layers, desc).items()}  # fmt: skip

    def shapes(
        self, cache: Any, encoder: Any, n: int, layers: Sequence[int], desc: str = "encode"
    ) -> dict[int, tuple[int, int]]:
        """Per layer, the shape of ``n`` sentences' features (every layer encoded first, in one
        pass; one layer's entry open at a time)."""
        got = cache.layer_shapes(encoder, self.lines, layers, desc)
        return {k: (n, int(got[k][1])) for k in layers}

    def split_entries(
        self, cache: Any, encoder: Any, sentences: Sequence[Sequence[str]],
        layers: Sequence[int], desc: str = "encode",
    ) -> dict[int, np.ndarray]:  # fmt: skip
        """Per layer, the rows of ``sentences`` as a cache entry of their own, memory-mapped:
        a block of streamed layers (:mod:`xprobe.probe.streaming`) is never held in memory;
        one layer's rows are, while their entry is written."""
        from xprobe.probe.cache import sentences_hash

        key, idx = sentences_hash(sentences), self.rows(sentences)
        if not self.digest:
            self.digest = sentences_hash(self.lines)
        out = {}
        for k in layers:
            lid = f"{encoder.layer_id(k)}:rows-of={self.digest[:16]}"
            arr = cache.load(lid, key, len(sentences), mmap=True)
            if arr is None:
                whole = cache.get_or_encode_layers(encoder, self.lines, [k], desc, mmap=True)[k]
                _write_rows(cache, lid, key, whole, idx)
                del whole
                arr = cache.load(lid, key, len(sentences), mmap=True)
            out[k] = arr
        return out


def _write_rows(cache: Any, lid: str, key: str, whole: np.ndarray, idx: np.ndarray) -> None:
    """Rows ``idx`` of ``whole`` as the cache entry (``lid``, ``key``), written about 1 MB of
    rows at a time into a file of its full size, then checksummed and put in place."""
    final = cache.path(lid, key)
    final.parent.mkdir(parents=True, exist_ok=True)
    part = final.with_name(final.name + ".rows.part")
    d = int(whole.shape[1])
    out = np.lib.format.open_memmap(part, mode="w+", dtype=cache.dtype, shape=(len(idx), d))
    step = max(1, (1 << 20) // max(4 * d, 1))
    for a in range(0, len(idx), step):
        out[a : a + step] = whole[idx[a : a + step]]
    out.flush()
    del out
    cache.finish(part, final, lid, (len(idx), d))

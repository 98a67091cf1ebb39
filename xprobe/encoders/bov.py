"""Bag-of-vectors encoders: the mean of a sentence's word vectors, or "pmeans".

``pooling="mean"`` averages the vectors of the tokens that have one (Conneau et al.'s
BoV-fastText); ``pooling="pmeans"`` concatenates the mean, min and max (Rücklé et al.'s power
means p = 1, -inf, +inf; 3 x dim). A sentence with no known token gets the zero vector.

The word vectors are loaded lazily, on the first :meth:`BoVEncoder.encode`: the ``id`` needs only
the file's fingerprint, so a probe whose embeddings are all cached never reads the vector file.

Example::

    enc = BoVEncoder.from_path("cc.en.300.vec", "mean", vocab={"a", "cat"})
    enc.encode([["a", "cat"]]).shape     # (1, 300)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from xprobe.encoders.vectors import WordVectors, file_fingerprint, load_vectors
from xprobe.errors import XProbeError

__all__ = ["POOLINGS", "BoVEncoder"]

POOLINGS = ("mean", "pmeans")


class BoVEncoder:
    """Mean (or mean/min/max) pooling of word vectors; an :class:`~xprobe.encoders.base.Encoder`."""

    def __init__(
        self,
        vectors: WordVectors | Callable[[], WordVectors],
        pooling: str = "mean",
        fingerprint: str | None = None,
        dim: int | None = None,
        lowercase: bool = False,
    ) -> None:
        if pooling not in POOLINGS:
            raise XProbeError(f"unknown pooling {pooling!r}; valid: {', '.join(POOLINGS)}")
        self.pooling = pooling
        self._vectors = vectors if isinstance(vectors, WordVectors) else None
        self._loader = None if isinstance(vectors, WordVectors) else vectors
        fp = fingerprint or (self._vectors.fingerprint if self._vectors else "")
        self._word_dim = dim or (self._vectors.dim if self._vectors else None)
        self.lowercase = self._vectors.lowercase if self._vectors else lowercase
        self._id = f"bov-{pooling}:{fp}:{'lc' if self.lowercase else 'cased'}"

    @classmethod
    def from_path(
        cls,
        path: str | os.PathLike[str],
        pooling: str = "mean",
        vocab: Iterable[str] | None = None,
        lowercase: bool = False,
    ) -> BoVEncoder:
        """A lazily loaded encoder over a ``.vec``/``.bin`` file (restricted to ``vocab``)."""
        p = Path(path)
        if not p.is_file():
            raise XProbeError(f"{p}: word-vector file not found")
        words = None if vocab is None else set(vocab)
        return cls(
            lambda: load_vectors(p, vocab=words, lowercase=lowercase),
            pooling,
            fingerprint=file_fingerprint(p),
            dim=_peek_dim(p),
            lowercase=lowercase,
        )

    @property
    def id(self) -> str:
        return self._id

    @property
    def vectors(self) -> WordVectors:
        if self._vectors is None:
            assert self._loader is not None
            self._vectors = self._loader()
            self._word_dim = self._vectors.dim
        return self._vectors

    @property
    def dim(self) -> int:
        if self._word_dim is None:
            self._word_dim = self.vectors.dim
        return self._word_dim * (3 if self.pooling == "pmeans" else 1)

    def encode(self, batch: Sequence[Sequence[str]]) -> np.ndarray:
        """``(len(batch), dim)`` float32 sentence vectors."""
        vecs = self.vectors
        out = np.zeros((len(batch), self.dim), dtype=np.float32)
        d = vecs.dim
        for i, toks in enumerate(batch):
            rows = vecs.lookup(toks)
            if not len(rows):
                continue
            out[i, :d] = rows.mean(0)
            if self.pooling == "pmeans":
                out[i, d : 2 * d] = rows.min(0)
                out[i, 2 * d :] = rows.max(0)
        return out


def _peek_dim(p: Path) -> int | None:
    """The vector dimension from a ``.vec`` file's first line(s), without loading it."""
    if p.suffix == ".bin":
        return None
    from xprobe.files import read_lines

    for _, line in read_lines(p):
        parts = line.rstrip("\n").rstrip(" ").split(" ")
        if len(parts) == 2 and all(x.isdigit() for x in parts):
            return int(parts[1])
        if len(parts) > 1:
            return len(parts) - 1
    return None

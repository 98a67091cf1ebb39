"""Word vectors: fastText ``.vec`` text files (with or without a header) and ``.bin`` models.

A job rarely needs all of a 2M-word file: pass ``vocab`` and only those words are kept, read in
one streaming pass. OOV policy: a ``.bin`` model builds a vector for any word from its subwords;
a ``.vec`` file has no subwords, so an unknown word is *skipped* (InferSent's convention: it adds
nothing to the sentence); :meth:`WordVectors.lookup` reports which tokens were found.
Lower-casing is a recorded property (``lowercase``): when True, lookups lower-case the token.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from xprobe.errors import InputError, XProbeError
from xprobe.files import open_text

__all__ = ["WordVectors", "file_fingerprint", "load_vectors"]


@dataclass
class WordVectors:
    """A word -> vector table (float32 matrix), plus what it came from."""

    words: list[str]
    matrix: np.ndarray
    lowercase: bool = False
    source: str = ""
    fingerprint: str = ""
    subword_model: object | None = field(default=None, repr=False)  # fasttext model for OOV
    index: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.index:
            self.index = {w: i for i, w in enumerate(self.words)}

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return self._key(word) in self.index

    def _key(self, word: str) -> str:
        return word.lower() if self.lowercase else word

    def get(self, word: str) -> np.ndarray | None:
        """The vector of ``word``; for a ``.bin`` model also of an OOV word; else None."""
        i = self.index.get(self._key(word))
        if i is not None:
            return self.matrix[i]
        if self.subword_model is not None:
            return np.asarray(
                self.subword_model.get_word_vector(self._key(word)),  # type: ignore[attr-defined]
                dtype=np.float32,
            )
        return None

    def lookup(self, tokens: Sequence[str]) -> np.ndarray:
        """``(k, dim)`` vectors of the tokens that have one (OOV tokens of a .vec are skipped)."""
        rows = [v for t in tokens if (v := self.get(t)) is not None]
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack(rows).astype(np.float32, copy=False)


def file_fingerprint(path: str | os.PathLike[str]) -> str:
    """A cheap, content-based identity: size plus a hash of the first and last MiB."""
    p = Path(path)
    size = p.stat().st_size
    h = hashlib.sha256(str(size).encode())
    with open(p, "rb") as f:
        h.update(f.read(1 << 20))
        if size > 2 << 20:
            f.seek(-(1 << 20), os.SEEK_END)
            h.update(f.read())
    return h.hexdigest()[:16]


def load_vectors(
    path: str | os.PathLike[str],
    vocab: Iterable[str] | None = None,
    lowercase: bool = False,
    max_words: int | None = None,
) -> WordVectors:
    """Load ``.vec`` (text) or ``.bin`` (fastText) vectors, keeping only ``vocab`` when given.

    ``max_words`` keeps the first N words of a ``.vec`` file (they are frequency-sorted).
    """
    p = Path(path)
    if not p.is_file():
        raise XProbeError(f"{p}: word-vector file not found")
    wanted = None if vocab is None else {w.lower() if lowercase else w for w in vocab}
    if p.suffix == ".bin":
        return _load_bin(p, wanted, lowercase)
    return _load_vec(p, wanted, lowercase, max_words)


def _load_vec(
    p: Path, wanted: set[str] | None, lowercase: bool, max_words: int | None
) -> WordVectors:
    words: list[str] = []
    rows: list[np.ndarray] = []
    seen: set[str] = set()
    dim = None
    with open_text(p) as f:
        for lineno, line in enumerate(f, 1):
            parts = line.rstrip("\n").rstrip(" ").split(" ")
            if lineno == 1 and len(parts) == 2 and all(x.isdigit() for x in parts):
                dim = int(parts[1])
                continue
            if len(parts) < 2:
                if not line.strip():
                    continue
                raise InputError(str(p), lineno, "expected a word followed by its vector")
            if dim is None:
                dim = len(parts) - 1
            if len(parts) - 1 != dim:
                raise InputError(str(p), lineno, f"expected {dim} values, found {len(parts) - 1}")
            word = parts[0].lower() if lowercase else parts[0]
            if max_words is not None and lineno > max_words + 1:
                break
            if word in seen or (wanted is not None and word not in wanted):
                continue
            try:
                rows.append(np.asarray(parts[1:], dtype=np.float32))
            except ValueError:
                raise InputError(str(p), lineno, "vector values must be numbers") from None
            words.append(word)
            seen.add(word)
    if dim is None:
        raise InputError(str(p), None, "no vectors in file")
    matrix = np.stack(rows) if rows else np.zeros((0, dim), dtype=np.float32)
    return WordVectors(words, matrix, lowercase, str(p), file_fingerprint(p))


def _load_bin(p: Path, wanted: set[str] | None, lowercase: bool) -> WordVectors:
    import fasttext

    fasttext.FastText.eprint = lambda *a, **k: None  # silence its deprecation banner
    try:
        model = fasttext.load_model(str(p))
    except ValueError as e:
        raise XProbeError(f"{p}: not a fastText .bin model ({e})") from None
    words = sorted(wanted) if wanted is not None else list(model.words)
    matrix = (
        np.stack([model.get_word_vector(w) for w in words]).astype(np.float32)
        if words
        else np.zeros((0, model.get_dimension()), dtype=np.float32)
    )
    return WordVectors(words, matrix, lowercase, str(p), file_fingerprint(p), subword_model=model)

"""Word vectors: fastText ``.vec`` text files (with or without a header) and ``.bin`` models.

A job rarely needs all of a 2M-word file: pass ``vocab`` and only those words are kept, read in
one streaming pass (lines of unwanted words are never parsed into numbers; the kept rows go into
a growing float32 buffer, so memory is about ``len(kept) x dim x 4`` bytes).

OOV policy: a ``.bin`` model builds a vector for any word from its character n-grams (fastText
subwords); a ``.vec`` file has no subwords, so an unknown word is *skipped* (InferSent's
convention: it adds nothing to the sentence); :meth:`WordVectors.lookup` returns only the
found tokens and :meth:`WordVectors.coverage` counts them.

Lower-casing is a recorded property (``lowercase``): when True, the file's words are lower-cased
on reading (the first occurrence wins) and lookups lower-case the token.

``fingerprint`` identifies what a lookup can return: the file's content fingerprint, plus the
lower-casing and, for a ``.vec`` restricted to a vocabulary, the set of kept words (two tables
restricted differently skip different words, so they must not share an encoder id).

Example::

    vecs = load_vectors("cc.en.300.vec", vocab={"the", "cat"}, lowercase=True)
    vecs.lookup(["The", "cat", "zzz"]).shape    # (2, 300): "zzz" is skipped
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from xprobe.errors import InputError, XProbeError
from xprobe.files import read_lines

__all__ = ["WordVectors", "file_fingerprint", "load_vectors", "table_fingerprint"]

log = logging.getLogger(__name__)


@dataclass
class WordVectors:
    """A word -> vector table (float32 matrix), plus what it came from."""

    words: list[str]
    matrix: np.ndarray
    lowercase: bool = False
    source: str = ""
    fingerprint: str = ""
    subword_model: object | None = field(default=None, repr=False)  # fasttext model for OOV
    # the table an encoder saved with its weights (its training vocabulary, which
    # ``train-nli --vocab-from`` extends), not a vector file read for the words asked
    saved: bool = False
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

    def coverage(self, tokens: Iterable[str]) -> tuple[int, int]:
        """``(found, total)``: how many tokens have a vector (all of them for a ``.bin``)."""
        found = total = 0
        for t in tokens:
            total += 1
            found += self.subword_model is not None or self._key(t) in self.index
        return found, total

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


def table_fingerprint(base: str, lowercase: bool, words: Iterable[str] | None) -> str:
    """Fingerprint of a table: file fingerprint + lower-casing + (sorted) kept words if any."""
    h = hashlib.sha256(f"{base}|lower={int(lowercase)}".encode())
    if words is not None:
        for w in sorted(words):
            h.update(w.encode("utf-8") + b"\n")
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
    seen: set[str] = set()
    buf: np.ndarray | None = None
    dim = announced = None
    n_data = last_no = 0
    last = ""
    for lineno, line in read_lines(p):
        if not line.strip():
            continue
        if lineno == 1 and _is_header(line):
            announced, dim = (int(x) for x in line.split())
            continue
        n_data += 1
        if max_words is not None and n_data > max_words:
            break
        if dim is None:
            dim = len(line.rstrip("\n").rstrip(" ").split(" ")) - 1
        if n_data == 1:
            _values(line, p, lineno, dim)  # the first line always: does the header's dim hold?
        last, last_no = line, lineno
        head = line.split(" ", 1)[0]
        word = head.lower() if lowercase else head
        if word in seen or (wanted is not None and word not in wanted):
            continue  # unwanted lines are never parsed: fast on a 2M-word file
        if buf is None or len(words) == len(buf):
            buf = _grow(buf, dim)
        try:
            buf[len(words)] = np.asarray(_values(line, p, lineno, dim), dtype=np.float32)
        except ValueError:
            raise InputError(str(p), lineno, "vector values must be numbers") from None
        words.append(word)
        seen.add(word)
    if dim is None:
        raise InputError(str(p), None, "no vectors in file")
    _check_complete(p, announced, n_data, max_words, last, last_no, dim)
    matrix = buf[: len(words)].copy() if buf is not None else np.zeros((0, dim), np.float32)
    restricted = None if wanted is None and max_words is None else words
    fp = table_fingerprint(file_fingerprint(p), lowercase, restricted)
    return WordVectors(words, matrix, lowercase, str(p), fp)


def _values(line: str, p: Path, lineno: int, dim: int) -> list[str]:
    """The value fields of a ``word v1 ... vdim`` line; an error when there are not ``dim``."""
    parts = line.rstrip("\n").rstrip(" ").split(" ")
    if len(parts) < 2:
        raise InputError(str(p), lineno, "expected a word followed by its vector")
    if len(parts) - 1 != dim:
        raise InputError(str(p), lineno, f"expected {dim} values, found {len(parts) - 1}")
    return parts[1:]


def _check_complete(
    p: Path, announced: int | None, n: int, max_words: int | None, last: str, last_no: int, dim: int
) -> None:
    """A truncated file is an error even when no line of it was wanted: the last line must be
    whole and, with a header, the number of words must be the announced one."""
    if max_words is not None and n > max_words:
        return  # stopped early on purpose: the rest was not read
    if last:
        _values(last, p, last_no, dim)
        if not last.endswith("\n"):  # fastText ends every line with one
            if announced is not None:
                raise InputError(str(p), last_no, "the last line has no newline: truncated?")
            log.warning("%s:%d: the last line has no newline: truncated?", p, last_no)
    if announced is not None and n != announced:
        raise InputError(
            str(p),
            None,
            f"the header announces {announced} words, the file holds {n} "
            f"({'truncated' if n < announced else 'a wrong header'}?)",
        )


def _is_header(line: str) -> bool:
    parts = line.split()
    return len(parts) == 2 and all(x.isdigit() for x in parts)


def _grow(buf: np.ndarray | None, dim: int) -> np.ndarray:
    """A float32 row buffer twice as large (at least 1024 rows), keeping the old rows."""
    new = np.zeros((max(1024, 2 * (0 if buf is None else len(buf))), dim), dtype=np.float32)
    if buf is not None:
        new[: len(buf)] = buf
    return new


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
    fp = table_fingerprint(file_fingerprint(p), lowercase, None)  # subwords: no word is lost
    return WordVectors(words, matrix, lowercase, str(p), fp, subword_model=model)

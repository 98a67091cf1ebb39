"""Parallel corpora for sentence-encoder mapping: read, tokenise, filter, deduplicate, split.

Two layouts are read: two aligned text files (line *i* of one translates line *i* of the other;
``.gz`` is fine) or one tab-separated file (``source<TAB>target`` per line). Each side is
tokenised with the Moses tokenizer of its language (``moses_lang`` of the language profile, so
languages stay data); Moses-escaped input such as ``Parliament &apos;s`` (already tokenised: WMT,
OPUS releases) is unescaped and split on spaces instead, so both give the same tokens.

Example::

    corpus = load_parallel(ParallelSource("en", "de", "europarl.en", "europarl.de"),
                           ParallelFilter(max_length=50), heldout=1000, seed=1)
    corpus.train[0]   # (("Resumption", "of", "the", "session"), ("Wiederaufnahme", ...))
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from xprobe.errors import InputError, XProbeError
from xprobe.files import find_not_utf8, np_rng, open_text

__all__ = [
    "ParallelCorpus",
    "ParallelFilter",
    "ParallelSource",
    "ParallelStats",
    "check_aligned",
    "corpus_hash",
    "count_lines",
    "load_parallel",
    "moses_tokenizer",
    "read_pairs",
    "tokenize",
    "unescape_moses",
]

log = logging.getLogger(__name__)

Tokens = tuple[str, ...]
Pair = tuple[Tokens, Tokens]

# Moses' escape table (sacremoses MosesTokenizer.escape_xml), inverted; &amp; last.
_MOSES_ESCAPES = (
    ("&#124;", "|"),
    ("&lt;", "<"),
    ("&gt;", ">"),
    ("&bra;", "["),
    ("&ket;", "]"),
    ("&#91;", "["),
    ("&#93;", "]"),
    ("&apos;", "'"),
    ("&quot;", '"'),
    ("&amp;", "&"),
)


def unescape_moses(text: str) -> str:
    """Undo Moses XML escaping: ``"Parliament &apos;s"`` -> ``"Parliament 's"``."""
    if "&" not in text:
        return text
    for escaped, plain in _MOSES_ESCAPES:
        text = text.replace(escaped, plain)
    return text


@lru_cache(maxsize=16)
def moses_tokenizer(lang: str):  # -> sacremoses.MosesTokenizer
    """A cached sacremoses tokenizer for a Moses language code (unknown codes act as English)."""
    from sacremoses import MosesTokenizer

    return MosesTokenizer(lang=lang)


def moses_code(lang: str) -> str:
    """The Moses code of ``lang`` from its language profile; ``lang`` itself when no profile."""
    from xprobe.languages import ProfileError, load_profile

    try:
        return load_profile(lang).moses_lang
    except ProfileError:
        return lang


def tokenize(text: str, lang: str, lowercase: bool = False) -> Tokens:
    """Moses tokens of one sentence; ``lang`` is a Moses code.

    A line holding a Moses escape (``&apos;``, ``&quot;``, ``&amp;``...) is Moses *output*
    already: it is unescaped and split on spaces, because tokenising it again would break
    ``'s`` into ``' s``. Any other line is tokenised (Moses escapes every ``' " & | < > [ ]``,
    so a tokenised line without an escape has none of the characters that re-tokenising alters).
    """
    text = text.strip()
    if "&" in text and any(e in text for e, _ in _MOSES_ESCAPES):
        tokens = unescape_moses(text).split()
    else:
        tokens = moses_tokenizer(lang).tokenize(text, escape=False)
    if lowercase:
        return tuple(t.lower() for t in tokens)
    return tuple(tokens)


@dataclass(frozen=True)
class ParallelSource:
    """Where a parallel corpus lives: ``src`` and ``tgt`` aligned files, or ``tsv`` alone."""

    src_lang: str
    tgt_lang: str
    src: str | None = None
    tgt: str | None = None
    tsv: str | None = None

    def __post_init__(self) -> None:
        if (self.tsv is None) == (self.src is None or self.tgt is None):
            raise XProbeError("a parallel corpus is either two aligned files or one TSV file")

    @property
    def files(self) -> list[str]:
        return [self.tsv] if self.tsv else [str(self.src), str(self.tgt)]


@dataclass(frozen=True)
class ParallelFilter:
    """Which pairs to keep: token lengths within [min_length, max_length] on both sides,
    length ratio at most ``max_ratio``, first ``max_pairs`` kept pairs (None = all)."""

    min_length: int = 1
    max_length: int = 50
    max_ratio: float = 3.0
    max_pairs: int | None = None
    dedup: bool = True
    lowercase: bool = False


@dataclass
class ParallelStats:
    """Counts of what happened to the lines read."""

    read: int = 0
    empty: int = 0
    length: int = 0
    ratio: int = 0
    duplicate: int = 0
    kept: int = 0


@dataclass
class ParallelCorpus:
    """Tokenised pairs split into ``train`` and ``heldout`` (deterministic, seeded)."""

    train: list[Pair]
    heldout: list[Pair]
    stats: ParallelStats = field(default_factory=ParallelStats)
    hash: str = ""


def read_pairs(source: ParallelSource) -> Iterator[tuple[int, str, str]]:
    """Stream ``(line number, source text, target text)``; misaligned files are an error, and
    so is a byte that is not UTF-8 (file, line and byte named)."""
    try:
        yield from _read_pairs(source)
    except UnicodeDecodeError:
        for f in source.files:
            if (error := find_not_utf8(f)) is not None:
                raise error from None
        raise


def _read_pairs(source: ParallelSource) -> Iterator[tuple[int, str, str]]:
    if source.tsv:
        with open_text(source.tsv) as f:
            for lineno, line in enumerate(f, 1):
                parts = line.rstrip("\n").split("\t")
                if len(parts) < 2:
                    raise InputError(source.tsv, lineno, "expected source<TAB>target")
                yield lineno, parts[0], parts[1]
        return
    assert source.src is not None and source.tgt is not None
    for p in (source.src, source.tgt):
        if not Path(p).is_file():
            raise XProbeError(f"{p}: parallel corpus file not found")
    with open_text(source.src) as fs, open_text(source.tgt) as ft:
        lineno = 0
        while True:
            s, t = fs.readline(), ft.readline()
            if not s or not t:
                break
            lineno += 1
            yield lineno, s.rstrip("\n"), t.rstrip("\n")
        if s or t:  # one file ended first: count the rest of the other for the message
            rest = 1 + sum(1 for _ in (fs if s else ft))
            n_src, n_tgt = (lineno + rest, lineno) if s else (lineno, lineno + rest)
            raise _misaligned(source, n_src, n_tgt)


def _misaligned(source: ParallelSource, n_src: int, n_tgt: int) -> InputError:
    return InputError(
        str(source.src),
        None,
        f"{n_src} lines, but {source.tgt} has {n_tgt} lines: the two files of a parallel "
        "corpus have different lengths, and must be aligned line by line (was a line deleted "
        "or added in one of them?)",
    )


def count_lines(path: str | os.PathLike[str]) -> int:
    """Lines of a text file (``.gz`` read transparently), counted as :func:`read_pairs` reads
    them: a last line without a newline counts, ``\r\n`` is one line break."""
    with open_text(path) as f:
        return sum(1 for _ in f)


def check_aligned(source: ParallelSource) -> None:
    """Raise :class:`InputError` naming both line counts when two aligned files differ in length.

    :func:`read_pairs` finds this when it reads to the end; a reader that stops early
    (``max_pairs``) calls this instead, so a corpus misaligned from line 1,000 on is never
    trained on.
    """
    if source.tsv:
        return
    assert source.src is not None and source.tgt is not None
    n_src, n_tgt = count_lines(source.src), count_lines(source.tgt)
    if n_src != n_tgt:
        raise _misaligned(source, n_src, n_tgt)


def _keep(src: Tokens, tgt: Tokens, flt: ParallelFilter, stats: ParallelStats) -> bool:
    if not src or not tgt:
        stats.empty += 1
        return False
    if not all(flt.min_length <= len(x) <= flt.max_length for x in (src, tgt)):
        stats.length += 1
        return False
    if max(len(src), len(tgt)) > flt.max_ratio * min(len(src), len(tgt)):
        stats.ratio += 1
        return False
    return True


def iter_tokenized(
    source: ParallelSource, flt: ParallelFilter, stats: ParallelStats | None = None
) -> Iterator[Pair]:
    """Stream tokenised, filtered, deduplicated pairs (stops after ``flt.max_pairs``)."""
    stats = stats if stats is not None else ParallelStats()
    src_code, tgt_code = moses_code(source.src_lang), moses_code(source.tgt_lang)
    seen: set[bytes] = set()
    for _, s, t in read_pairs(source):
        stats.read += 1
        src = tokenize(s, src_code, flt.lowercase)
        tgt = tokenize(t, tgt_code, flt.lowercase)
        if not _keep(src, tgt, flt, stats):
            continue
        if flt.dedup:
            key = hashlib.blake2b(
                ("\n".join((" ".join(src), " ".join(tgt)))).encode(), digest_size=12
            ).digest()
            if key in seen:
                stats.duplicate += 1
                continue
            seen.add(key)
        stats.kept += 1
        yield src, tgt
        if flt.max_pairs is not None and stats.kept >= flt.max_pairs:
            check_aligned(source)  # the rest is not read: compare the files' lengths
            return


def corpus_hash(pairs: list[Pair]) -> str:
    """A digest of the tokenised pairs, in order (keys the cache of teacher vectors).

    :class:`ParallelCorpus` hashes ``train + heldout``, the order in which the trainer encodes.
    """
    h = hashlib.sha256()
    for src, tgt in pairs:
        h.update(" ".join(src).encode())
        h.update(b"\t")
        h.update(" ".join(tgt).encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


def load_parallel(
    source: ParallelSource, flt: ParallelFilter | None = None, heldout: int = 1000, seed: int = 1
) -> ParallelCorpus:
    """Tokenise and filter a corpus, then hold out ``heldout`` pairs chosen by a seeded shuffle.

    The held-out pairs measure translation retrieval and MSE on unseen text. The training pairs
    keep corpus order (the trainer shuffles per epoch). Raises when fewer than ``heldout + 1``
    pairs survive the filters.
    """
    flt = flt or ParallelFilter()
    stats = ParallelStats()
    from tqdm import tqdm

    pairs = list(
        tqdm(
            iter_tokenized(source, flt, stats),
            desc=f"tokenise {source.src_lang}-{source.tgt_lang}",
            unit=" pairs",
            disable=None,
            total=flt.max_pairs,
        )
    )
    if len(pairs) <= heldout:
        raise XProbeError(
            f"{', '.join(source.files)}: {len(pairs)} pairs after filtering, "
            f"need more than the {heldout} held out"
        )
    order = np_rng(seed, "parallel", source.src_lang, source.tgt_lang, "heldout").permutation(
        len(pairs)
    )
    held = set(order[:heldout].tolist())
    train = [p for i, p in enumerate(pairs) if i not in held]
    held_pairs = [pairs[i] for i in sorted(held)]
    corpus = ParallelCorpus(train, held_pairs, stats, corpus_hash(train + held_pairs))
    log.info(
        "%s: read %d, kept %d (empty %d, length %d, ratio %d, duplicate %d); %d train, %d held out",
        os.path.basename(source.files[0]),
        stats.read,
        stats.kept,
        stats.empty,
        stats.length,
        stats.ratio,
        stats.duplicate,
        len(corpus.train),
        len(corpus.heldout),
    )
    return corpus

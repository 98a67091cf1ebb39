"""Reading for the extractor: raw sentence blocks, the frequency pass, the sentence cache.

The frequency pass (:func:`count_corpus`) does not build :class:`~xprobe.ud.Sentence` objects:
a fast path (:func:`xprobe.ud.simple_cells`, the parser's own) splits the columns and checks
everything the full parser checks; any block it is not sure about goes to
:func:`xprobe.ud.parse_block`, so the counts and the malformed-sentence decisions are exactly
those of the full reader. It also keeps the sentences the selection pass will want, already
checked and split, in a temporary file (:class:`SentenceCache`), so that the corpus is read and
parsed once.

Surface forms and their UPOS: a plain word's UPOS is its own; a multiword token (``zum`` =
``zu`` + ``dem``) gets its words' UPOS joined by ``+`` (``ADP+DET``), so that it is never taken
for a single NOUN or VERB (SOMO replaces single words only).

Example::

    >>> from xprobe.extract.scan import count_corpus
    >>> stats, read = count_corpus(["en.conllu"], bigrams=False)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import marshal
import os
import re
import shutil
import sys
import tempfile
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import pairwise
from pathlib import Path
from typing import IO

from xprobe.corpus.filters import DedupTable
from xprobe.errors import InputError, XProbeError
from xprobe.tasks.base import CorpusStats, sequence_hash
from xprobe.ud import (
    MultiwordToken,
    ReadStats,
    Sentence,
    _undecodable,
    check_tree,
    parse_block,
    sentence_from_cells,
    simple_text_cells,
)

__all__ = [
    "SentenceCache",
    "count_corpus",
    "iter_blocks",
    "open_conllu",
    "spool_stdin",
    "surface_count",
]


def open_conllu(path: str) -> IO[str]:
    """Open a CoNLL-U file as text (``.gz`` gunzipped, a byte-order mark at its start skipped),
    as :func:`xprobe.ud.read_conllu` does."""
    p = Path(path)
    try:
        if p.suffix == ".gz":
            return gzip.open(p, "rt", encoding="utf-8-sig", errors="surrogateescape")
        return open(p, encoding="utf-8-sig", errors="surrogateescape")
    except OSError as e:
        raise InputError(path, None, f"cannot open: {e.strerror or e}") from None


_CHUNK = 1 << 20
_WS_LINE = re.compile(r"\n[^\S\n]*(?:\n|$)")  # a blank (whitespace-only) line inside a part


def iter_blocks(path: str) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(first line number, lines)`` for each sentence block of a CoNLL-U file.

    Blocks are separated by blank (whitespace-only) lines, as :func:`xprobe.ud.read_conllu`
    reads them. The file is read in large chunks and split on ``\n\n``; only a part that holds
    another blank line is split again line by line (rare), which keeps this at C speed.
    """
    with open_conllu(path) as f:
        tail = ""
        line = 1
        try:
            while chunk := f.read(_CHUNK):
                parts = (tail + chunk).split("\n\n")
                tail = parts.pop()
                for part in parts:
                    if part and not part[0].isspace() and _WS_LINE.search(part) is None:
                        yield line, part.split("\n")
                    elif part:
                        yield from _split_slowly(part, line)
                    line += part.count("\n") + 2
        except (OSError, EOFError) as e:  # corrupt gzip
            raise InputError(path, None, f"cannot read: {e}") from None
        yield from _split_slowly(tail, line)


def _split_slowly(part: str, line: int) -> Iterator[tuple[int, list[str]]]:
    block: list[str] = []
    start = line
    for i, text in enumerate(part.split("\n")):
        if text.strip():
            if not block:
                start = line + i
            block.append(text)
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


@contextlib.contextmanager
def spool_stdin(paths: Sequence[str], where: Path) -> Iterator[list[str]]:
    """Replace ``-`` in ``paths`` by a temporary copy of stdin (two passes need to re-read it),
    ``.stdin.<pid>.<random>.conllu`` in ``where`` (see :mod:`xprobe.extract.leftovers`)."""
    if "-" not in paths:
        yield list(paths)
        return
    if list(paths).count("-") > 1:
        raise XProbeError("stdin ('-') can be given only once")
    where.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".stdin.{os.getpid()}.", suffix=".conllu", dir=where)
    try:
        try:
            with open(fd, "wb") as out:
                shutil.copyfileobj(sys.stdin.buffer, out)
        except OSError as e:  # a full disk names the copy of stdin
            if e.filename is None:
                e.filename = tmp
            raise
        yield [tmp if p == "-" else p for p in paths]
    finally:
        Path(tmp).unlink(missing_ok=True)


_RANGE_OR_EMPTY = re.compile(r"^[0-9]+[-.]", re.M)


def surface_count(block: list[str]) -> int:
    """Number of surface tokens of a block (exact for well-formed input; cheap)."""
    c = 0
    while c < len(block) and block[c][:1] == "#":
        c += 1
    if _RANGE_OR_EMPTY.search("\n".join(block)) is None:
        return len(block) - c
    n = 0
    for line in block:
        if line[0] == "#":
            continue
        ident = line[: line.find("\t")]
        if ident.isdigit():
            n += 1
        elif "-" in ident:
            a, _, b = ident.partition("-")
            if a.isdigit() and b.isdigit():
                n -= int(b) - int(a)
    return n


def _surface(cells: list[str], multi: tuple[MultiwordToken, ...]) -> tuple[list[str], list[str]]:
    """Surface forms and UPOS from checked columns (:func:`xprobe.ud.simple_text_cells`)."""
    if multi:
        ranges = {m.start: (m.end, m.form) for m in multi}
        return _merge_ranges(cells[1::10], cells[3::10], ranges)
    return cells[1::10], cells[3::10]


def _fast_surface(block: list[str]) -> tuple[list[str], list[str]] | None:
    """Surface forms and UPOS of a block, or None when the full parser must decide."""
    forms: list[str] = []
    upos: list[str] = []
    heads: list[int] = []
    ranges: dict[int, tuple[int, str]] = {}
    for line in block:
        if line[0] == "#":
            if heads or ranges:
                return None
            continue
        cols = line.split("\t")
        if len(cols) != 10 or "" in cols:
            return None
        ident = cols[0]
        if ident.isdigit():
            head = cols[6]
            if int(ident) != len(heads) + 1 or not head.isdigit():
                return None
            heads.append(int(head))
            forms.append(cols[1])
            upos.append(cols[3])
        elif "-" in ident:
            a, _, b = ident.partition("-")
            if not (a.isdigit() and b.isdigit()) or int(a) >= int(b) or int(a) != len(heads) + 1:
                return None
            ranges[int(a)] = (int(b), cols[1])
        elif "." in ident:
            a, _, b = ident.partition(".")
            if not (a.isdigit() and b.isdigit()) or int(a) != len(heads):
                return None
        else:
            return None
    if not heads or check_tree(heads) is not None or _undecodable(block):
        return None
    if not ranges:
        return forms, upos
    n = len(heads)
    if any(end > n for end, _ in ranges.values()):
        return None
    return _merge_ranges(forms, upos, ranges)


def _merge_ranges(
    forms: list[str], upos: list[str], ranges: dict[int, tuple[int, str]]
) -> tuple[list[str], list[str]]:
    out_f: list[str] = []
    out_u: list[str] = []
    i = 0
    n = len(forms)
    while i < n:
        r = ranges.get(i + 1)
        if r is None:
            out_f.append(forms[i])
            out_u.append(upos[i])
            i += 1
        else:
            end, form = r
            out_f.append(form)
            out_u.append("+".join(upos[i:end]))
            i = end
    return out_f, out_u


def sentence_surface_upos(sentence: Sentence) -> list[str]:
    """UPOS of each surface token (multiword tokens: their words' UPOS joined by ``+``)."""
    words = sentence.words
    return ["+".join(words[w].upos for w in range(t.first, t.last + 1)) for t in sentence.surface]


class SentenceCache:
    """The sentences of ``lo``..``hi`` surface tokens, kept by the frequency pass for the
    selection pass(es), so that these neither re-read nor re-check the input.

    An unnamed temporary file in ``where`` (the output folder: it takes about 0.33 KB per kept
    sentence, 3.3 GB for 10 million, so it goes where the user made room, not to ``/tmp``; gone
    when closed or when the process ends; nothing in memory grows with the corpus) of
    length-prefixed batches of marshalled records, the first ``_PLAIN`` bytes of them as they
    are, the rest zlib-compressed (level 1: compressing and reading back twice cost 5 % of
    the bench's run at 100k sentences, whose 69 MB stay plain; a corpus of millions pays it
    for the rest, to keep the file a quarter as large): ``(file index,
    line, comments, text, heads, ranges)`` for a block that :func:`xprobe.ud.simple_text_cells`
    checked (its word lines joined by tabs, split into columns when read: one string marshals
    and loads several times faster than its cells; the sentence is rebuilt without checking
    again), or ``(file index, line, lines)`` for any other block that parsed (parsed again when
    read). Each batch's header holds its size in bytes, its number of records and whether it
    is compressed, so that a pass that wants only some sentences (:meth:`numbered`) skips the
    batches without one.
    """

    _BATCH = 2000
    _PLAIN = 256 << 20  # bytes of batches written uncompressed before compressing the rest

    def __init__(self, lo: int, hi: int, where: Path | None = None) -> None:
        self.lo, self.hi = lo, hi
        self.count = 0
        if where is not None:
            where.mkdir(parents=True, exist_ok=True)
        self._where = where if where is not None else Path(tempfile.gettempdir())
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix=".xprobe-sentences-", dir=where)
        self._batch: list[bytes] = []  # records marshalled at once: bytes, which the cyclic
        # garbage collector does not track (tuples of lists would make it scan them, often)
        self._plain = 0  # bytes written uncompressed so far

    def __enter__(self) -> SentenceCache:
        return self

    def __exit__(self, exc_type: object, *_: object) -> None:
        try:
            self._file.close()  # (flushes what a failed write left in its buffer: fails again)
        except OSError as e:
            if exc_type is None:
                raise self._named(e) from None
            # else the error on its way out already says what failed; the file is gone

    def _named(self, e: OSError) -> OSError:
        if e.filename is None:  # the file has no name: its folder is said
            e.filename = f"{self._where} (the temporary file of the sentences read)"
        return e

    def put(self, record: tuple) -> None:
        self.count += 1
        self._batch.append(marshal.dumps(record))
        if len(self._batch) >= self._BATCH:
            self._flush()

    def _flush(self) -> None:
        if self._batch:
            data = marshal.dumps(self._batch)
            packed = self._plain + len(data) > self._PLAIN
            if packed:
                data = zlib.compress(data, 1)
            else:
                self._plain += len(data)
            try:  # length-prefixed: marshal.load on a file reads piecemeal
                self._file.write(len(data).to_bytes(8, "little"))
                self._file.write((len(self._batch) << 1 | packed).to_bytes(4, "little"))
                self._file.write(data)
                self._file.flush()  # now, not at a read's seek, whose error would name no file
            except OSError as e:  # a full disk, a file-size limit
                raise self._named(e) from None
            self._batch = []

    def sentences(self, names: Sequence[str]) -> Iterator[tuple[int, int, Sentence]]:
        """``(file index, line, sentence)`` of every sentence kept, in corpus order."""
        for _, fi, start, sent in self.numbered(names):
            yield fi, start, sent

    def numbered(
        self, names: Sequence[str], wanted: bytes | None = None
    ) -> Iterator[tuple[int, int, int, Sentence]]:
        """``(number, file index, line, sentence)`` of the sentences kept, in corpus order,
        numbered from 0; with ``wanted`` (a bitmap: bit ``i % 8`` of byte ``i // 8`` for
        sentence ``i``) only those whose bit is set, the others neither rebuilt nor parsed."""
        self._flush()
        f = self._file
        f.seek(0)
        first = 0
        while size := f.read(8):
            n = int.from_bytes(f.read(4), "little")
            size = int.from_bytes(size, "little")
            packed = n & 1
            n >>= 1
            if wanted is not None and not _any_bit(wanted, first, first + n):
                f.seek(size, os.SEEK_CUR)
                first += n
                continue
            raw = f.read(size)
            batch = marshal.loads(zlib.decompress(raw) if packed else raw)
            for i, data in enumerate(batch, first):
                if wanted is not None and not wanted[i >> 3] >> (i & 7) & 1:
                    continue
                record = marshal.loads(data)
                if len(record) == 3:
                    fi, start, block = record
                    yield i, fi, start, parse_block(block, start, names[fi])
                    continue
                fi, start, comments, text, heads, ranges = record
                multi = tuple(MultiwordToken(*m) for m in ranges) if ranges else ()
                cells = text.split("\t")
                sent = sentence_from_cells(cells, heads, multi, comments, names[fi], start)
                yield i, fi, start, sent
            first += n


def _any_bit(bits: bytes, lo: int, hi: int) -> bool:
    """Whether any of bits ``lo``..``hi - 1`` of a bitmap is set."""
    if lo >= hi:
        return False
    a, b = lo >> 3, (hi - 1) >> 3
    if a == b:
        return bool(bits[a] >> (lo & 7) & ((1 << (hi - lo)) - 1))
    if bits[a] >> (lo & 7) or bits[b] & ((2 << ((hi - 1) & 7)) - 1):
        return True
    return bits.count(0, a + 1, b) != b - a - 1


def count_corpus(
    paths: Sequence[str],
    bigrams: bool,
    on_error: str = "raise",
    read: ReadStats | None = None,
    progress: object = None,
    names: Sequence[str] | None = None,
    cache: SentenceCache | None = None,
) -> tuple[CorpusStats, ReadStats]:
    """The frequency pass: surface-form, (form, UPOS) and optionally bigram counts.

    ``progress`` is a tqdm-like object with ``update(n)`` (or None); ``names`` are the sources
    as error messages should name them (default: the paths); ``cache`` receives the sentences
    of its length range. A sentence with the same tokens as an earlier one is skipped (counted
    in ``stats.duplicates``): the first occurrence is the source sentence. ``stats.attested``
    holds the case-folded token sequences of the sentences kept in ``cache`` (all of them
    without one): a perturbation has its sentence's length, so only these can match it.
    Raises :class:`InputError` on a malformed sentence unless ``on_error == "skip"``.
    """
    read = read if read is not None else ReadStats()
    pairs: Counter[tuple[str, str]] = Counter()  # (form, UPOS); the form counts are summed
    grams: Counter[tuple[str, str]] = Counter()
    lo, hi = (cache.lo, cache.hi) if cache is not None else (1, 0)  # (1, 0): keep none
    seen = DedupTable()  # 64-bit hashes of the token sequences read (first occurrence wins)
    originals = DedupTable()  # case-folded ones that the tasks see (CorpusStats.attested)
    duplicates = 0
    pending = 0
    for fi, (path, name) in enumerate(zip(paths, names or paths, strict=True)):
        before = read.sentences + read.skipped
        for start, block in iter_blocks(path):
            pending += 1
            if pending == 1000 and progress is not None:
                progress.update(pending)  # type: ignore[attr-defined]
                pending = 0
            got = _read_block(block, start, name, on_error, read, lo, hi, fi)
            if got is None:
                continue
            f, u, record = got
            read.sentences += 1
            if not seen.add(_sequence_digest(f)):
                duplicates += 1  # the same tokens as an earlier sentence: one source sentence
                continue
            if record is not None or cache is None:
                originals.add(sequence_hash(f))
            if record is not None:
                cache.put(record)  # type: ignore[union-attr]
            pairs.update(zip(f, u, strict=True))
            if bigrams:
                grams.update(pairwise(f))
        if read.sentences + read.skipped == before:
            read.empty.append(str(name))
    if progress is not None and pending:
        progress.update(pending)  # type: ignore[attr-defined]
    # forms in order of first occurrence, as counting them directly would give (a form's first
    # (form, UPOS) pair is at its first occurrence)
    forms: Counter[str] = Counter()
    upos: dict[str, Counter[str]] = {}
    for (form, tag), c in pairs.items():
        counter = upos.get(form)
        if counter is None:
            counter = upos[form] = Counter()
        counter[tag] = c
        forms[form] += c
    stats = CorpusStats(forms=forms, bigrams=grams, upos=upos)
    stats.sentences = read.sentences - duplicates
    stats.duplicates = duplicates
    stats.dedup_saturated = seen.saturated or originals.saturated
    stats.attested = originals
    stats.tokens = sum(forms.values())
    return stats, read


def _sequence_digest(tokens: Sequence[str]) -> int:
    """A 64-bit hash of a token sequence, as written."""
    data = "\n".join(tokens).encode("utf-8", "surrogateescape")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def _read_block(
    block: list[str],
    start: int,
    name: str,
    on_error: str,
    read: ReadStats,
    lo: int,
    hi: int,
    fi: int,
) -> tuple[list[str], list[str], tuple | None] | None:
    """A block's surface forms, their UPOS and the sentence cache's record for it (None outside
    ``lo``..``hi`` tokens); None for a malformed block skipped (``on_error="skip"``)."""
    got = simple_text_cells(block)
    if got is not None:
        c, text, cells, heads, multi = got
        f, u = _surface(cells, multi)
        if not lo <= len(f) <= hi:
            return f, u, None
        ranges = tuple((m.start, m.end, m.form, m.misc) for m in multi) if multi else ()
        return f, u, (fi, start, tuple(block[:c]), text, heads, ranges)
    res = _fast_surface(block)
    if res is None:
        try:
            sent = parse_block(block, start, name)
        except InputError as e:
            if on_error == "raise":
                raise
            read.note_skip(e)
            return None
        res = (list(sent.tokens), sentence_surface_upos(sent))
    f, u = res
    return f, u, ((fi, start, block) if lo <= len(f) <= hi else None)

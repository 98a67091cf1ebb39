"""Universal Dependencies: frozen sentences, a streaming CoNLL-U reader and writer, tree helpers.

A :class:`Sentence` holds its syntactic words (``1``, ``2``, ... in CoNLL-U), the multiword-token
ranges (``4-5 zum``) and empty nodes (``8.1``) as UD defines them. Probing tasks see the *surface*
tokens (:meth:`Sentence.surface`): a multiword token counts once with its surface form, while its
syntactic words carry the tree.

The reader streams (plain, gzipped, or stdin as ``-``), checks every line, and raises
:class:`~xprobe.errors.InputError` naming the file and line and saying what was expected. With
``on_error="skip"`` a malformed sentence is skipped and counted in :class:`ReadStats` instead.

Example::

    >>> from xprobe.ud import parse_conllu
    >>> s = next(parse_conllu("1\\tHi\\thi\\tINTJ\\t_\\t_\\t0\\troot\\t_\\t_\\n"))
    >>> s.text, tree_depth(s.heads)
    ('Hi', 1)
"""

from __future__ import annotations

import gzip
import io
import operator
import os
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import IO, Literal, NamedTuple

from xprobe.errors import InputError
from xprobe.files import atomic_write

__all__ = [
    "MultiwordToken",
    "ReadStats",
    "Sentence",
    "SurfaceToken",
    "Word",
    "check_tree",
    "children",
    "format_sentence",
    "node_depths",
    "parse_block",
    "parse_conllu",
    "read_conllu",
    "root_index",
    "sentence_from_cells",
    "simple_cells",
    "simple_text_cells",
    "tree_depth",
    "write_conllu",
]

OnError = Literal["raise", "skip"]


class Word(NamedTuple):
    """One syntactic word (a CoNLL-U line with an integer ID). ``head`` is 0 for the root.

    A NamedTuple rather than a dataclass: a corpus holds millions of words, and tuples are built
    several times faster; it is just as immutable.
    """

    id: int
    form: str
    lemma: str
    upos: str
    xpos: str
    feats: str
    head: int
    deprel: str
    deps: str = "_"
    misc: str = "_"

    def feat(self, name: str) -> str | None:
        """The value of morphological feature ``name`` (``Tense``, ``Number``...), or None."""
        feats = self.feats
        if feats == "_":
            return None
        # the first ``|``-separated item that starts with ``name=``, found without splitting
        # (the tasks ask several features of most words: this is on the extractor's hot path)
        prefix = name + "="
        if feats.startswith(prefix):
            i = len(prefix)
        else:
            i = feats.find("|" + prefix)
            if i < 0:
                return None
            i += len(prefix) + 1
        j = feats.find("|", i)
        return feats[i:] if j < 0 else feats[i:j]

    @property
    def base_deprel(self) -> str:
        """The relation without its subtype: ``nsubj:pass`` -> ``nsubj``."""
        return self.deprel.split(":", 1)[0]


@dataclass(frozen=True, slots=True)
class MultiwordToken:
    """A multiword-token range line such as ``4-5 zum``: words ``start`` to ``end`` inclusive."""

    start: int
    end: int
    form: str
    misc: str = "_"


@dataclass(frozen=True, slots=True)
class SurfaceToken:
    """A token as it appears in the text: a plain word, or a multiword token with its words.

    ``first`` and ``last`` are 0-based indices into :attr:`Sentence.words` (equal for a plain word).
    """

    form: str
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class Sentence:
    """A parsed sentence. ``words[i].id == i + 1``; the tree is valid (one root, no cycle)."""

    words: tuple[Word, ...]
    multiword: tuple[MultiwordToken, ...] = ()
    comments: tuple[str, ...] = ()
    empty_nodes: tuple[str, ...] = ()
    source: str = "<memory>"
    line: int = 0
    _surface: tuple[SurfaceToken, ...] = field(default=(), compare=False, repr=False)
    _tokens: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        # Surface forms are computed eagerly (every task reads them); SurfaceToken objects only
        # when first asked for, or at once when there are multiword tokens.
        if self.multiword or self._surface:
            if not self._surface:
                object.__setattr__(self, "_surface", _surface_tokens(self.words, self.multiword))
            object.__setattr__(self, "_tokens", tuple(t.form for t in self._surface))
        else:
            object.__setattr__(self, "_tokens", tuple(map(_FORM, self.words)))

    @property
    def surface(self) -> tuple[SurfaceToken, ...]:
        """Surface tokens in order (multiword tokens once, with their surface form)."""
        if not self._surface and self.words:
            object.__setattr__(self, "_surface", _surface_tokens(self.words, self.multiword))
        return self._surface

    @property
    def tokens(self) -> tuple[str, ...]:
        """Surface token forms."""
        return self._tokens

    @property
    def text(self) -> str:
        """Surface tokens joined by single spaces (what the probing files contain)."""
        return " ".join(self._tokens)

    @property
    def heads(self) -> tuple[int, ...]:
        """Head of each word (1-based ids, 0 for the root), in word order."""
        return tuple(w.head for w in self.words)

    def comment(self, key: str) -> str | None:
        """The value of a ``# key = value`` comment (``sent_id``, ``text``...), or None."""
        prefix = f"# {key} ="
        for c in self.comments:
            if c.startswith(prefix):
                return c[len(prefix) :].strip()
        return None

    def surface_index_of_word(self) -> tuple[int, ...]:
        """For each word (0-based), the index of the surface token that contains it."""
        out = [0] * len(self.words)
        for i, tok in enumerate(self.surface):
            for w in range(tok.first, tok.last + 1):
                out[w] = i
        return tuple(out)


_FORM = operator.itemgetter(1)


def _surface_tokens(
    words: Sequence[Word], multiword: Sequence[MultiwordToken]
) -> tuple[SurfaceToken, ...]:
    if not multiword:
        return tuple(SurfaceToken(w.form, i, i) for i, w in enumerate(words))
    ranges = {m.start: m for m in multiword}
    out: list[SurfaceToken] = []
    i = 0
    n = len(words)
    while i < n:
        m = ranges.get(i + 1)
        if m is not None:
            out.append(SurfaceToken(m.form, m.start - 1, m.end - 1))
            i = m.end
        else:
            out.append(SurfaceToken(words[i].form, i, i))
            i += 1
    return tuple(out)


# --------------------------------------------------------------------------- tree helpers


def check_tree(heads: Sequence[int]) -> str | None:
    """Return None for a well-formed tree, else what is wrong with it.

    A well-formed tree has heads in ``0..n``, exactly one word with head 0, and no cycle.
    Runs in O(n) and never loops, whatever the input.
    """
    n = len(heads)
    if n == 0:
        return "sentence has no words"
    if _is_tree(heads):
        return None
    roots = [i + 1 for i, h in enumerate(heads) if h == 0]
    for i, h in enumerate(heads):
        if h < 0 or h > n:
            return f"word {i + 1} has head {h}, expected 0..{n}"
        if h == i + 1:
            return f"word {i + 1} is its own head"
    if len(roots) != 1:
        if not roots:
            return "no root (no word has head 0)"
        return f"{len(roots)} roots (words {', '.join(map(str, roots))}), expected exactly one"
    state = [0] * (n + 1)  # 0 unvisited, 1 on the current path, 2 reaches the root
    state[0] = 2
    for start in range(1, n + 1):
        path = []
        node = start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = heads[node - 1]
        if state[node] == 1:
            return f"cycle through word {node}"
        for p in path:
            state[p] = 2
    return None


def _is_tree(heads: Sequence[int]) -> bool:
    """Fast yes-check (C-level loops): heads in range, one root, no self-loop, no cycle.

    Pointer jumping: after ``k`` rounds every word points to its ancestor ``2**k`` levels up
    (the root's virtual head 0 points to itself), so all reach 0 iff there is no cycle.
    """
    n = len(heads)
    if min(heads) < 0 or max(heads) > n or heads.count(0) != 1:
        return False
    if any(map(operator.eq, heads, range(1, n + 1))):
        return False
    up = [0, *heads]
    for _ in range(n.bit_length()):
        up = list(map(up.__getitem__, up))
        if not any(up):  # all reach the root already: shallow trees stop early
            return True
    return False


def root_index(heads: Sequence[int]) -> int:
    """0-based index of the root word (assumes a checked tree)."""
    return heads.index(0)


def children(heads: Sequence[int]) -> list[list[int]]:
    """``children(heads)[i]`` lists the 0-based indices of the dependents of word ``i``."""
    out: list[list[int]] = [[] for _ in heads]
    for i, h in enumerate(heads):
        if h:
            out[h - 1].append(i)
    return out


def node_depths(heads: Sequence[int]) -> list[int]:
    """Depth of every word, the root counted as 1 (assumes a checked tree). O(n)."""
    n = len(heads)
    depth = [0] * n
    for start in range(n):
        path = []
        node = start
        while depth[node] == 0:
            h = heads[node]
            if h == 0:
                depth[node] = 1
                break
            path.append(node)
            node = h - 1
        d = depth[node]
        for p in reversed(path):
            d += 1
            depth[p] = d
    return depth


def tree_depth(heads: Sequence[int]) -> int:
    """Nodes on the longest root-to-leaf path, the root counted as 1 (assumes a checked tree)."""
    return max(node_depths(heads))


# --------------------------------------------------------------------------- reading


@dataclass
class ReadStats:
    """What a reader saw: sentences read and malformed ones skipped (with the first reasons)."""

    sentences: int = 0
    skipped: int = 0
    examples: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)  # inputs that held no sentence at all

    def note_skip(self, error: InputError) -> None:
        self.skipped += 1
        if len(self.examples) < 20:
            self.examples.append(str(error))

    def as_dict(self) -> dict[str, object]:
        return {"sentences": self.sentences, "skipped": self.skipped, "examples": self.examples}


def read_conllu(
    path: str | os.PathLike[str],
    on_error: OnError = "raise",
    stats: ReadStats | None = None,
) -> Iterator[Sentence]:
    """Stream the sentences of a CoNLL-U file (``.gz`` is gunzipped; ``-`` reads stdin).

    A UTF-8 byte-order mark at the very start of the file (or stdin) is skipped, as editors on
    Windows write one; one starting any later line (files joined with theirs) is an
    :class:`InputError` naming it."""
    name = str(path)
    if name == "-":
        stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", errors="surrogateescape")
        yield from _parse_lines(stdin, "<stdin>", on_error, stats)
        return
    p = Path(path)
    try:
        if p.suffix == ".gz":
            f: IO[str] = gzip.open(p, "rt", encoding="utf-8-sig", errors="surrogateescape")
        else:
            f = open(p, encoding="utf-8-sig", errors="surrogateescape")
    except OSError as e:
        raise InputError(name, None, f"cannot open: {e.strerror or e}") from None
    with f:
        try:
            yield from _parse_lines(f, name, on_error, stats)
        except (OSError, EOFError) as e:  # corrupt gzip
            raise InputError(name, None, f"cannot read: {e}") from None


def parse_conllu(
    text: str, source: str = "<string>", on_error: OnError = "raise", stats: ReadStats | None = None
) -> Iterator[Sentence]:
    """Stream the sentences of CoNLL-U held in a string."""
    return _parse_lines(io.StringIO(text), source, on_error, stats)


_UNDECODABLE = re.compile("[\udc80-\udcff]")


def _parse_lines(
    lines: Iterable[str], source: str, on_error: OnError, stats: ReadStats | None
) -> Iterator[Sentence]:
    block: list[str] = []
    start = 0
    for lineno, line in enumerate(lines, 1):
        if line.strip():
            if not block:
                start = lineno
            block.append(line.rstrip("\r\n"))
            continue
        if block:
            sent = _finish(block, start, source, on_error, stats)
            if sent is not None:
                yield sent
            block = []
    if block:
        sent = _finish(block, start, source, on_error, stats)
        if sent is not None:
            yield sent


def _finish(
    block: list[str], start: int, source: str, on_error: OnError, stats: ReadStats | None
) -> Sentence | None:
    try:
        sent = _parse_block(block, start, source)
    except InputError as e:
        if on_error == "raise":
            raise
        if stats is not None:
            stats.note_skip(e)
        return None
    if stats is not None:
        stats.sentences += 1
    return sent


def parse_block(block: list[str], start: int, source: str) -> Sentence:
    """Parse one sentence block (its lines without newlines; ``start`` is the first line's number).

    Raises :class:`~xprobe.errors.InputError` for malformed input, exactly as the reader does.
    """
    return _parse_block(block, start, source)


def _undecodable(block: list[str]) -> bool:
    """Whether a block holds a character that stands for an undecodable byte."""
    text = "".join(block)
    return not text.isascii() and _UNDECODABLE.search(text) is not None


_TABS = ("\t",)
_IDS = tuple(str(i) for i in range(1, 1001))


def _parse_simple(block: list[str], start: int, source: str) -> Sentence | None:
    """Fast path for the common block: comments, then plain word lines with IDs 1..n (and
    well-formed multiword ranges), ten non-empty columns and integer heads. None when the block
    is anything else (empty nodes, any irregularity), which :func:`_parse_block` then parses
    line by line; so the result and the errors are the same either way."""
    got = simple_cells(block)
    if got is None:
        return None
    c, cells, heads, multi = got
    return sentence_from_cells(cells, heads, multi, tuple(block[:c]), source, start)


def sentence_from_cells(
    cells: list[str],
    heads: list[int],
    multi: tuple[MultiwordToken, ...],
    comments: tuple[str, ...],
    source: str,
    start: int,
) -> Sentence:
    """The sentence of checked columns (:func:`simple_cells`), built without checking again."""
    n = len(heads)
    columns = zip(
        range(1, n + 1),
        cells[1::10],
        cells[2::10],
        cells[3::10],
        cells[4::10],
        cells[5::10],
        heads,
        cells[7::10],
        cells[8::10],
        cells[9::10],
        strict=True,
    )
    words = tuple(map(tuple.__new__, repeat(Word, n), columns))  # Word(*row), in C
    return Sentence(words, multi, comments, (), source, start)


def simple_cells(
    block: list[str],
) -> tuple[int, list[str], list[int], tuple[MultiwordToken, ...]] | None:
    """The checked columns of a common block (see :func:`_parse_simple`), or None.

    Returns the number of comment lines, the word lines' cells (ten per word, in order), the
    heads as integers and the multiword tokens. Shared by the parser and the extractor's
    frequency pass, so both accept exactly the same blocks this way.
    """
    got = simple_text_cells(block)
    if got is None:
        return None
    c, _, cells, heads, multi = got
    return c, cells, heads, multi


def simple_text_cells(
    block: list[str],
) -> tuple[int, str, list[str], list[int], tuple[MultiwordToken, ...]] | None:
    """:func:`simple_cells` with the word lines' text: ``(comment lines, text, cells, heads,
    multiword tokens)``, where ``cells`` is ``text`` split on tabs (the word lines joined by
    tabs; multiword range lines left out). One string keeps and rebuilds faster than its cells."""
    c = 0
    n_lines = len(block)
    while c < n_lines and block[c][:1] == "#":
        c += 1
    lines = block[c:] if c else block
    n = len(lines)
    if not n or n > len(_IDS) or set(map(str.count, lines, _TABS * n)) != {9}:
        return None
    text = "\t".join(lines)
    cells = text.split("\t")
    if "" in cells:
        return None
    multi: tuple[MultiwordToken, ...] = ()
    if cells[0::10] != list(_IDS[:n]):
        got = _split_ranges(lines, cells)
        if got is None:
            return None
        text, cells, multi = got
        n = len(cells) // 10
    head_cells = cells[6::10]
    joined = "".join(head_cells)
    if not (joined.isascii() and joined.isdigit()):
        return None
    heads = list(map(int, head_cells))
    if not _is_tree(heads) or _undecodable(block):
        return None
    if any(m.end > n for m in multi):
        return None
    return c, text, cells, heads, multi


def _split_ranges(
    lines: list[str], cells: list[str]
) -> tuple[str, list[str], tuple[MultiwordToken, ...]] | None:
    """The word lines' text and cells and the multiword tokens of a block body whose IDs are
    words 1..n and well-formed ranges ``N-M`` (N < M, N the next word); None for anything else
    (empty nodes, bad or misplaced IDs), which the line-by-line parser then decides."""
    ids = cells[0::10]
    keep: list[str] = []
    multi: list[MultiwordToken] = []
    for line, ident in zip(lines, ids, strict=True):
        if ident == _IDS[len(keep)]:  # the caller checked: at most len(_IDS) lines
            keep.append(line)
            continue
        a, dash, b = ident.partition("-")
        if not (dash and _is_number(a) and _is_number(b)):
            return None
        first, last = int(a), int(b)
        if first >= last or first != len(keep) + 1:
            return None
        cols = line.split("\t")
        multi.append(MultiwordToken(first, last, cols[1], cols[9]))
    if not keep:
        return None
    text = "\t".join(keep)
    return text, text.split("\t"), tuple(multi)


def _is_number(text: str) -> bool:
    """ASCII digits only: ``str.isdigit`` alone accepts ``²``, which ``int`` rejects."""
    return text.isascii() and text.isdigit()


def _parse_block(block: list[str], start: int, source: str) -> Sentence:
    fast = _parse_simple(block, start, source)
    if fast is not None:
        return fast
    comments: list[str] = []
    words: list[Word] = []
    multi: list[MultiwordToken] = []
    empty: list[str] = []
    if _UNDECODABLE.search("".join(block)):
        for offset, line in enumerate(block):
            if (m := _UNDECODABLE.search(line)) is not None:
                raise InputError(source, start + offset, f"invalid UTF-8 at character {m.start()}")
    for offset, line in enumerate(block):
        lineno = start + offset
        if line.startswith("\ufeff"):
            why = "a byte-order mark (U+FEFF) starts this line; one is read only at the start of "
            raise InputError(source, lineno, why + "a file (two files joined?): remove it")
        if line.startswith("#"):
            if words or multi:
                raise InputError(source, lineno, "comment line inside a sentence; expected a token")
            comments.append(line)
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise InputError(
                source, lineno, f"expected 10 tab-separated columns, found {len(cols)}"
            )
        ident = cols[0]
        if _is_number(ident):
            expected = len(words) + 1
            if int(ident) != expected:
                raise InputError(
                    source, lineno, f"word ID {ident} out of order, expected {expected}"
                )
            head = cols[6]
            if not _is_number(head):
                raise InputError(source, lineno, f"HEAD {head!r} is not a non-negative integer")
            if "" in cols:
                raise InputError(source, lineno, "empty column; use '_' for unknown values")
            words.append(
                Word(
                    expected,
                    cols[1],
                    cols[2],
                    cols[3],
                    cols[4],
                    cols[5],
                    int(head),
                    cols[7],
                    cols[8],
                    cols[9],
                )
            )
        elif "-" in ident:
            a, _, b = ident.partition("-")
            if not (_is_number(a) and _is_number(b)) or int(a) >= int(b):
                raise InputError(
                    source, lineno, f"bad multiword range {ident!r}, expected N-M with N < M"
                )
            if int(a) != len(words) + 1:
                raise InputError(
                    source, lineno, f"range {ident} must start at the next word {len(words) + 1}"
                )
            multi.append(MultiwordToken(int(a), int(b), cols[1], cols[9]))
        elif "." in ident:
            a, _, b = ident.partition(".")
            if not (_is_number(a) and _is_number(b)) or int(a) != len(words):
                raise InputError(
                    source, lineno, f"bad empty node ID {ident!r}, expected {len(words)}.K"
                )
            empty.append(line)
        else:
            raise InputError(
                source, lineno, f"bad ID {ident!r}, expected N, N-M (multiword) or N.K (empty)"
            )
    if not words:
        raise InputError(source, start, "sentence without words")
    n = len(words)
    for m in multi:
        if m.end > n:
            raise InputError(source, start, f"multiword range {m.start}-{m.end} beyond word {n}")
    problem = check_tree([w.head for w in words])
    if problem is not None:
        raise InputError(source, start, f"malformed tree: {problem}")
    return Sentence(tuple(words), tuple(multi), tuple(comments), tuple(empty), source, start)


# --------------------------------------------------------------------------- writing


def format_sentence(sentence: Sentence) -> str:
    """CoNLL-U text of one sentence, ending with the blank line."""
    lines = list(sentence.comments)
    ranges = {m.start: m for m in sentence.multiword}
    empties: dict[int, list[str]] = {}
    for e in sentence.empty_nodes:
        empties.setdefault(int(e.split("\t", 1)[0].split(".")[0]), []).append(e)
    lines.extend(empties.get(0, []))
    for w in sentence.words:
        m = ranges.get(w.id)
        if m is not None:
            lines.append(f"{m.start}-{m.end}\t{m.form}\t_\t_\t_\t_\t_\t_\t_\t{m.misc}")
        lines.append(
            f"{w.id}\t{w.form}\t{w.lemma}\t{w.upos}\t{w.xpos}\t{w.feats}\t{w.head}\t{w.deprel}"
            f"\t{w.deps}\t{w.misc}"
        )
        lines.extend(empties.get(w.id, []))
    return "\n".join(lines) + "\n\n"


def write_conllu(sentences: Iterable[Sentence], path: str | os.PathLike[str]) -> int:
    """Write sentences atomically (``.gz`` gzipped, reproducibly); returns how many."""
    count = 0
    with atomic_write(path) as f:
        for s in sentences:
            f.write(format_sentence(s))
            count += 1
    return count

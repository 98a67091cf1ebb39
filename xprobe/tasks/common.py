"""Helpers shared by the task modules: surface tokens, the root's dependents, frequency windows.

Everything here works on a checked :class:`~xprobe.ud.Sentence` and never raises on a valid tree.
Relations are compared on their base name (``nsubj:pass`` counts as ``nsubj``).

Example::

    >>> from xprobe.ud import parse_conllu
    >>> s = next(parse_conllu("1\\tHi\\thi\\tINTJ\\t_\\t_\\t0\\troot\\t_\\t_\\n"))
    >>> root_id(s), surface_form(s, 0)
    (1, 'Hi')
"""

from __future__ import annotations

import operator
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

from xprobe.errors import XProbeError
from xprobe.tasks.base import Candidate, Context, Variant
from xprobe.ud import Sentence, Word

__all__ = [
    "LabelSet",
    "base_rel",
    "check_window",
    "first_word",
    "has_quote",
    "in_window",
    "most_frequent_tag",
    "number_candidate",
    "number_tags",
    "punct_mask",
    "root_id",
    "spaced",
    "surface_form",
    "writable",
]


_UPOS = operator.itemgetter(3)  # Word.upos


@dataclass(frozen=True)
class LabelSet:
    """What ``prepare`` returns for a task whose label set depends on its parameters."""

    labels: tuple[str, ...]


@lru_cache(maxsize=4096)  # few distinct relations; the tasks ask for every word
def base_rel(deprel: str) -> str:
    """The relation without its subtype: ``nsubj:pass`` -> ``nsubj``."""
    i = deprel.find(":")
    return deprel if i < 0 else deprel[:i]


def root_id(sentence: Sentence) -> int:
    """1-based id of the root word (the checked tree has exactly one)."""
    for w in sentence.words:
        if w.head == 0:
            return w.id
    return 0  # pragma: no cover - a checked tree always has a root


def surface_form(sentence: Sentence, word_index: int) -> str:
    """The surface form of the token holding word ``word_index`` (0-based): the word's own form,
    or the multiword token's form (``zum`` for ``dem``)."""
    if not sentence.multiword:
        return sentence.words[word_index].form
    for tok in sentence.surface:
        if tok.first <= word_index <= tok.last:
            return tok.form
    return sentence.words[word_index].form  # pragma: no cover


def spaced(tokens: Sequence[str]) -> bool:
    """Whether a word of ``tokens`` is written with spaces inside (UD Vietnamese "học sinh"):
    the line then shows it as several whitespace-separated tokens (docs/tasks.md)."""
    return any(" " in t for t in tokens)


def writable(text: str) -> bool:
    """Whether a sentence's text (its surface tokens joined by single spaces) is a probing line:
    nothing but single ASCII spaces between its whitespace-separated tokens. A word whose form
    holds single spaces ("học sinh") passes, written with its syllables apart (docs/tasks.md,
    "Words written with spaces"); a form with another space character (no-break space), or
    spaces at its edges or doubled, would give a line that readers split differently."""
    return text == " ".join(text.split())


def punct_mask(sentence: Sentence, punct_upos: Collection[str]) -> list[bool]:
    """For each surface token, whether it is punctuation (a multiword token only if all its
    words are)."""
    flags = list(map(punct_upos.__contains__, map(_UPOS, sentence.words)))  # in C
    if not sentence.multiword:
        return flags
    return [
        flags[t.first] if t.first == t.last else all(flags[t.first : t.last + 1])
        for t in sentence.surface
    ]


def has_quote(text: str, quotes: Collection[str]) -> bool:
    """Whether the sentence text contains any of the profile's double-quote strings (BShift and
    CoordInv skip such sentences: a quoted stretch is a sentence within the sentence)."""
    return any(map(text.__contains__, quotes))


def first_word(punct: list[bool]) -> int | None:
    """Index of the first surface token that is not punctuation (``punct_mask``), or None."""
    for i, p in enumerate(punct):
        if not p:
            return i
    return None


def in_window(count: int, low: int, high: int) -> bool:
    """Whether a corpus count lies in the closed window [low, high]."""
    return low <= count <= high


def check_window(task: str, low: int, high: int) -> None:
    """Reject a frequency window that can hold nothing."""
    if low < 1 or high < low:
        raise XProbeError(f"{task}: frequency window [{low}, {high}] is empty or below 1")


def number_candidate(sentence: Sentence, ctx: Context, rel: str) -> Candidate | None:
    """SubjNum / ObjNum: the number of the root's single ``rel`` dependent.

    The root must have exactly one dependent whose base relation is ``rel``; it must be a noun
    (``profile.noun_upos``) whose number feature is singular (``NN``) or plural (``NNS``), and the
    surface form of its token (as written, case kept) must have a corpus count within
    ``[params.min_freq, params.max_freq]``. That form is the variant's lexical key.
    """
    p = ctx.profile
    head = root_id(sentence)
    found: Word | None = None
    for w in sentence.words:
        if w.head == head and base_rel(w.deprel) == rel:
            if found is not None:
                return None
            found = w
    if found is None or found.upos not in p.noun_upos:
        return None
    number = found.feat(p.number_feature)
    if number in p.number_sing:
        label = "NN"
    elif number in p.number_plur:
        label = "NNS"
    else:
        return None
    form = surface_form(sentence, found.id - 1)
    params = ctx.params
    if not in_window(ctx.stats.forms.get(form, 0), params.min_freq, params.max_freq):
        return None
    return Candidate((Variant(label, sentence.tokens, key=form),))


def number_tags(sentence: Sentence, ctx: Context) -> bool:
    """SubjNum / ObjNum's tag filter: some word is a noun (``profile.noun_upos``) whose number
    feature is singular or plural. The labelled dependent is such a word, whatever the tree."""
    p = ctx.profile
    numbers = (*p.number_sing, *p.number_plur)
    return any(
        w.upos in p.noun_upos and w.feat(p.number_feature) in numbers for w in sentence.words
    )


def most_frequent_tag(counts: dict[str, int]) -> str:
    """The tag counted most often (ties: the alphabetically first), as SOMO and WC read a
    form's UPOS."""
    return min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]

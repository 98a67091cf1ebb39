"""SOMO (semantic odd man out): whether one noun or verb was replaced (``C``) or not (``O``).

Rule (docs TASKS.md), on surface forms as written (case kept) and the frequency pass's counts:

* a *target* is a surface token that is one syntactic word with UPOS in ``profile.noun_upos`` or
  ``profile.verb_upos``, is neither the first nor the last token, and has a corpus count in
  ``[min_freq, max_freq]``;
* a *replacement* ``r`` for target ``w`` between neighbours ``L`` and ``R``: a form whose most
  frequent UPOS (ties: the alphabetically first tag) equals the target token's UPOS, with a count
  in the same window, different from ``w`` even ignoring case, such that both bigrams ``(L, r)``
  and ``(r, R)`` are attested and ``|ln f(L, r) - ln f(L, w)| <= log_tolerance`` and
  ``|ln f(r, R) - ln f(w, R)| <= log_tolerance`` (natural logarithm; the original bigrams must be
  attested too), that can be written one space between tokens
  (:func:`~xprobe.tasks.common.writable`: no no-break space), and written with as many spaces as
  ``w`` (a word whose form holds spaces, UD Vietnamese "học sinh", is written with its syllables
  apart: a replacement of another number of syllables would change the line's length, a cue to
  the label; docs/tasks.md).

Algorithm: ``prepare`` indexes, for every left word ``L`` and tag, the replacement-eligible
forms of that tag that follow ``L``, sorted by bigram count; and likewise, for every right word
``R`` and tag, those that precede ``R``. ``candidate`` shuffles the sentence's targets with
``rng`` and takes the first that has a replacement. For a target, binary searches give the
*followers* of ``L`` with the target's tag whose left-bigram count is within the tolerance and
the *preceders* of ``R`` with that tag whose right-bigram count is; the valid replacements are
the forms in both lists other than the target's word. The shorter list is examined in a random
order drawn lazily with ``rng`` (a partial Fisher-Yates shuffle of its positions, one ``rng``
draw per form examined; on a tie, the followers), and the first form that passes the remaining
checks (the other bigram, not the target's word) is the replacement. The first valid element of
a uniformly random order is uniform among the valid ones, so the position is uniform among
positions that have a replacement, the replacement uniform among its valid ones, and both are
deterministic given ``rng``. To bound the cost on large corpora (a frequent word such as "the"
may have thousands of followers in range), at most ``max_scan`` forms are examined per target:
the first ``max_scan`` of a random order are a uniform random sample of the list, so a
replacement found is still uniform among the valid ones, but a target with very few valid
replacements among many candidates in both lists may be missed. ``max_scan = 0`` examines all.
A replacement that gives a sentence of the corpus (case-folded tokens compared,
``CorpusStats.is_attested``) is not valid: the changed sentence would be an original labelled
``C``. The candidate holds the original (``O``) and the changed sentence (``C``), whose lexical
key is the replacement word.

Example: "The old farmer sold his cattle in spring ." may become "... sold his horses in ...".
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from xprobe.errors import XProbeError
from xprobe.tasks.base import Candidate, Context, CorpusStats, TaskSpec, Variant
from xprobe.tasks.common import check_window, most_frequent_tag, writable
from xprobe.ud import Sentence


@dataclass(frozen=True)
class Params:
    min_freq: int = 40  # corpus count of target and replacement, inclusive
    max_freq: int = 400
    # the window per million corpus tokens instead (> 0: replaces min_freq / max_freq; for
    # corpora far from Wikipedia size, see docs/tasks.md)
    min_per_million: float = 0.0
    max_per_million: float = 0.0
    # the corpus size (surface tokens) min_freq..max_freq were written for: below it, windows
    # "auto" scales them to per-million bounds (xprobe/extract/windows.py)
    windows_tokens: int = 20_000_000
    log_tolerance: float = 1.0  # max |ln f(new bigram) - ln f(old bigram)|, each side
    # followers examined per target at most (a random sample when more are in range); 0: all
    max_scan: int = 200


Sorted = tuple[tuple[int, ...], tuple[str, ...]]  # bigram counts (ascending) and their forms


@dataclass(frozen=True)
class SomoIndex:
    """Replacement candidates: per (left word, UPOS), the eligible forms that follow the left
    word in the corpus, sorted by bigram count (ties by form); per (right word, UPOS), those
    that precede the right word, likewise."""

    followers: dict[tuple[str, str], Sorted]
    tags: frozenset[str]  # the noun and verb tags
    in_window: frozenset[str]  # every form whose count is in [min_freq, max_freq]
    # per right word R, the count of (r, R) for every indexed form r that precedes R: the
    # right-bigram checks look up small dicts instead of the whole bigram table
    preceding: dict[str, dict[str, int]] = field(default_factory=dict)
    preceders: dict[tuple[str, str], Sorted] = field(default_factory=dict)


def build_index(stats: CorpusStats, tags: frozenset[str], low: int, high: int) -> SomoIndex:
    """Index the forms in [low, high] whose most frequent UPOS is in ``tags``."""
    pos: dict[str, str] = {}
    in_window = frozenset(
        form
        for form, count in stats.forms.items()
        if low <= count <= high and writable(form)  # never "cá\u00a0voi" (a no-break space)
    )
    for form in in_window:
        counts = stats.upos.get(form)
        if counts:
            tag = most_frequent_tag(counts)
            if tag in tags:
                pos[form] = tag
    after: defaultdict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
    before: defaultdict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
    preceding: defaultdict[str, dict[str, int]] = defaultdict(dict)
    for (left, right), count in stats.bigrams.items():
        tag = pos.get(right)
        if tag is not None:
            after[left, tag].append((count, right))
        tag = pos.get(left)
        if tag is not None:
            before[right, tag].append((count, left))
            preceding[right][left] = count
    return SomoIndex(_sorted(after), tags, in_window, dict(preceding), _sorted(before))


def _sorted(lists: dict[tuple[str, str], list[tuple[int, str]]]) -> dict[tuple[str, str], Sorted]:
    out = {}
    for key, items in lists.items():
        items.sort()
        out[key] = (tuple(c for c, _ in items), tuple(f for _, f in items))
    return out


def prepare(ctx: Context) -> SomoIndex:
    p = ctx.params
    check_window("SOMO", p.min_freq, p.max_freq)
    if p.log_tolerance < 0 or p.max_scan < 0:
        raise XProbeError(
            f"SOMO: log_tolerance and max_scan must be >= 0, got {p.log_tolerance}, {p.max_scan}"
        )
    tags = frozenset(ctx.profile.noun_upos) | frozenset(ctx.profile.verb_upos)
    return build_index(ctx.stats, tags, p.min_freq, p.max_freq)


@lru_cache(maxsize=1 << 16)
def count_bounds(count: int, tol: float) -> tuple[int, int]:
    """The smallest and largest counts c with |ln c - ln count| <= tol (count >= 1)."""
    ref = math.log(count)
    lo = max(1, math.floor(count * math.exp(-tol)))
    while ref - math.log(lo) > tol:
        lo += 1
    hi = math.ceil(count * math.exp(tol))
    while math.log(hi) - ref > tol:
        hi -= 1
    return lo, hi


class _Search(NamedTuple):
    """Where the replacements for one target are looked for: the list ``forms[a:b]`` (followers
    of the left word, or preceders of the right word, within the tolerance on that side) and
    the checks that remain (``other(r)``, the count of the bigram on the other side, in
    ``[lo, hi]``; ``r`` not the target word ignoring case)."""

    forms: tuple[str, ...]
    a: int
    b: int
    other: Callable[[str], int | None]  # None when the bigram is unattested
    lo: int
    hi: int
    lower: str
    spaces: int  # spaces inside the target's form: a replacement must have as many

    def valid(self, r: str) -> bool:
        """Whether form ``r`` of the list passes the remaining checks."""
        c = self.other(r)
        return (
            c is not None
            and self.lo <= c <= self.hi
            and r.lower() != self.lower
            and r.count(" ") == self.spaces
        )


def _search(tokens: tuple[str, ...], i: int, upos: str, ctx: Context) -> _Search | None:
    """The search for replacements of the token at ``i`` (UPOS ``upos``) in the shorter of its
    two lists, or None when there can be none (an empty list, an unattested original bigram)."""
    index: SomoIndex = ctx.data
    bigrams = ctx.stats.bigrams
    left, word, right = tokens[i - 1], tokens[i], tokens[i + 1]
    after = index.followers.get((left, upos))
    before = index.preceders.get((right, upos))
    if after is None or before is None:
        return None
    old_left = bigrams.get((left, word), 0)
    old_right = bigrams.get((word, right), 0)
    if not old_left or not old_right:
        return None
    tol = ctx.params.log_tolerance
    lo, hi = count_bounds(old_left, tol)
    rlo, rhi = count_bounds(old_right, tol)
    a, b = bisect_left(after[0], lo), bisect_right(after[0], hi)
    ra, rb = bisect_left(before[0], rlo), bisect_right(before[0], rhi)
    if a >= b or ra >= rb:
        return None
    # lo, rlo >= 1, so an unattested bigram (None) never passes
    if b - a <= rb - ra:
        return _Search(
            after[1], a, b, index.preceding[right].get, rlo, rhi, word.lower(), word.count(" ")
        )

    def left_count(r: str) -> int | None:
        return bigrams.get((left, r))

    return _Search(before[1], ra, rb, left_count, lo, hi, word.lower(), word.count(" "))


def replacements(tokens: tuple[str, ...], i: int, upos: str, ctx: Context) -> list[str]:
    """All valid replacements for the token at ``i`` (with UPOS ``upos``), in the followers'
    order (count of the left bigram, then form), whatever ``max_scan``."""
    s = _search(tokens, i, upos, ctx)
    if s is None:
        return []
    found = [r for r in s.forms[s.a : s.b] if s.valid(r)]
    left = tokens[i - 1]
    return sorted(found, key=lambda r: (ctx.stats.bigrams[left, r], r))


def draw_replacement(
    tokens: tuple[str, ...],
    i: int,
    upos: str,
    ctx: Context,
    rng: random.Random,
    reject: Callable[[str], bool] | None = None,
) -> str | None:
    """A valid replacement for the token at ``i``, uniform among the valid ones, or None.

    The shorter list is examined in a random order, drawn lazily: step ``k`` swaps a uniformly
    drawn one of the positions ``k..n-1`` into position ``k`` (Fisher-Yates, with the swapped
    positions kept in a dict rather than a list). The first valid form is returned; at most
    ``max_scan`` (0: all) are examined. ``reject(r)`` true makes an otherwise valid form invalid
    (the changed sentence is one of the corpus).
    """
    s = _search(tokens, i, upos, ctx)
    if s is None:
        return None
    n = s.b - s.a
    limit = ctx.params.max_scan
    steps = n if limit == 0 or limit > n else limit
    forms, a, other, lo, hi, lower, spaces = s.forms, s.a, s.other, s.lo, s.hi, s.lower, s.spaces
    moved: dict[int, int] = {}  # position -> list offset now there, where it differs
    for k in range(steps):
        j = k + rng._randbelow(n - k)  # = rng.randrange(n - k), without its argument checks
        offset = moved.get(j, j)
        moved[j] = moved.get(k, k)  # position k is never read again
        r = forms[a + offset]
        c = other(r)  # the checks of _Search.valid, inlined: this loop is hot
        if (
            c is not None
            and lo <= c <= hi
            and r.lower() != lower
            and r.count(" ") == spaces
            and (reject is None or not reject(r))
        ):
            return r
    return None


def candidate(sentence: Sentence, ctx: Context, rng: random.Random) -> Candidate | None:
    index: SomoIndex = ctx.data
    in_window, tags = index.in_window, index.tags
    words = sentence.words
    if sentence.multiword:
        surface = sentence.surface
        word_of: list[int] | range = [t.first for t in surface]
        targets = []
        for i in range(1, len(surface) - 1):
            t = surface[i]
            if t.form in in_window and t.first == t.last and words[t.first].upos in tags:
                targets.append(i)
    else:  # surface token i is word i: skip building the surface tokens
        word_of = range(len(words))
        targets = [
            i
            for i in range(1, len(words) - 1)
            if words[i].form in in_window and words[i].upos in tags
        ]
    if not targets:
        return None
    tokens = sentence.tokens
    rng.shuffle(targets)
    stats = ctx.stats
    for i in targets:
        reject = None
        if stats.attested is not None:

            def reject(r: str, i: int = i) -> bool:  # the changed sentence is an original
                return stats.is_attested((*tokens[:i], r, *tokens[i + 1 :]))

        r = draw_replacement(tokens, i, words[word_of[i]].upos, ctx, rng, reject)
        if r is not None:
            changed = (*tokens[:i], r, *tokens[i + 1 :])
            return Candidate((Variant("O", tokens), Variant("C", changed, key=r)))
    return None


TASK = TaskSpec(
    name="SOMO",
    file="odd_man_out",
    labels=("O", "C"),
    params=Params,
    candidate=candidate,
    prepare=prepare,
    uses_bigrams=True,
    description="whether one noun or verb was replaced by a word of similar bigram frequency",
    needs_tree=False,  # tokens and tags only: a tagged sentence serves
)

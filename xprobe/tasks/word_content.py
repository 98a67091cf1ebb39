"""WC: which one of a thousand mid-frequency words the sentence contains.

Targets (computed once by ``prepare`` from the frequency pass), SentEval's rule: surface forms
are lower-cased and their counts summed per lower-cased type; **every** type (punctuation,
numbers and short words included) is ranked by count, highest first, ties broken by the word
itself (so the order is deterministic); from rank ``first_rank`` on (1-based, default 2001), the
targets are the first ``count`` types (default 1,000) that *qualify*: alphabetic
(``str.isalpha``) and at least ``min_length`` characters long. Ranks are counted over the whole
vocabulary, not over the qualifying types. The label set is the targets in rank order
(``ctx.data.labels``). ``exclude_upos`` (default none) also disqualifies a type whose tokens the
corpus tags with one of those UPOS more often than with any other (ties: the alphabetically
first tag; counts summed over case variants): UD Vietnamese-VTB writes brackets as the letters
``LBKT`` / ``RBKT`` (PUNCT), alphabetic and frequent, but no word.

A sentence qualifies when exactly one of its surface tokens, lower-cased, is a target (so a
target that occurs twice, or two targets, rule it out); the label is that target word. A word
whose form holds spaces (UD Vietnamese "học sinh") is never a target (not alphabetic) and is
written with its syllables apart, so the target must also be exactly one of the line's
whitespace-separated tokens: "Học sinh sinh ở Huế ." shows target "sinh" twice to a reader and
is not used (docs/tasks.md, "Words written with spaces").

Example: with targets {"garden", ...}, "The Garden was quiet ." -> label ``garden``.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from xprobe.errors import XProbeError
from xprobe.tasks.base import Candidate, Context, TaskSpec, Variant
from xprobe.tasks.common import most_frequent_tag, spaced
from xprobe.ud import Sentence


@dataclass(frozen=True)
class Params:
    first_rank: int = 2001  # 1-based rank (over the whole vocabulary) where the targets start
    count: int = 1000  # number of targets (classes)
    min_length: int = 4  # shortest qualifying type, in characters
    exclude_upos: tuple[str, ...] = ()  # a type tagged mostly with one of these never qualifies


# the universal part-of-speech tags of UD (https://universaldependencies.org/u/pos/)
UPOS_TAGS = frozenset((
    "ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
    "PUNCT", "SCONJ", "SYM", "VERB", "X",
))  # fmt: skip


@dataclass(frozen=True)
class Targets:
    """The target words in rank order (``labels``) and as a set for lookups."""

    labels: tuple[str, ...]
    words: frozenset[str]


def select_targets(
    forms: Counter[str],
    first_rank: int,
    count: int,
    min_length: int,
    excluded: frozenset[str] = frozenset(),
) -> list[str]:
    """The target words: from rank ``first_rank`` of all lower-cased types on, the first
    ``count`` that are alphabetic, at least ``min_length`` characters long and not in
    ``excluded`` (lower-cased types)."""
    totals: Counter[str] = Counter()
    for form, c in forms.items():
        totals[form.lower()] += c
    ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    out: list[str] = []
    for w, _ in ranked[first_rank - 1 :]:
        if len(w) >= min_length and w.isalpha() and w not in excluded:
            out.append(w)
            if len(out) == count:
                break
    return out


def prepare(ctx: Context) -> Targets:
    p = ctx.params
    if p.first_rank < 1 or p.count < 1 or p.min_length < 1:
        raise XProbeError(
            f"WC: first_rank, count and min_length must be >= 1, got {p.first_rank}, "
            f"{p.count}, {p.min_length}"
        )
    unknown = sorted(set(p.exclude_upos) - UPOS_TAGS)
    if unknown:
        raise XProbeError(f"WC: exclude_upos holds {', '.join(unknown)}, not UD UPOS tags")
    excluded = tagged_mostly(ctx.stats.upos, frozenset(p.exclude_upos))
    words = select_targets(ctx.stats.forms, p.first_rank, p.count, p.min_length, excluded)
    return Targets(tuple(words), frozenset(words))


def tagged_mostly(upos: dict[str, Counter[str]], tags: frozenset[str]) -> frozenset[str]:
    """The lower-cased types whose most frequent UPOS (counts summed over case variants; ties:
    the alphabetically first tag) is one of ``tags``."""
    if not tags:
        return frozenset()
    totals: dict[str, Counter[str]] = {}
    for form, counts in upos.items():
        totals.setdefault(form.lower(), Counter()).update(counts)
    return frozenset(w for w, c in totals.items() if most_frequent_tag(c) in tags)


def candidate(sentence: Sentence, ctx: Context, rng: random.Random) -> Candidate | None:
    targets = ctx.data.words
    tokens = sentence.tokens
    lowered = list(map(str.lower, tokens))
    if targets.isdisjoint(lowered):  # most sentences: no Python-level loop
        return None
    found = None
    for w in lowered:
        if w in targets:
            if found is not None:
                return None
            found = w
    if found is None:
        return None
    if spaced(tokens) and " ".join(lowered).split().count(found) != 1:
        return None  # the target is also a syllable of a word written with spaces
    return Candidate((Variant(found, tokens),))


TASK = TaskSpec(
    name="WC",
    file="word_content",
    labels=None,
    params=Params,
    candidate=candidate,
    prepare=prepare,
    description="which target word (of 1,000 mid-frequency words) the sentence contains",
    needs_tree=False,  # tokens and tags only: a tagged sentence serves
)

"""BShift: whether two adjacent tokens have been swapped (``I``) or not (``O``).

Rule (docs TASKS.md): sentences containing any of the profile's double-quote strings
(``profile.quotes``, searched in the sentence text) are not used. A *swappable pair* is two
adjacent surface tokens ``i, i+1`` after the first word (``i > f``, where ``f`` is the first token
that is not punctuation: the first word never moves, also after sentence-initial punctuation as in
"( Bill ...", so no capitalised word is left inside the sentence), neither of them punctuation
(UPOS in ``profile.punct_upos``; a multiword token is punctuation only if all its words are), and
different forms (so that the swap changes the text). One pair is drawn with ``rng`` among the
swappable pairs; a swap that gives a sentence of the corpus (case-folded tokens compared) is
not a perturbation, and another pair is drawn. The candidate holds the original (``O``) and the
sentence with that pair swapped (``I``). No lexical key.

Example: "The cat slept on the mat ." -> ``I`` could be "The cat on slept the mat .".
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from xprobe.tasks.base import Candidate, Context, TaskSpec, Variant
from xprobe.tasks.common import first_word, has_quote, punct_mask
from xprobe.ud import Sentence


@dataclass(frozen=True)
class Params:
    pass  # no parameters: the rule is fixed; quotes and punctuation come from the profile


def swappable_pairs(sentence: Sentence, tokens: tuple[str, ...], ctx: Context) -> list[int]:
    """Indices ``i`` of the surface-token pairs ``(i, i+1)`` that may be swapped."""
    punct = punct_mask(sentence, ctx.profile.punct_upos)
    f = first_word(punct)
    if f is None:
        return []
    return [
        i
        for i in range(f + 1, len(tokens) - 1)
        if not punct[i] and not punct[i + 1] and tokens[i] != tokens[i + 1]
    ]


def candidate(sentence: Sentence, ctx: Context, rng: random.Random) -> Candidate | None:
    tokens = sentence.tokens
    if has_quote(" ".join(tokens), ctx.profile.quotes):
        return None
    pairs = swappable_pairs(sentence, tokens, ctx)
    if not pairs:
        return None
    while pairs:
        j = rng._randbelow(len(pairs))  # = rng.randrange(len(pairs)), without its checks
        i = pairs[j]
        swapped = list(tokens)
        swapped[i], swapped[i + 1] = tokens[i + 1], tokens[i]
        if not ctx.stats.is_attested(swapped):
            return Candidate((Variant("O", tokens), Variant("I", tuple(swapped))))
        pairs[j] = pairs[-1]  # a sentence of the corpus: draw among the other pairs
        pairs.pop()
    return None


TASK = TaskSpec(
    name="BShift",
    file="bigram_shift",
    labels=("O", "I"),
    params=Params,
    candidate=candidate,
    description="whether two adjacent tokens were swapped",
    needs_tree=False,  # tokens and tags only: a tagged sentence serves
)

"""BShift: whether two adjacent tokens have been swapped (``I``) or not (``O``).

Rule (docs TASKS.md): sentences containing any of the profile's double-quote strings
(``profile.quotes``, searched in the sentence text) are not used. A *swappable pair* is two
adjacent surface tokens ``i, i+1`` with ``i >= 1`` (neither is the first token), neither of them
punctuation (UPOS in ``profile.punct_upos``; a multiword token is punctuation only if all its
words are), and different forms (so that the swap changes the text). One pair is drawn with
``rng`` among the swappable pairs; the candidate holds the original (``O``) and the sentence with
that pair swapped (``I``). No lexical key.

Example: "The cat slept on the mat ." -> ``I`` could be "The cat on slept the mat .".
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from xprobe.tasks.base import Candidate, Context, TaskSpec, Variant
from xprobe.tasks.common import punct_mask
from xprobe.ud import Sentence


@dataclass(frozen=True)
class Params:
    pass  # no parameters: the rule is fixed; quotes and punctuation come from the profile


def swappable_pairs(sentence: Sentence, tokens: tuple[str, ...], ctx: Context) -> list[int]:
    """Indices ``i`` of the surface-token pairs ``(i, i+1)`` that may be swapped."""
    punct = punct_mask(sentence, ctx.profile.punct_upos)
    return [
        i
        for i in range(1, len(tokens) - 1)
        if not punct[i] and not punct[i + 1] and tokens[i] != tokens[i + 1]
    ]


def candidate(sentence: Sentence, ctx: Context, rng: random.Random) -> Candidate | None:
    tokens = sentence.tokens
    text = " ".join(tokens)
    for q in ctx.profile.quotes:
        if q in text:
            return None
    pairs = swappable_pairs(sentence, tokens, ctx)
    if not pairs:
        return None
    i = rng.choice(pairs)
    swapped = list(tokens)
    swapped[i], swapped[i + 1] = tokens[i + 1], tokens[i]
    return Candidate((Variant("O", tokens), Variant("I", tuple(swapped))))


TASK = TaskSpec(
    name="BShift",
    file="bigram_shift",
    labels=("O", "I"),
    params=Params,
    candidate=candidate,
    description="whether two adjacent tokens were swapped",
)

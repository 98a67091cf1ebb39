"""SentLen: how many surface tokens the sentence has, as one of six length bins.

Bins follow the SentEval README: 5-8, 9-12, 13-16, 17-20, 21-25, 26-28 tokens, labelled 0..5.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from xprobe.tasks.base import Candidate, Context, TaskSpec, Variant
from xprobe.ud import Sentence


@dataclass(frozen=True)
class Params:
    # lower bound of each bin; the last bin ends at the common maximum length (28)
    bins: tuple[int, ...] = (5, 9, 13, 17, 21, 26)


def length_bin(n_tokens: int, bins: tuple[int, ...]) -> int | None:
    """Index of the bin that ``n_tokens`` falls in, or None below the first bin."""
    label = None
    for i, low in enumerate(bins):
        if n_tokens >= low:
            label = i
    return label


def candidate(sentence: Sentence, ctx: Context, rng: random.Random) -> Candidate | None:
    tokens = sentence.tokens
    label = length_bin(len(tokens), ctx.params.bins)
    if label is None:
        return None
    return Candidate((Variant(str(label), tokens),))


TASK = TaskSpec(
    name="SentLen",
    file="sentence_length",
    labels=tuple(str(i) for i in range(6)),
    params=Params,
    candidate=candidate,
    description="number of surface tokens, in six bins",
)

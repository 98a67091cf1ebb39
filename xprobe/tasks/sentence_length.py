"""SentLen: how many surface tokens the sentence has, as one of six length bins.

Bins follow the SentEval README: 5-8, 9-12, 13-16, 17-20, 21-25, 26-28 tokens, labelled 0..5.
The bins are a parameter (``bins``: the lower bound of each); the label set follows them, so it
is computed by ``prepare`` (``labels_of(ctx)``) rather than fixed.

Example: "The cat slept on the mat ." has 7 tokens -> label ``0``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from xprobe.errors import XProbeError
from xprobe.tasks.base import Candidate, Context, TaskSpec, Variant
from xprobe.tasks.common import LabelSet
from xprobe.ud import Sentence

DEFAULT_BINS = (5, 9, 13, 17, 21, 26)


@dataclass(frozen=True)
class Params:
    # lower bound of each bin; the last bin ends at the common maximum length (28)
    bins: tuple[int, ...] = DEFAULT_BINS


def length_bin(n_tokens: int, bins: tuple[int, ...]) -> int | None:
    """Index of the bin that ``n_tokens`` falls in, or None below the first bin."""
    label = None
    for i, low in enumerate(bins):
        if n_tokens >= low:
            label = i
    return label


def check_bins(task: str, bins: tuple[int, ...]) -> None:
    """Reject an empty or unsorted list of bin bounds."""
    if not bins or any(bins[i] >= bins[i + 1] for i in range(len(bins) - 1)):
        raise XProbeError(f"{task}: length bins {bins!r} must be increasing lower bounds")


def prepare(ctx: Context) -> LabelSet:
    check_bins("SentLen", ctx.params.bins)
    return LabelSet(tuple(str(i) for i in range(len(ctx.params.bins))))


def candidate(sentence: Sentence, ctx: Context, rng: random.Random) -> Candidate | None:
    tokens = sentence.tokens
    label = length_bin(len(tokens), ctx.params.bins)
    if label is None:
        return None
    return Candidate((Variant(str(label), tokens),))


TASK = TaskSpec(
    name="SentLen",
    file="sentence_length",
    labels=None,
    params=Params,
    candidate=candidate,
    prepare=prepare,
    description="number of surface tokens, in six bins",
)

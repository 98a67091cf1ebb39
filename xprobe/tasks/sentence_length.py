"""SentLen: how many surface tokens the sentence has, as one of six length bins.

Bins follow the SentEval README: 5-8, 9-12, 13-16, 17-20, 21-25, 26-28 tokens, labelled 0..5.
The bins are a parameter (``bins``: the lower bound of each); the label set follows them, so it
is computed by ``prepare`` (``labels_of(ctx)``) rather than fixed.

Example: "The cat slept on the mat ." has 7 tokens -> label ``0``.

For a language whose tokens are shorter units, :func:`derive_edges` puts the bins (and the
window) where they cut the corpus at English's shares (:data:`ENGLISH_SHARES`), a profile's
``length = "auto"`` (:mod:`xprobe.extract.length`)::

    >>> derive_edges({10: 50, 20: 50}, (0.5, 0.75))
    (11, 12)
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from xprobe.errors import XProbeError
from xprobe.tasks.base import Candidate, Context, TaskSpec, Variant
from xprobe.tasks.common import LabelSet
from xprobe.ud import Sentence

DEFAULT_BINS = (5, 9, 13, 17, 21, 26)
# Share of sentences shorter than 5, 9, 13, 17, 21, 26 and 29 surface tokens in UD English-EWT
# train (gold, 12,544 sentences): the window's lower edge, the bins' lower bounds, and one past
# the window's upper edge.
ENGLISH_SHARES = (0.1623, 0.3027, 0.4553, 0.5929, 0.7076, 0.8182, 0.8622)


def derive_edges(counts: Counter[int] | dict[int, int], shares: Sequence[float]) -> tuple[int, ...]:
    """For each share, the length ``e`` whose share of sentences shorter than ``e`` is nearest
    to it (ties: the smaller ``e``); edges made strictly increasing (each one past the last)."""
    total = sum(counts.values())
    lengths = sorted(counts)
    if not total:
        return tuple(range(1, len(shares) + 1))
    cuts = [(lengths[0], 0.0)]
    below = 0
    for n in lengths:
        below += counts[n]
        cuts.append((n + 1, below / total))
    edges: list[int] = []
    for q in shares:
        edge = min(cuts, key=lambda c: (abs(c[1] - q), c[0]))[0]
        edges.append(max(edge, 1, edges[-1] + 1 if edges else 1))
    return tuple(edges)


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
    needs_tree=False,  # tokens and tags only: a tagged sentence serves
)

"""TreeDepth: the depth of the dependency tree, as a class among a range of depths.

Depth is the number of nodes on the longest root-to-leaf path of the syntactic words, the root
counted as 1 (:func:`xprobe.ud.tree_depth`; multiword tokens contribute their words). Classes are
``str(d)`` for ``d`` in ``min_depth..max_depth`` (default 3..7, X-Probe's released sets); deeper
or shallower trees are not used. To decorrelate depth from length, every candidate's ``stratum``
is its SentLen length bin (``length_bins``, SentLen's defaults): the extractor gives every depth
class the same count within each length bin. ``length_strata = "tokens"`` makes every length
(surface tokens, from the first bin's lower bound on) its own stratum instead: every depth class
then has the same length distribution, so length and depth are uncorrelated but for the
remainder lines, where a bin leaves the depth trend inside it; for treebank-size corpora, whose
bins hold few sentences of the extreme depths (docs/tasks.md, TreeDepth).

Example: "The cat slept ." (slept <- cat <- The; slept <- .) has depth 3 -> label ``3``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from xprobe.errors import XProbeError
from xprobe.tasks.base import Candidate, Context, TaskSpec, Variant
from xprobe.tasks.common import LabelSet
from xprobe.tasks.sentence_length import DEFAULT_BINS, check_bins, length_bin
from xprobe.ud import Sentence


@dataclass(frozen=True)
class Params:
    min_depth: int = 3  # smallest depth class, inclusive
    max_depth: int = 7  # largest depth class, inclusive
    length_bins: tuple[int, ...] = DEFAULT_BINS  # strata: SentLen's bins (lower bounds)
    length_strata: str = "bins"  # "bins": length_bins; "tokens": every length its own stratum


STRATA = ("bins", "tokens")


def prepare(ctx: Context) -> LabelSet:
    p = ctx.params
    if not 1 <= p.min_depth <= p.max_depth:
        raise XProbeError(f"TreeDepth: depth range {p.min_depth}..{p.max_depth} is empty")
    check_bins("TreeDepth", p.length_bins)
    if p.length_strata not in STRATA:
        raise XProbeError(
            f"TreeDepth: length_strata must be one of {', '.join(STRATA)}, got {p.length_strata!r}"
        )
    return LabelSet(tuple(str(d) for d in range(p.min_depth, p.max_depth + 1)))


def depth_of(heads: list[int]) -> int:
    """Nodes on the longest root-to-leaf path (as :func:`xprobe.ud.tree_depth`).

    Walks up from every word: O(n * depth) with no allocation, faster than memoising for the
    short sentences used here; the walk is cut at n steps, so even a cyclic input terminates.
    """
    n = len(heads)
    best = 0
    for h in heads:
        d = 1
        while h and d <= n:
            d += 1
            h = heads[h - 1]
        if d > best:
            best = d
    return best


def candidate(sentence: Sentence, ctx: Context, rng: random.Random) -> Candidate | None:
    p = ctx.params
    depth = depth_of([w.head for w in sentence.words])
    if not p.min_depth <= depth <= p.max_depth:
        return None
    tokens = sentence.tokens
    stratum = length_bin(len(tokens), p.length_bins)
    if stratum is None:
        return None
    if p.length_strata == "tokens":
        stratum = len(tokens)
    return Candidate((Variant(str(depth), tokens),), stratum=str(stratum))


def tag_filter(sentence: Sentence, ctx: Context) -> bool:
    """Tags only: a length within the strata (a length bin), and enough words for the smallest
    depth (a tree of n words is at most n deep)."""
    p = ctx.params
    return (
        len(sentence.words) >= p.min_depth
        and length_bin(len(sentence.tokens), p.length_bins) is not None
    )


TASK = TaskSpec(
    name="TreeDepth",
    file="tree_depth",
    labels=None,
    params=Params,
    candidate=candidate,
    tag_filter=tag_filter,
    prepare=prepare,
    description="depth of the dependency tree, balanced within length bins",
)

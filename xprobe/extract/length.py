"""Sentence length that follows the language: the token window and SentLen's bins.

The common window (5..28 surface tokens) and SentLen's bins (5-8, 9-12, 13-16, 17-20, 21-25,
26-28) are measured in tokens of English. A language whose tokens are shorter units (Japanese
GSD's short-unit words, Chinese words) has longer sentences in tokens, and the same window and
bins would keep other shares of its sentences (UD Japanese-GSD: 2 % of its sentences in the first
bin, against 14 % in English). Where the window comes from, in order:

* ``ExtractConfig.min_tokens`` / ``max_tokens`` given (the command line): as given;
* the profile's ``length = "auto"``: derived from the corpus's own token-length distribution
  (a cheap pre-pass over the input that counts surface tokens only) so that every bin edge cuts
  the corpus at the same share of sentences as it cuts English (:data:`ENGLISH_SHARES`);
* the profile's ``min_tokens`` / ``max_tokens`` (> 0);
* the defaults, 5 and 28.

With ``length = "auto"`` the derived bins also become SentLen's ``bins`` and TreeDepth's
``length_bins``, unless the profile's task table or ``--param`` sets them. The manifest's
``length`` entry records the rule used, the window, the bins and, when derived, the shares.

Example::

    >>> plan_length("fixed", (0, 0), (None, None), []).rule
    'default'
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from xprobe.errors import XProbeError
from xprobe.extract.scan import iter_blocks, surface_count
from xprobe.tasks.sentence_length import DEFAULT_BINS, ENGLISH_SHARES, derive_edges

__all__ = [
    "ENGLISH_SHARES",
    "LengthPlan",
    "apply_bins",
    "bins_of",
    "check_window",
    "corpus_window",
    "derive_edges",
    "length_counts",
    "plan_length",
]

DEFAULT_WINDOW = (5, 28)
# the corpus stage's window under length = "auto" (xprobe extract --from-text): every length up
# to this one is parsed, so that the window derived afterwards sees the corpus's distribution
AUTO_CORPUS_WINDOW = (1, 200)


@dataclass(frozen=True)
class LengthPlan:
    """The window and bins an extraction uses, and where they came from."""

    min_tokens: int
    max_tokens: int
    rule: str  # "default", "profile", "command line" or "auto"
    bins: tuple[int, ...] | None = None  # derived bins (auto), else None: the tasks' own
    shares: dict[str, Any] = field(default_factory=dict)

    def manifest(self, bins: Sequence[int]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule,
            "min_tokens": self.min_tokens,
            "max_tokens": self.max_tokens,
            "bins": list(bins),
        }
        if self.shares:
            out["derived"] = self.shares
        return out


def length_counts(paths: Sequence[str]) -> Counter[int]:
    """Sentences per surface-token count over the input files."""
    counts: Counter[int] = Counter()
    for path in paths:
        for _, block in iter_blocks(path):
            counts[surface_count(block)] += 1
    return counts


def plan_length(
    profile_rule: str,
    profile_window: tuple[int, int],
    given: tuple[int | None, int | None],
    paths: Sequence[str],
) -> LengthPlan:
    """The window (and derived bins) for an extraction; see the module docstring."""
    if given[0] is not None or given[1] is not None:
        lo = given[0] if given[0] is not None else DEFAULT_WINDOW[0]
        hi = given[1] if given[1] is not None else DEFAULT_WINDOW[1]
        return LengthPlan(lo, hi, "command line")
    if profile_rule == "auto":
        counts = length_counts(paths)
        edges = derive_edges(counts, ENGLISH_SHARES)
        total = sum(counts.values())
        shares = {
            "reference": "UD English-EWT train",
            "shares": list(ENGLISH_SHARES),
            "edges": list(edges),
            "sentences": total,
        }
        return LengthPlan(edges[0], edges[-1] - 1, "auto", tuple(edges[:-1]), shares)
    lo, hi = profile_window
    if lo or hi:
        return LengthPlan(lo or DEFAULT_WINDOW[0], hi or DEFAULT_WINDOW[1], "profile")
    return LengthPlan(*DEFAULT_WINDOW, "default")


def corpus_window(
    profile_rule: str, profile_window: tuple[int, int], given: tuple[int | None, int | None]
) -> tuple[int, int]:
    """The token window of the corpus stage that feeds an extraction (parsing in rounds): the
    window the extraction will use when it is known before parsing (given, the profile's or the
    default), else, for ``length = "auto"``, :data:`AUTO_CORPUS_WINDOW`, wide enough for the
    derivation to see the sentences it cuts off."""
    if given == (None, None) and profile_rule == "auto":
        return AUTO_CORPUS_WINDOW
    plan = plan_length("fixed", profile_window, given, [])
    return plan.min_tokens, plan.max_tokens


def bins_of(params: dict[str, Any]) -> tuple[int, ...]:
    """SentLen's bins as resolved (the default when SentLen is not extracted)."""
    p = params.get("sentence_length")
    return tuple(p.bins) if p is not None else DEFAULT_BINS


def check_window(length: LengthPlan) -> None:
    """Reject a window that holds no length."""
    if not 1 <= length.min_tokens <= length.max_tokens:
        raise XProbeError(
            f"token bounds {length.min_tokens}..{length.max_tokens} ({length.rule}): "
            "need 1 <= min <= max"
        )


def apply_bins(
    params: dict[str, Any],
    length: LengthPlan,
    profile_tasks: dict[str, dict[str, Any]],
    overrides: dict[str, dict[str, Any]],
) -> None:
    """Derived bins (``length = "auto"``) become SentLen's bins and TreeDepth's strata, unless
    the profile's task table or ``--param`` sets them."""
    if length.bins is None:
        return
    given = {k.lower(): v for k, v in overrides.items()}
    for file, name, key in (
        ("sentence_length", "sentlen", "bins"),
        ("tree_depth", "treedepth", "length_bins"),
    ):
        if file not in params or key in profile_tasks.get(file, {}):
            continue
        if key in given.get(file, {}) or key in given.get(name, {}):
            continue
        params[file] = dataclasses.replace(params[file], **{key: length.bins})

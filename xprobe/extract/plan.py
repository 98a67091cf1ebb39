"""Quotas and selection: how many sentences of each (label, stratum) a split gets, and which.

Rules (docs/TASKS.md): classes are balanced within each split, a remainder going to classes in
label order. Strata refine this:

* declared strata (``TaskSpec.strata``, CoordInv's longer/equal/shorter): each (split, label)
  quota is split equally across them, a remainder going to strata in declared order;
* data-driven strata (TreeDepth's length bins): within every stratum each label gets the same
  count; strata take shares in proportion to what the scarcest label offers there, so the
  length distribution is the same for every class (the remainder labels take one extra sentence
  each, together in the stratum nearest the middle of the length distribution, so that they add
  no length-label correlation).

A flexible candidate (a perturbation task: original and perturbed variant) can serve any label;
labels are dealt to the chosen sentences by a seeded shuffle.

Example::

    >>> label_quota(7, ("a", "b", "c"))
    {'a': 3, 'b': 2, 'c': 2}
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

__all__ = ["FLEX", "Cell", "label_quota", "largest_fit", "plan", "select"]

FLEX = "*"  # the label slot of a flexible candidate's cell
Cell = tuple[str, str]  # (label or FLEX, stratum)


def label_quota(n: int, labels: Sequence[str]) -> dict[str, int]:
    """``n`` sentences over ``labels``: equal counts, the remainder to the first labels."""
    base, r = divmod(n, len(labels))
    return {label: base + (i < r) for i, label in enumerate(labels)}


def _proportional(total: int, caps: Mapping[str, int], strata: Sequence[str]) -> dict[str, int]:
    """Split ``total`` over strata in proportion to ``caps`` (largest remainder, capped)."""
    cap_sum = sum(caps[s] for s in strata)
    if cap_sum == 0:
        return dict.fromkeys(strata, 0)
    out = {s: total * caps[s] // cap_sum for s in strata}
    left = total - sum(out.values())
    order = sorted(strata, key=lambda s: (-((total * caps[s]) % cap_sum), strata.index(s)))
    for s in order:
        if left == 0:
            break
        if out[s] < caps[s]:
            out[s] += 1
            left -= 1
    return out


def plan(
    n: int,
    labels: Sequence[str],
    avail: Mapping[Cell, int],
    flexible: bool,
    declared: Sequence[str],
) -> dict[Cell, int] | None:
    """Quotas ``{(label, stratum): count}`` for ``n`` sentences, or None if ``avail`` is short."""
    if not labels:
        return {} if n == 0 else None
    q = label_quota(n, labels)
    strata_seen = sorted({s for _, s in avail})
    if declared or strata_seen in ([], [""]):
        strata = list(declared) or [""]
        quota: dict[Cell, int] = {}
        for label in labels:
            base, r = divmod(q[label], len(strata))
            for j, s in enumerate(strata):
                quota[(label, s)] = base + (j < r)
        return quota if _fits(quota, avail, flexible, strata) else None
    return _plan_data_strata(n, labels, avail, flexible, strata_seen)


def _plan_data_strata(
    n: int, labels: Sequence[str], avail: Mapping[Cell, int], flexible: bool, strata: list[str]
) -> dict[Cell, int] | None:
    k = len(labels)
    if flexible:
        caps = {s: avail.get((FLEX, s), 0) // k for s in strata}
    else:
        caps = {s: min(avail.get((label, s), 0) for label in labels) for s in strata}
    base, r = divmod(n, k)
    if sum(caps.values()) < base:
        return None
    per = _proportional(base, caps, strata)
    quota = {(label, s): per[s] for label in labels for s in strata}
    if r and not _place_remainder(quota, labels[:r], labels, avail, flexible, strata, per):
        return None
    return quota


def _place_remainder(
    quota: dict[Cell, int],
    extra: Sequence[str],
    labels: Sequence[str],
    avail: Mapping[Cell, int],
    flexible: bool,
    strata: list[str],
    per: Mapping[str, int],
) -> bool:
    """Give each label of ``extra`` one more sentence, all in the same stratum if one has room,
    the one nearest the centre of the length distribution (a remainder sentence at the mean
    length adds no length-label covariance; spread by room, short labels would go where their
    sentences are short and deep ones where they are long). Otherwise label by label, nearest
    the centre first. Returns False when some label finds no room."""

    def room(s: str, label: str) -> int:
        if flexible:
            return avail.get((FLEX, s), 0) - sum(quota[(x, s)] for x in labels)
        return avail.get((label, s), 0) - quota[(label, s)]

    for s in _by_centre(strata, per):
        if (flexible and room(s, extra[0]) >= len(extra)) or (
            not flexible and all(room(s, label) > 0 for label in extra)
        ):
            for label in extra:
                quota[(label, s)] += 1
            return True
    for label in extra:
        best = next((s for s in _by_centre(strata, per) if room(s, label) > 0), None)
        if best is None:
            return False
        quota[(label, best)] += 1
    return True


def _by_centre(strata: list[str], per: Mapping[str, int]) -> list[str]:
    """Strata by distance of their position (the number they name, else their rank) from the
    count-weighted mean position; ties to the earlier stratum."""
    pos = {s: float(s) if s.lstrip("-").isdigit() else float(i) for i, s in enumerate(strata)}
    total = sum(per.values())
    centre = sum(pos[s] * per[s] for s in strata) / total if total else 0.0
    return sorted(strata, key=lambda s: (abs(pos[s] - centre), strata.index(s)))


def _fits(
    quota: Mapping[Cell, int], avail: Mapping[Cell, int], flexible: bool, strata: Sequence[str]
) -> bool:
    if flexible:
        return all(
            sum(c for (_, s), c in quota.items() if s == st) <= avail.get((FLEX, st), 0)
            for st in strata
        )
    return all(c <= avail.get(cell, 0) for cell, c in quota.items())


def largest_fit(
    n: int,
    labels: Sequence[str],
    avail: Mapping[Cell, int],
    flexible: bool,
    declared: Sequence[str],
) -> tuple[int, dict[Cell, int]]:
    """The largest ``m <= n`` that can be planned, with its quotas (binary search)."""
    lo, hi = 0, n
    best = plan(0, labels, avail, flexible, declared) or {}
    while lo < hi:
        mid = (lo + hi + 1) // 2
        got = plan(mid, labels, avail, flexible, declared)
        if got is None:
            hi = mid - 1
        else:
            lo, best = mid, got
    return lo, best


def select(
    quota: Mapping[Cell, int],
    cells: Mapping[Cell, list[tuple[int, int, tuple]]],
    flexible: bool,
    labels: Sequence[str],
    rng: random.Random,
) -> list[tuple[str, int, int, tuple]]:
    """Pick ``(label, priority, hash, entry)`` for each quota, lowest priorities first."""
    out: list[tuple[str, int, int, tuple]] = []
    if not flexible:
        for (label, s), count in sorted(quota.items()):
            out.extend((label, p, h, e) for p, h, e in cells.get((label, s), [])[:count])
        return out
    for s in sorted({s for _, s in quota}):
        dealt = [label for label in labels for _ in range(quota.get((label, s), 0))]
        rng.shuffle(dealt)
        chosen = cells.get((FLEX, s), [])[: len(dealt)]
        out.extend((label, p, h, e) for label, (p, h, e) in zip(dealt, chosen, strict=False))
    return out

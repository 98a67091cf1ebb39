"""When a task cannot be filled: shrink all three splits in proportion to the sizes asked.

Filling the small splits first from what the corpus offers (validation and test full, training
starved: ``tr 2 / va 80 / te 80``) gives a probe nothing to learn from. Instead, the largest
total ``m`` is searched for whose proportional sizes (:func:`proportional_sizes`) can all be
filled at once; every split then holds its asked share of what there is.

A task with lexical keys (one key, one split) assigns keys to splits by a seeded hash in
proportion to the sizes, which on a small corpus with few keys is lumpy (SubjNum on EWT: 45 / 1 /
0). Before shrinking, :func:`rebalance_keys` deals the pooled keys to splits again, biggest key
first, each to the split (of its label) furthest below its share: still one split per key, and
the splits now in proportion. It runs only for a task that fell short, so a task that can be
filled keeps the hash assignment (and its bytes).

Example::

    >>> proportional_sizes((400, 80, 80), 56)
    (40, 8, 8)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xprobe.tasks.base import fold_key

__all__ = ["largest_proportional", "proportional_sizes", "rebalance_keys"]

Sizes = tuple[int, int, int]


def proportional_sizes(sizes: Sequence[int], m: int) -> Sizes:
    """``m`` sentences over the splits in proportion to ``sizes`` (largest remainder; ties to
    the earlier split)."""
    total = sum(sizes)
    if total == 0 or m <= 0:
        return (0, 0, 0)
    m = min(m, total)
    out = [n * m // total for n in sizes]
    order = sorted(range(3), key=lambda i: (-((sizes[i] * m) % total), i))
    for i in order[: m - sum(out)]:
        out[i] += 1
    return (out[0], out[1], out[2])


def largest_proportional(
    sizes: Sequence[int], fits: Callable[[Sizes], bool], most: int | None = None
) -> Sizes:
    """The proportional sizes of the largest total (at most ``most``) that ``fits`` (binary
    search on the total; the best fitting one seen is kept, so a non-monotone ``fits`` still
    gives a fitting one)."""
    lo, hi = 0, sum(sizes) if most is None else min(sum(sizes), most)
    best = (0, 0, 0)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        got = proportional_sizes(sizes, mid)
        if fits(got):
            lo, best = mid, got
        else:
            hi = mid - 1
    return best


def rebalance_keys(
    pools: dict[tuple[int, str, str], list[tuple[int, int, tuple]]],
    sizes: Sequence[int],
    shared: int,
) -> dict[tuple[int, str, str], list[tuple[int, int, tuple]]]:
    """The pooled entries with their keys dealt to splits again, in proportion to ``sizes``.

    ``pools``: ``{(split, label, stratum): [(priority, hash, entry), ...]}`` as
    :mod:`xprobe.extract.select` resolves them (``split == shared``: no key, left as it is).
    An entry's key is that of its first variant that has one, case-folded. Keys go biggest
    first (ties: the lowest priority among its entries, a seeded hash), each to the split whose
    count for the key's label (its first entry's) is lowest relative to its size.
    """
    active = [i for i, n in enumerate(sizes) if n > 0]
    if len(active) < 2:
        return pools
    out: dict[tuple[int, str, str], list[tuple[int, int, tuple]]] = {}
    by_key: dict[str, list[tuple[str, str, tuple[int, int, tuple]]]] = {}
    for (split, label, stratum), entries in pools.items():
        if split == shared:
            out.setdefault((split, label, stratum), []).extend(entries)
            continue
        for item in entries:
            by_key.setdefault(_key(item[2]), []).append((label, stratum, item))
    have: dict[tuple[int, str], int] = {}
    ranked = sorted(by_key.items(), key=lambda kv: (-len(kv[1]), min(x[2][:2] for x in kv[1])))
    for _, items in ranked:
        label = items[0][0]
        split = min(active, key=lambda i: (have.get((i, label), 0) / sizes[i], i))
        have[(split, label)] = have.get((split, label), 0) + len(items)
        for lab, stratum, item in items:
            out.setdefault((split, lab, stratum), []).append(item)
    for entries in out.values():
        entries.sort(key=lambda x: (x[0], x[1]))
    return out


def _key(entry: tuple[Any, ...]) -> str:
    """The lexical key of a pooled entry ``(variants, provenance, stratum)``."""
    for _, _, key in entry[0]:
        if key is not None:
            return fold_key(str(key))  # keys are assigned to splits case-folded
    return ""

"""The selection pass: offer every eligible sentence to every task, then resolve the pools.

:class:`TaskRun` holds one task's bounded pools during the pass (see :mod:`xprobe.extract.pools`).
:func:`resolve` then gives tasks first pick in order of rarity (eligible candidates per sentence
asked, fewest first): each task plans its quotas (:mod:`xprobe.extract.plan`) on the candidates
that no rarer task took, and picks the lowest priorities. Exclusivity is by text: a source
sentence, or any text already written, is never used twice (within a task always; across tasks
unless exclusivity is off).
"""

from __future__ import annotations

import heapq
import logging
import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from xprobe.errors import XProbeError
from xprobe.extract.plan import FLEX, label_quota, largest_fit, plan, select
from xprobe.extract.pools import MASK, SPLITS, LazyRandom, Pool, SplitPicker
from xprobe.extract.shrink import largest_proportional, rebalance_keys
from xprobe.files import derive_seed, rng
from xprobe.tasks.base import Candidate, Context, TaskSpec
from xprobe.ud import Sentence

__all__ = ["Picked", "TaskResult", "TaskRun", "resolve"]

log = logging.getLogger(__name__)

SHARED = -1  # the split slot of a pool whose candidates may go to any split
# The order splits are filled from shared pools: the small ones first (a task that cannot be
# filled is shrunk in proportion, all splits at once: xprobe.extract.shrink).
FILL_ORDER = (1, 2, 0)
_PRIORITY = operator.itemgetter(0, 1)  # a pool entry's (priority, source text hash)

# (label, text, key, (file index, line, sent_id), stratum, priority, source text hash)
Picked = tuple[str, str, "str | None", tuple[Any, ...], str, int, int]


@dataclass
class TaskRun:
    """One task during the selection pass: its context, seeded hashes and bounded pools."""

    spec: TaskSpec
    ctx: Context
    labels: tuple[str, ...]
    sizes: tuple[int, int, int]
    seed: int
    lang: str
    index: int
    margin: float = 0.5
    eligible: int = 0
    duplicates: int = 0
    flexible: bool | None = None
    pools: dict[tuple[int, str, str], Pool] = field(default_factory=dict)
    members: set[int] = field(default_factory=set)
    exclude: frozenset[int] | set[int] = frozenset()  # source texts other tasks already took
    starved: bool = False
    provenance: bool = True  # keep sent_ids for the provenance file
    shrink: bool = True  # size data-driven strata pools by the strata seen (see capacity)
    lost: int = 0  # pooled candidates that other tasks took first (exclusivity)

    def __post_init__(self) -> None:
        purpose = (self.lang, self.spec.file)
        self.salt_prio = derive_seed(self.seed, *purpose, "priority")
        self.salt_rng = derive_seed(self.seed, *purpose, "candidate")
        self.picker = SplitPicker(self.sizes, self.seed, (*purpose, "key-split"))
        self.split_of = self.picker._keys
        self.rng = LazyRandom()
        self.label_set = frozenset(self.labels)
        self.strata = self.spec.strata_of(self.ctx.params)  # declared strata (params chosen)
        self.declared = frozenset(self.strata)
        self.candidate = self.spec.candidate

    def capacity(self, split: int, flexible: bool, seen_strata: int = 1) -> int:
        """Pool size of a cell (``split`` SHARED: all splits): the most any plan could take
        from it, plus a margin for the candidates that rarer tasks take first.

        Declared strata divide it by their number. Data-driven strata (``seen_strata`` of them
        so far) divide it by half their number: a plan can then still fill every label while
        at least half the strata offer enough, and memory stays near the sizes asked.
        """
        sizes = self.sizes if split == SHARED else (self.sizes[split],)
        m = len(self.strata) or max(1, seen_strata // 2)
        k = max(1, len(self.labels))
        need = 0
        for n in sizes:
            if n:
                per = n if flexible else math.ceil(n / k)
                need += math.ceil(per / m) + (k if flexible else 1)
        return int(need * (1 + self.margin)) + 8 if need else 0

    def offer(
        self, sent: Sentence, tokens: tuple[str, ...], text: str, h: int, fi: int, line: int
    ) -> None:
        """Ask the task about one sentence and pool its candidate if it ranks low enough."""
        r = self.rng
        r.arm(h ^ self.salt_rng)
        cand = self.candidate(sent, self.ctx, r)
        if cand is not None:
            self.add(cand, sent, tokens, text, h, fi, line)

    def add(
        self,
        cand: Candidate,
        sent: Sentence,
        tokens: tuple[str, ...],
        text: str,
        h: int,
        fi: int,
        line: int,
    ) -> None:
        """Pool a candidate of sentence ``sent`` (text hash ``h``) if it ranks low enough."""
        self.eligible += 1
        if h in self.members or h in self.exclude:
            self.duplicates += 1
            return
        variants = cand.variants
        flexible = len(variants) > 1
        if flexible is not self.flexible:
            self._check_arity(flexible)
        if flexible:
            label = FLEX
            key = None
            for v in variants:
                if v.key is not None:
                    key = v.key
                    break
        else:
            label = variants[0].label
            key = variants[0].key
        if key is None:
            split = SHARED
        else:
            split = self.split_of.get(key)  # SplitPicker.of_key's cache, looked up inline
            if split is None:
                split = self.picker.of_key(key)
        cell = (split, label, cand.stratum)
        pool = self.pools.get(cell)
        if pool is None:  # a new cell: its label and stratum are checked once, here
            self._check_cell(label, cand.stratum, flexible)
            pool = self._new_pool(cell, flexible)
        x = h ^ self.salt_prio  # mix64, inlined: this runs for every candidate
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
        prio = x ^ (x >> 31)
        heap = pool.heap
        if len(heap) >= pool.cap and (not heap or -heap[0][0] <= prio):
            pool.evicted += 1
            return
        vt = tuple(
            (
                v.label,
                text if v.tokens is tokens or v.tokens == tokens else " ".join(v.tokens),
                v.key,
            )
            for v in variants
        )
        sent_id = sent.comment("sent_id") if self.provenance else None
        out = pool.offer(prio, h, (vt, (fi, line, sent_id), cand.stratum))
        self.members.add(h)
        if out is not None:
            self.members.discard(out)

    def _new_pool(self, cell: tuple[int, str, str], flexible: bool) -> Pool:
        """Create a cell's pool; a new data-driven stratum shrinks its split's other pools
        (dropping their highest priorities keeps each a bottom-k sample)."""
        split, _, stratum = cell
        if self.declared or not stratum or not self.shrink:
            pool = self.pools[cell] = Pool(self.capacity(split, flexible))
            return pool
        strata = {s for (sp, _, s) in self.pools if sp == split} | {stratum}
        cap = self.capacity(split, flexible, len(strata))
        pool = self.pools[cell] = Pool(cap)
        for (sp, _, _), other in self.pools.items():
            if sp != split or other.cap == cap:
                continue
            other.cap = cap
            while len(other.heap) > cap:
                self.members.discard(heapq.heappop(other.heap)[1])
                other.evicted += 1
        return pool

    def _check_cell(self, label: str, stratum: str, flexible: bool) -> None:
        """A new cell's label must be one of the task's (unless flexible), its stratum declared
        (when the task declares strata)."""
        if not flexible and label not in self.label_set:
            raise XProbeError(
                f"task {self.spec.name} gave label {label!r}, not one of {self.labels}"
            )
        if self.declared and stratum not in self.declared:
            raise XProbeError(f"task {self.spec.name} gave undeclared stratum {stratum!r}")

    def _check_arity(self, flexible: bool) -> None:
        if self.flexible is None:
            self.flexible = flexible
            return
        raise XProbeError(f"task {self.spec.name} mixes one-variant and several-variant candidates")


@dataclass
class TaskResult:
    """What one task writes: the picked lines per split, and what fell short."""

    run: TaskRun
    rank: int
    picked: list[list[Picked]]
    shortfalls: list[str]
    shrunk: tuple[int, int, int] | None = None  # the proportional sizes a short task got

    @property
    def partial(self) -> bool:
        return bool(self.shortfalls)


def resolve(
    runs: list[TaskRun],
    exclusive: bool,
    taken_h: set[int] | None = None,
    taken_text: set[str] | None = None,
    ranks: dict[int, int] | None = None,
) -> list[TaskResult]:
    """Finalise every task, rarest first; returns results in the order of ``runs``.

    ``taken_h``/``taken_text`` (updated in place when exclusive): source-text hashes and texts
    already used by other tasks. ``ranks``: keep these rarity ranks (by run index) instead.
    """
    total = max(1, sum(runs[0].sizes)) if runs else 1
    order = sorted(runs, key=lambda r: (r.eligible / total, r.index))
    taken_h = set() if taken_h is None else taken_h
    taken_text = set() if taken_text is None else taken_text
    results: dict[int, TaskResult] = {}
    for rank, run in enumerate(order):
        rank = ranks.get(run.index, rank) if ranks else rank
        res = _finalize(run, rank, taken_h, taken_text)
        results[run.index] = res
        if exclusive:
            for split in res.picked:
                for p in split:
                    taken_text.add(p[1])
                    taken_h.add(p[6])
    return [results[r.index] for r in runs]


def _available(
    run: TaskRun, taken_h: set[int], taken_text: set[str]
) -> tuple[dict[tuple[int, str, str], list[tuple[int, int, tuple]]], set[tuple[int, str]]]:
    """Each pool's entries by priority, without texts other tasks took or this task repeats;
    and the (split, label) groups of full pools that lost entries to other tasks."""
    own: set[str] = set()
    cells = {}
    starving: set[tuple[int, str]] = set()
    run.lost = 0
    for cell, pool in sorted(run.pools.items()):
        keep = []
        for p, h, e in pool.sorted():
            texts = [v[1] for v in e[0]]
            if h in taken_h or any(t in taken_text for t in texts):
                run.lost += 1
                if pool.evicted:
                    starving.add(cell[:2])
                continue
            if any(t in own for t in texts):
                continue
            own.update(texts)
            keep.append((p, h, e))
        cells[cell] = keep
    return cells, starving


def _finalize(run: TaskRun, rank: int, taken_h: set[int], taken_text: set[str]) -> TaskResult:
    pools, starving = _available(run, taken_h, taken_text)
    run.starved = False
    picked, short = _fill(run, pools, run.sizes)
    if not short:
        return TaskResult(run, rank, picked, [])
    shortfalls = [_shortfall(run, SPLITS[si], run.sizes[si], avail, bool(run.flexible))
                  for si, avail in sorted(short.items())]  # fmt: skip
    for si, avail in short.items():
        n = run.sizes[si]
        run.starved = run.starved or _starved(run, si, n, avail, starving, bool(run.flexible))
        if (
            run.shrink
            and not run.strata
            and any(p.evicted for (s, _, st), p in run.pools.items() if st and s in (si, SHARED))
        ):
            run.starved = True  # data-driven strata: full-size pools may fill it
    if any(s != SHARED for s, _, _ in pools):
        pools = rebalance_keys(pools, run.sizes, SHARED)
    most = sum(map(len, pools.values()))  # no more lines than candidates
    sizes = largest_proportional(
        run.sizes, lambda got: not _fill(run, pools, got, dry=True)[1], most
    )
    picked, _ = _fill(run, pools, sizes)
    if sizes == tuple(run.sizes):  # the keys dealt again fill it all
        log.info("%s: lexical keys dealt to splits by size to fill them", run.spec.name)
        return TaskResult(run, rank, picked, [])
    return TaskResult(run, rank, picked, shortfalls, sizes)


def _fill(
    run: TaskRun,
    pools: dict[tuple[int, str, str], list[tuple[int, int, tuple]]],
    sizes: Sequence[int],
    dry: bool = False,
) -> tuple[list[list[Picked]], dict[int, dict[tuple[str, str], int]]]:
    """Fill the splits (smallest first) to ``sizes`` from ``pools``; returns the lines picked
    and, per split that could not be filled, what it had (it then gets the most that fits).
    ``dry``: stop at the first split that does not fit (the lines are then incomplete).

    Each pool's entries come by priority (as :func:`_available` and
    :func:`xprobe.extract.shrink.rebalance_keys` give them), so a (label, stratum) that only
    one pool feeds is used as it is: only what two pools feed is merged and sorted again (the
    size searches call this a dozen times per task)."""
    picked: list[list[Picked]] = [[], [], []]
    short: dict[int, dict[tuple[str, str], int]] = {}
    flexible = bool(run.flexible)
    used: set[int] = set()
    for si in FILL_ORDER:
        split = SPLITS[si]
        parts: dict[tuple[str, str], list[list[tuple[int, int, tuple]]]] = {}
        for (s, label, stratum), entries in pools.items():
            if s == si:
                parts.setdefault((label, stratum), []).append(entries)
            elif s == SHARED:
                rest = [x for x in entries if x[1] not in used] if used else entries
                parts.setdefault((label, stratum), []).append(rest)
        cells = {
            c: ls[0] if len(ls) == 1 else sorted(chain.from_iterable(ls), key=_PRIORITY)
            for c, ls in parts.items()
        }
        avail = {c: len(v) for c, v in cells.items()}
        n = sizes[si]
        quota = plan(n, run.labels, avail, flexible, run.strata)
        if quota is None:
            short[si] = avail
            if dry:
                break
            _, quota = largest_fit(n, run.labels, avail, flexible, run.strata)
        r = rng(run.seed, run.lang, run.spec.file, split, "labels")
        chosen = select(quota, cells, flexible, run.labels, r)
        used.update(h for _, _, h, _ in chosen)
        if not dry:
            picked[si] = [_line(run, label, p, h, e) for label, p, h, e in chosen]
    return picked, short


def _starved(
    run: TaskRun,
    si: int,
    n: int,
    avail: dict[tuple[str, str], int],
    starving: set[tuple[int, str]],
    flexible: bool,
) -> bool:
    """Whether a label short in split ``si`` had a full pool that lost entries to other tasks
    (then a larger pool could have filled it)."""
    if not run.labels:
        return False
    need = {FLEX: n} if flexible else label_quota(n, run.labels)
    have: dict[str, int] = {}
    for (label, _), c in avail.items():
        have[label] = have.get(label, 0) + c
    return any(
        have.get(label, 0) < k and ((si, label) in starving or (SHARED, label) in starving)
        for label, k in need.items()
    )


def _line(run: TaskRun, label: str, prio: int, h: int, entry: tuple) -> Picked:
    variants, prov, stratum = entry
    for v_label, text, key in variants:
        if v_label == label:
            return (label, text, key, prov, stratum, prio, h)
    raise XProbeError(f"task {run.spec.name}: a candidate has no variant labelled {label!r}")


def _shortfall(
    run: TaskRun, split: str, n: int, avail: dict[tuple[str, str], int], flexible: bool
) -> str:
    """One line: what the split needs per class and what was found."""
    need = label_quota(n, run.labels) if run.labels else {}
    if flexible:
        found = sum(avail.values())
        text = f"{split}: needs {n} sentences ({_fmt(need)}), found {found}"
    else:
        per = dict.fromkeys(run.labels, 0)
        for (x, _), c in avail.items():
            per[x] = per.get(x, 0) + c
        if len(run.labels) <= 12:
            text = f"{split}: needs {_fmt(need)}; found {_fmt(per)}"
        else:
            short = {k: v for k, v in per.items() if v < need[k]}
            text = (
                f"{split}: needs {min(need.values())}-{max(need.values())} per class for "
                f"{len(need)} classes; {len(short)} classes short, e.g. found "
                + _fmt(dict(list(short.items())[:6]))
            )
    strata = sorted({s for _, s in avail if s})
    if strata and len(run.labels) <= 12:
        cells = ", ".join(f"{lab}/{s}={c}" for (lab, s), c in sorted(avail.items()) if c)
        text += f" (balanced within strata; found per label/stratum: {cells or 'none'})"
    return text


def _fmt(counts: dict[str, int]) -> str:
    return " ".join(f"{k}={v}" for k, v in counts.items())

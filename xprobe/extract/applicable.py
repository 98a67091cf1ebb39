"""Tasks that do not apply to a language, declared by its profile or found by extract.

A profile declares a task not applicable with a reason (``[tasks.past_present] applicable =
false``, ``reason = "no morphological tense in UD Chinese-GSD"``): extract does not run it.
Extract also finds one itself: a task that got no candidate at all (the reason is the first
condition of its rule that no sentence meets, :func:`xprobe.tasks.explain.explain_all`; or no
sentence passes the length window), one whose candidates all carry one label, and, with
``--allow-partial``, one shrunk so far that a split asked for holds fewer lines than classes.
Such a task gets no file; its manifest entry
says ``"applicable": false`` with the ``reason``, its ``kind`` and who decided (``"profile"`` or
``"extract"``), and ``extract --check``, the probe and the report carry it on. Never an empty
file, a chance-level number or a silently missing column.

The kind (:data:`xprobe.languages.NA_KINDS`) says what the reason is about: ``language`` (a
person declared it in a reviewed profile), ``annotation`` (the corpus never has what the rule
reads: a feature's values, a relation; extract's explanation stops at that first condition,
:func:`xprobe.tasks.explain.explain_with_kinds`) or ``corpus`` (too few candidates: none in the
window, one label only, shrunk too far). A profile's declaration carries its own kind.

Example manifest entry::

    "past_present": {"task": "Tense", "applicable": false, "kind": "language",
                     "decided_by": "profile", "reason": "no morphological tense in UD Chinese-GSD"}
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from xprobe.errors import XProbeError
from xprobe.extract.plan import FLEX
from xprobe.extract.select import TaskResult
from xprobe.languages import NA_KINDS, LanguageProfile
from xprobe.protocol import cv_shortfall
from xprobe.tasks import TASKS, TaskSpec
from xprobe.tasks.explain import explain_with_kinds, single_label
from xprobe.ud import Sentence

__all__ = [
    "ANNOTATION",
    "CORPUS",
    "LANGUAGE",
    "below_cv_floor",
    "below_min_test",
    "declared",
    "declared_kinds",
    "detect",
    "detect_kinds",
    "na_entry",
    "raise_undeclared",
    "too_small",
]

log = logging.getLogger(__name__)

LANGUAGE, ANNOTATION, CORPUS = NA_KINDS


def declared(profile: LanguageProfile, specs: Sequence[TaskSpec]) -> dict[str, str]:
    """``{file: reason}`` for the chosen tasks the profile declares not applicable; a declared
    name that is no task is an error (a typo would silently run the task)."""
    files = {s.file for s in TASKS.values()} | {s.file for s in specs}
    bad = sorted(set(profile.not_applicable) - files)
    if bad:
        raise XProbeError(
            f"{profile.path or profile.code}: [tasks.{bad[0]}] is not a task; valid: "
            + ", ".join(sorted(files))
        )
    chosen = {s.file for s in specs}
    return {f: r for f, r in profile.not_applicable.items() if f in chosen}


def declared_kinds(profile: LanguageProfile) -> dict[str, str]:
    """``{file: kind}`` of the profile's declarations (``language`` where the table gives none)."""
    return {f: profile.na_kinds.get(f, LANGUAGE) for f in profile.not_applicable}


def _labels_pooled(res: TaskResult) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for (_, label, _), pool in res.run.pools.items():
        counts[label] += len(pool.heap)
    return {lab: counts[lab] for lab in res.run.labels}


def detect(
    results: list[TaskResult],
    sentences: Iterator[Sentence] | None,
    window: tuple[int, int],
    kept: int,
    allow_partial: bool,
) -> dict[str, str]:
    """``{file: reason}`` for the tasks that found nothing they could write
    (:func:`detect_kinds` without the kinds)."""
    found = detect_kinds(results, sentences, window, kept, allow_partial)
    return {f: reason for f, (reason, _) in found.items()}


def detect_kinds(
    results: list[TaskResult],
    sentences: Iterator[Sentence] | None,
    window: tuple[int, int],
    kept: int,
    allow_partial: bool,
) -> dict[str, tuple[str, str]]:
    """``{file: (reason, kind)}`` for the tasks that found nothing they could write.

    ``sentences``: the sentences of the window (read only when some task has no candidate);
    ``kept``: how many there are. No candidate because the corpus never has what the rule
    reads is of kind ``annotation``; any other (no sentence in the window, one label only,
    shrunk too far) of kind ``corpus``."""
    where = f"the {kept} sentences of {window[0]}..{window[1]} tokens"
    out: dict[str, tuple[str, str]] = {}
    empty = [r for r in results if r.run.eligible == 0]
    if empty and kept == 0:
        for r in empty:
            why = f"no sentence of the corpus has {window[0]}..{window[1]} tokens"
            out[r.run.spec.file] = (why, CORPUS)
    elif empty and sentences is not None:
        found = explain_with_kinds([(r.run.spec, r.run.ctx) for r in empty], sentences, where)
        out.update({r.run.spec.file: why for r, why in zip(empty, found, strict=True)})
    for r in results:
        f = r.run.spec.file
        if f in out:
            continue
        if not r.run.flexible and FLEX not in r.run.labels:
            reason = single_label(r.run.spec, _labels_pooled(r))
            if reason is not None:
                params = r.run.ctx.params
                if hasattr(params, "min_freq"):  # the window may be what kept one label out
                    reason += f" (forms counted {params.min_freq}..{params.max_freq} times only)"
                out[f] = (reason, CORPUS)
                continue
    if allow_partial:
        out.update({f: (why, CORPUS) for f, why in too_small(results, out).items()})
    for f, (reason, kind) in out.items():
        log.warning("%s: not applicable to this corpus (%s): %s", f, kind, reason)
    return out


def too_small(results: list[TaskResult], skip: Iterable[str] = ()) -> dict[str, str]:
    """``{file: reason}`` for the partial tasks (but those in ``skip``) shrunk so far that a
    split asked for holds fewer lines than classes; with ``--allow-partial`` they do not apply.
    Needs only the results (no corpus), so a run in rounds decides it when it writes."""
    skip = set(skip)
    out: dict[str, str] = {}
    for r in results:
        f = r.run.spec.file
        reason = _too_small(r) if r.partial and f not in skip else None
        if reason is not None:
            out[f] = reason
    return out


def _too_small(res: TaskResult) -> str | None:
    """A shrunk task with a split asked for that holds fewer lines than classes (empty, or one
    class only): no balanced set can be measured on it."""
    k = len(res.run.labels)
    strata = any(st for (_, _, st) in res.run.pools)
    how = ", every class as often in each stratum" if strata and not res.run.spec.strata else ""
    for split, n, picked in zip(("tr", "va", "te"), res.run.sizes, res.picked, strict=True):
        if n and len(picked) < k:
            return (
                f"the corpus is too small: {res.run.eligible} candidates leave {len(picked)} "
                f"line(s) for {k} classes in {split} ({n} asked{how})"
            )
    return None


def below_min_test(
    results: list[TaskResult], min_test: int, ratio: Sequence[int], skip: Iterable[str] = ()
) -> dict[str, str]:
    """Treebank mode (:mod:`xprobe.extract.treebank`): ``{file: reason}`` for the tasks (but
    those in ``skip``) whose test split holds fewer than ``min_test`` lines or fewer than two per
    class, or another split of ``ratio`` fewer than two per class. Kind ``corpus``, like
    :func:`too_small`: the treebank, not the language, is too small."""
    skip = set(skip)
    out: dict[str, str] = {}
    for r in results:
        f = r.run.spec.file
        k = len(r.run.labels)
        got = [len(p) for p in r.picked]
        if f in skip:
            continue
        if got[2] < max(min_test, 2 * k):
            why = f"fewer than --min-test {min_test}"
            if 2 * k > min_test:
                why = f"fewer than two per class for {k} classes ({2 * k})"
            lines = "line" if got[2] == 1 else "lines"
            out[f] = f"{_balanced_lines(r, ratio)}: test would hold {got[2]} {lines}, {why}"
            continue
        for split, share, n in zip(("tr", "va"), ratio, got, strict=False):
            if share and n < 2 * k:
                out[f] = (
                    f"{_balanced_lines(r, ratio)}: {split} would hold {n} lines, fewer than "
                    f"two per class for {k} classes"
                )
                break
    return out


def below_cv_floor(
    results: list[TaskResult], folds: int, ratio: Sequence[int], skip: Iterable[str] = ()
) -> dict[str, str]:
    """Treebank mode under ``cv:folds`` (every line scored once): ``{file: reason}`` for the
    tasks (but those in ``skip``) whose balanced lines fall short of the cross-validation floor
    (:func:`xprobe.protocol.cv_shortfall`), the reason in numbers: the candidates, the balanced
    lines and what would fill the task. Kind ``corpus``."""
    skip = set(skip)
    out: dict[str, str] = {}
    for r in results:
        if r.run.spec.file in skip:
            continue
        per_class = Counter(p[0] for split in r.picked for p in split)
        short = cv_shortfall({lab: per_class[lab] for lab in r.run.labels}, folds)
        if short is not None:
            out[r.run.spec.file] = f"{_balanced_lines(r, ratio)}: {short}"
    return out


def _balanced_lines(res: TaskResult, ratio: Sequence[int]) -> str:
    got = [len(p) for p in res.picked]
    return (
        f"the corpus is too small: {res.run.eligible} candidate"
        f"{'' if res.run.eligible == 1 else 's'} give{'s' if res.run.eligible == 1 else ''} "
        f"{sum(got)} balanced line{'' if sum(got) == 1 else 's'} "
        f"({'/'.join(map(str, got))} at {'/'.join(map(str, ratio))})"
    )


def na_entry(
    spec: TaskSpec,
    reason: str,
    decided_by: str,
    params: dict[str, Any] | None = None,
    kind: str | None = None,
) -> dict[str, Any]:
    """The manifest entry of a task that does not apply (``params``: those it ran with, when
    extract found it empty). ``kind``: :data:`xprobe.languages.NA_KINDS`; None takes
    ``language`` for a profile's declaration and ``corpus`` for what extract found."""
    if kind is None:
        kind = LANGUAGE if decided_by == "profile" else CORPUS
    if kind not in NA_KINDS:
        raise ValueError(f"kind must be one of {', '.join(NA_KINDS)}, got {kind!r}")
    entry: dict[str, Any] = {
        "task": spec.name,
        "applicable": False,
        "kind": kind,
        "reason": reason,
        "decided_by": decided_by,
        "file": None,
        "lines": 0,
    }
    if params is not None:
        entry["params"] = params
    return entry


def raise_undeclared(found: dict[str, str], profile: LanguageProfile, allow_partial: bool) -> None:
    """Without ``--allow-partial``, a task found not to apply that the profile did not declare
    is an error: the profile should say so (or the corpus is not what was meant)."""
    if not found or allow_partial:
        return
    lines = " | ".join(f"{f}: {r}" for f, r in sorted(found.items()))
    first = sorted(found)[0]
    raise XProbeError(
        f"task(s) with nothing to write for {profile.path or profile.code}: {lines}. Declare "
        f'it in the profile ([tasks.{first}] applicable = false, reason = "...", kind = '
        '"annotation" when the treebank does not annotate what the rule reads, "corpus" when '
        'the corpus is too small, "language" when the language has no such category) or use '
        "--allow-partial to record it as n/a"
    )

"""Tense: whether the main clause's finite verb is in the past (``PAST``) or present (``PRES``).

Rule ``finite`` (the default; docs TASKS.md, SentEval's "VBD is past, VBP/VBZ present"): the
label is the tense of the main clause's **finite** verb, so a participle never decides it.

* The root, when it is finite and its ``Tense`` feature has one of the profile's ``tense_past`` /
  ``tense_pres`` values. *Finite* means the profile's ``finite_feature`` (``VerbForm=Fin``) or
  no ``VerbForm`` feature at all (Turkish finite verbs carry none; participles, converbs and
  verbal nouns do).
* Otherwise the root's one finite ``aux``/``cop`` dependent (``profile.aux_rels``, subtypes
  such as ``aux:pass`` and ``aux:tense`` count) that has such a value; none, or several, and the
  sentence is not used.

So the same construction gets the same label in every language: "The city is located in Germany",
"has eaten", "a mangé", "hat gegessen" and "wird gebaut" are ``PRES``; "was built" and "ate"
are ``PAST``; "can be given" (a modal without ``Tense``) gets no label.

Rule ``root`` reproduces X-Probe's released sets and is never the default: the root's own
``Tense`` first, participles included ("has *eaten*" and "a *mangé*" are ``PAST``, while German
participles carry no ``Tense`` and "hat gegessen" falls back to ``PRES``), then the finite
``aux``/``cop`` dependent as above.

The lexical key is the labelling verb's surface form **as written** (the multiword token's form
when the verb is inside one, e.g. Spanish ``dámelo``). Its corpus count (``ctx.stats.forms``)
must lie in ``[min_freq, max_freq]``; the extractor puts each key, case-folded, in one split only.

Rule ``marker``, for a language whose treebank marks the past with an auxiliary word rather
than a ``Tense`` feature (UD Japanese-GSD: the auxiliary た, no features at all): the root must be
a verb (``profile.verb_upos``); the sentence is ``PAST`` when the root has an ``aux``/``cop``
dependent (``profile.aux_rels``) whose lemma is one of ``past_markers``, ``PRES`` (non-past)
otherwise. The key is the root's surface form. A profile selects it with
``[tasks.past_present] rule = "marker"`` and ``past_markers = ["た"]``. Example:
"彼 は 本 を 読ん だ 。" (読ん: VERB, root; だ: AUX, lemma た, aux) is ``PAST`` with key
``読ん``; "彼 は 本 を 読む 。" is ``PRES`` with key ``読む``.

Example: "The committee approved the plan ." -> ``PAST`` with key ``approved``;
"The plan has been approved ." -> ``PRES`` with key ``has``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from xprobe.errors import XProbeError
from xprobe.languages import LanguageProfile
from xprobe.tasks.base import Candidate, Context, TaskSpec, Variant
from xprobe.tasks.common import base_rel, check_window, in_window, root_id, surface_form
from xprobe.ud import Sentence, Word

RULES = ("finite", "root", "marker")


@dataclass(frozen=True)
class Params:
    min_freq: int = 100  # corpus count of the labelling verb's form, inclusive
    max_freq: int = 5000
    rule: str = "finite"  # "finite" (SentEval's, the default) or "root" (X-Probe's literal rule)
    # the window per million corpus tokens instead (> 0: replaces min_freq / max_freq; for
    # corpora far from Wikipedia size, see docs/tasks.md)
    min_per_million: float = 0.0
    max_per_million: float = 0.0
    # the corpus size (surface tokens) min_freq..max_freq were written for: below it, windows
    # "auto" scales them to per-million bounds (xprobe/extract/windows.py)
    windows_tokens: int = 20_000_000
    # rule "marker": lemmas of the auxiliary words that mark the past (Japanese: ["た"])
    past_markers: tuple[str, ...] = ()


def prepare(ctx: Context) -> None:
    check_window("Tense", ctx.params.min_freq, ctx.params.max_freq)
    if ctx.params.rule not in RULES:
        raise XProbeError(f"Tense: rule must be one of {', '.join(RULES)}, got {ctx.params.rule!r}")
    if ctx.params.rule == "marker" and not ctx.params.past_markers:
        raise XProbeError('Tense: rule "marker" needs past_markers (e.g. ["た"])')


def _marker(sentence: Sentence, ctx: Context) -> tuple[Word, str] | None:
    """Rule ``marker``: a verbal root, PAST when a past-marking auxiliary hangs on it."""
    head = root_id(sentence)
    root = sentence.words[head - 1]
    p = ctx.profile
    if root.upos not in p.verb_upos:
        return None
    markers = ctx.params.past_markers
    past = any(
        w.head == head and base_rel(w.deprel) in p.aux_rels and w.lemma in markers
        for w in sentence.words
    )
    return root, "PAST" if past else "PRES"


def _tense(word: Word, ctx: Context) -> str | None:
    p = ctx.profile
    value = word.feat(p.tense_feature)
    if value is None:
        return None
    if value in p.tense_past:
        return "PAST"
    if value in p.tense_pres:
        return "PRES"
    return None


def is_finite(word: Word, profile: LanguageProfile) -> bool:
    """Whether a word is finite: ``VerbForm=Fin`` (the profile's ``finite_feature``), or no
    ``VerbForm`` at all."""
    name, _, value = profile.finite_feature.partition("=")
    got = word.feat(name)
    return got is None or got == value


def main_verb(sentence: Sentence, ctx: Context) -> tuple[Word, str] | None:
    """The word that carries the sentence's tense and its label, or None."""
    if ctx.params.rule == "marker":
        return _marker(sentence, ctx)
    head = root_id(sentence)
    root = sentence.words[head - 1]
    p = ctx.profile
    if ctx.params.rule == "root" or is_finite(root, p):
        label = _tense(root, ctx)
        if label is not None:
            return root, label
    found: tuple[Word, str] | None = None
    for w in sentence.words:
        if w.head != head or base_rel(w.deprel) not in p.aux_rels:
            continue
        if not is_finite(w, p):
            continue
        label = _tense(w, ctx)
        if label is None:
            continue
        if found is not None:
            return None  # two tensed finite auxiliaries: ambiguous
        found = (w, label)
    return found


def candidate(sentence: Sentence, ctx: Context, rng: random.Random) -> Candidate | None:
    found = main_verb(sentence, ctx)
    if found is None:
        return None
    word, label = found
    form = surface_form(sentence, word.id - 1)
    if not in_window(ctx.stats.forms.get(form, 0), ctx.params.min_freq, ctx.params.max_freq):
        return None
    return Candidate((Variant(label, sentence.tokens, key=form),))


TASK = TaskSpec(
    name="Tense",
    file="past_present",
    labels=("PAST", "PRES"),
    params=Params,
    candidate=candidate,
    prepare=prepare,
    description="tense of the main clause's finite verb (past or present)",
)

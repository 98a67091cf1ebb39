"""Tense: whether the main verb is in the past (``PAST``) or the present (``PRES``).

Rule (docs TASKS.md): the *main verb* is the root when its ``Tense`` feature has one of the
profile's ``tense_past`` / ``tense_pres`` values; otherwise it is the root's one finite
(``VerbForm=Fin``) ``aux``/``cop`` dependent that has such a value (none, or several, and the
sentence is not used). The feature is read as annotated: a root participle with ``Tense=Past``
("has *eaten*") labels the sentence ``PAST``.

The lexical key is the main verb's surface form **as written** (case kept; the multiword token's
form when the verb is inside one, e.g. Spanish ``dámelo``). That same form's corpus count
(``ctx.stats.forms``) must lie in ``[min_freq, max_freq]``, and the extractor puts each key in
one split only.

Example: "The committee approved the plan ." -> ``PAST`` with key ``approved``;
"The plan is good ." (root ``good``, ``cop`` is ``is``) -> ``PRES`` with key ``is``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from xprobe.tasks.base import Candidate, Context, TaskSpec, Variant
from xprobe.tasks.common import base_rel, check_window, in_window, root_id, surface_form
from xprobe.ud import Sentence, Word


@dataclass(frozen=True)
class Params:
    min_freq: int = 100  # corpus count of the main-verb form, inclusive
    max_freq: int = 5000
    # the window per million corpus tokens instead (> 0: replaces min_freq / max_freq; for
    # corpora far from Wikipedia size, see docs/tasks.md)
    min_per_million: float = 0.0
    max_per_million: float = 0.0


def prepare(ctx: Context) -> None:
    check_window("Tense", ctx.params.min_freq, ctx.params.max_freq)


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


def main_verb(sentence: Sentence, ctx: Context) -> tuple[Word, str] | None:
    """The word that carries the sentence's tense and its label, or None."""
    head = root_id(sentence)
    root = sentence.words[head - 1]
    label = _tense(root, ctx)
    if label is not None:
        return root, label
    p = ctx.profile
    found: tuple[Word, str] | None = None
    for w in sentence.words:
        if w.head != head or base_rel(w.deprel) not in p.aux_rels:
            continue
        if p.finite_feature not in w.feats.split("|"):
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
    description="tense of the main verb (past or present)",
)

"""Why a task found no candidate at all: the first of its conditions that no sentence meets.

A task's rule is a chain of conditions (Tense: a word carries a past or present ``Tense``; the
main clause has such a finite verb; its form's corpus count is in the window). When a task gets
no candidate from a corpus, :func:`explain_none` walks the sentences once and counts how many
meet each prefix of the chain; the first condition that none meets is the reason, worded for a
person ("no word has Tense=Past or Tense=Pres in the 694 sentences of 5..28 tokens"). A task
without a chain here gets the generic reason.

:func:`single_label` says when candidates exist but all carry one label (UD Chinese-GSD marks
``Number=Plur`` on five nouns and never ``Number=Sing``): a balanced task then holds nothing.

:func:`explain_with_kinds` also says what kind of reason it is: ``annotation`` when no sentence
meets the first condition of a rule that reads the annotation (:data:`READS_ANNOTATION`: Tense,
SubjNum, ObjNum, CoordInv: the feature's values, the relation), ``corpus`` otherwise.

Example::

    >>> explain_none(get_task("Tense"), ctx, sentences)  # doctest: +SKIP
    'no word has Tense in Past, Pres (the feature never occurs) in 694 sentences of 5..28 tokens'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from xprobe.tasks.base import Context, TaskSpec
from xprobe.tasks.common import base_rel, has_quote, in_window, root_id, surface_form
from xprobe.ud import Sentence

__all__ = ["READS_ANNOTATION", "explain_all", "explain_none", "explain_with_kinds", "single_label"]

Check = tuple[str, Callable[[Sentence, Context], bool]]
# The tasks whose chain starts with what the corpus must annotate for the rule to read it (a
# feature's values, a relation): no sentence meeting that first condition is a gap of the
# annotation (kind "annotation"), any later one a matter of the corpus (kind "corpus").
READS_ANNOTATION = frozenset({"past_present", "subj_number", "obj_number",
                              "coordination_inversion"})  # fmt: skip


def _feature_values(feature: str, values: tuple[str, ...]) -> Callable[[Sentence, Context], bool]:
    def check(s: Sentence, ctx: Context) -> bool:
        return any(w.feat(feature) in values for w in s.words)

    return check


def _tense_checks(ctx: Context) -> list[Check]:
    from xprobe.tasks.past_present import main_verb

    p = ctx.profile
    values = (*p.tense_past, *p.tense_pres)
    lo, hi = ctx.params.min_freq, ctx.params.max_freq

    def in_range(s: Sentence, c: Context) -> bool:
        found = main_verb(s, c)
        if found is None:
            return False
        form = surface_form(s, found[0].id - 1)
        return in_window(c.stats.forms.get(form, 0), lo, hi)

    first: Check = (
        f"no word has {p.tense_feature} in {', '.join(values)} (the feature never occurs)",
        _feature_values(p.tense_feature, values),
    )
    if ctx.params.rule == "marker":
        first = (
            f"no root is a {'/'.join(p.verb_upos)} (rule marker)",
            lambda s, c: s.words[root_id(s) - 1].upos in p.verb_upos,
        )
    elif ctx.params.rule == "listed":
        forms = {f.casefold() for f in (*ctx.params.past_forms, *ctx.params.pres_forms)}
        first = (
            "no word's form is in past_forms or pres_forms (rule listed)",
            lambda s, c: any(w.form.casefold() in forms for w in s.words),
        )
    elif ctx.params.rule == "segment":
        sep, column = ctx.params.segment_separator, ctx.params.segment_column
        first = (
            f"no word's {column} has a segment in past_segments (rule segment)",
            lambda s, c: any(
                set((w.lemma if column == "lemma" else w.xpos).split(sep))
                & set(ctx.params.past_segments)
                for w in s.words
            ),
        )
    return [
        first,
        (
            f"no main clause has a finite verb (or finite {'/'.join(p.aux_rels)}) with a past "
            "or present tense",
            lambda s, c: main_verb(s, c) is not None,
        ),
        (f"no main-clause verb form has a corpus count in [{lo}, {hi}]", in_range),
    ]


def _number_checks(ctx: Context, rel: str) -> list[Check]:
    p = ctx.profile
    values = (*p.number_sing, *p.number_plur)
    lo, hi = ctx.params.min_freq, ctx.params.max_freq

    def deps(s: Sentence) -> list:
        head = root_id(s)
        return [w for w in s.words if w.head == head and base_rel(w.deprel) == rel]

    def noun(s: Sentence, c: Context) -> bool:
        d = deps(s)
        return len(d) == 1 and d[0].upos in p.noun_upos and d[0].feat(p.number_feature) in values

    def counted(s: Sentence, c: Context) -> bool:
        d = deps(s)
        return in_window(c.stats.forms.get(surface_form(s, d[0].id - 1), 0), lo, hi)

    return [
        (
            f"no noun has {p.number_feature} in {', '.join(values)} (the feature never occurs)",
            lambda s, c: any(
                w.upos in p.noun_upos and w.feat(p.number_feature) in values for w in s.words
            ),
        ),
        (f"no root has exactly one {rel} dependent", lambda s, c: len(deps(s)) == 1),
        (
            f"no root's single {rel} dependent is a {'/'.join(p.noun_upos)} with "
            f"{p.number_feature} in {', '.join(values)}",
            noun,
        ),
        (f"no such {rel} form has a corpus count in [{lo}, {hi}]", counted),
    ]


def _coord_checks(ctx: Context) -> list[Check]:
    from xprobe.tasks.coordination_inversion import find_clauses

    p = ctx.profile
    return [
        (
            f"no word has the relation {p.cc_rel}",
            lambda s, c: any(base_rel(w.deprel) == p.cc_rel for w in s.words),
        ),
        (
            "no sentence without quotes coordinates two main clauses (one "
            f"{p.cc_rel}, a {p.conj_rel} of the root with its own {p.subj_rel}, contiguous spans)",
            lambda s, c: (
                not has_quote(" ".join(s.tokens), p.quotes) and find_clauses(s, c) is not None
            ),
        ),
    ]


def _somo_checks(ctx: Context) -> list[Check]:
    index = ctx.data
    tags = "/".join(sorted(index.tags)) if index is not None else "NOUN/VERB"
    lo, hi = ctx.params.min_freq, ctx.params.max_freq
    return [
        (
            f"no {tags} token inside a sentence has a corpus count in [{lo}, {hi}]",
            lambda s, c: any(c.data is not None and t in c.data.in_window for t in s.tokens[1:-1]),
        ),
        ("no target has a replacement with bigram counts within the tolerance", _never),
    ]


def _wc_checks(ctx: Context) -> list[Check]:
    p = ctx.params
    labels = ctx.data.labels if ctx.data is not None else ()
    return [
        (
            f"no target words: the vocabulary has no alphabetic type of >= {p.min_length} "
            f"characters from rank {p.first_rank} on",
            lambda s, c: bool(labels),
        ),
        ("no sentence holds exactly one target word", _never),
    ]


def _never(s: Sentence, ctx: Context) -> bool:
    return False


def _checks(spec: TaskSpec, ctx: Context) -> list[Check]:
    p = ctx.profile
    if spec.file == "past_present":
        return _tense_checks(ctx)
    if spec.file == "subj_number":
        return _number_checks(ctx, p.subj_rel)
    if spec.file == "obj_number":
        return _number_checks(ctx, p.obj_rel)
    if spec.file == "coordination_inversion":
        return _coord_checks(ctx)
    if spec.file == "odd_man_out":
        return _somo_checks(ctx)
    if spec.file == "word_content":
        return _wc_checks(ctx)
    return []


def explain_none(spec: TaskSpec, ctx: Context, sentences: Iterable[Sentence], where: str) -> str:
    """Why ``spec`` found no candidate among ``sentences`` (described by ``where``, e.g. "the
    694 sentences of 5..28 tokens"): the first condition of its rule that no sentence meets."""
    return explain_all([(spec, ctx)], sentences, where)[0]


def explain_all(
    tasks: Sequence[tuple[TaskSpec, Context]], sentences: Iterable[Sentence], where: str
) -> list[str]:
    """:func:`explain_none` for several tasks in one pass over ``sentences`` (streamed: a
    corpus of millions of sentences is never held in memory)."""
    return [reason for reason, _ in explain_with_kinds(tasks, sentences, where)]


def explain_with_kinds(
    tasks: Sequence[tuple[TaskSpec, Context]], sentences: Iterable[Sentence], where: str
) -> list[tuple[str, str]]:
    """:func:`explain_all` with each reason's kind: ``"annotation"`` when no sentence meets the
    first condition of a task in :data:`READS_ANNOTATION` (the corpus never has what its rule
    reads), else ``"corpus"``."""
    checks = [_checks(spec, ctx) for spec, ctx in tasks]
    passing = [[0] * len(c) for c in checks]
    for s in sentences:
        for (_, ctx), chain, counts in zip(tasks, checks, passing, strict=True):
            for i, (_, check) in enumerate(chain):
                if not check(s, ctx):
                    break
                counts[i] += 1
    out = []
    for (spec, _), chain, counts in zip(tasks, checks, passing, strict=True):
        at = next((i for i, n in enumerate(counts) if n == 0), None)
        first = chain[at][0] if at is not None else f"no sentence passes the rule of {spec.name}"
        kind = "annotation" if at == 0 and spec.file in READS_ANNOTATION else "corpus"
        out.append((f"{first}, in {where}", kind))
    return out


def single_label(spec: TaskSpec, labels: dict[str, int]) -> str | None:
    """The reason a task with candidates can hold no balanced line: one label only, or None."""
    seen = {lab: n for lab, n in labels.items() if n}
    if len(seen) == 1 and len(labels) > 1:
        (lab, n), *_ = seen.items()
        others = ", ".join(x for x in labels if x != lab)
        return f"all {n} candidates are {lab}, none {others}: no balanced set can be built"
    return None

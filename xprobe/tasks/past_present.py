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

Rule ``listed``, for a treebank whose finite auxiliaries mark past against present by their
form alone, share one lemma and carry no ``Tense`` (Basque: past *zuen, zen, zuten, zituen,
ziren* against present *du, da, dute, ditu, dira*): the labelling word is the root or its one
``aux``/``cop`` dependent whose form (case-folded) is in the profile's ``past_forms`` (``PAST``)
or ``pres_forms`` (``PRES``). Both lists are required and nothing else is labelled: a form in
neither list is never guessed to be present. Two listed dependents and the sentence is not used.
The key is that word's surface form. Example (Basque): "Liburua irakurri zuen ." (*zuen*: AUX,
lemma *edun*, no features) is ``PAST`` with key ``zuen``; "Liburua irakurri du ." is ``PRES``
with key ``du``. A profile writes ``rule = "listed"``, ``past_forms = ["zuen", "zen", ...]``,
``pres_forms = ["du", "da", ...]``.

Rule ``segment``, for a treebank that marks the past with a morpheme inside a ``+``-segmented
LEMMA or XPOS (UD Korean-Kaist: LEMMA ``하+었+습니다``, XPOS ``pvg+ep+ef``): the root must be one
of ``root_upos`` (empty: ``profile.verb_upos``) with a segmented ``segment_column`` (``"lemma"``
or ``"xpos"``, split on ``segment_separator``); the sentence is ``PAST`` when the root or one of
its ``aux``/``cop`` dependents has a segment in ``past_segments``, ``PRES`` (non-past)
otherwise, as with ``marker``. With ``segment_tag`` (lemma column only) a lemma segment counts
only where the XPOS segment at the same place is that tag (``ep``, the pre-final ending, which
also holds the honorific 시); a word whose LEMMA and XPOS have different segment counts then
makes the sentence unusable. The key is the root's surface form. Example (Korean): "그는 책을
읽었다 ." (읽었다: VERB, LEMMA ``읽+었+다``, XPOS ``pvg+ep+ef``, root) is ``PAST`` with key
``읽었다``; "그는 책을 읽는다 ." (LEMMA ``읽+는다``, XPOS ``pvg+ef``) is ``PRES``. A profile
writes ``rule = "segment"``, ``past_segments = ["었", "았", "였"]``, ``segment_tag = "ep"``.

Rule ``participle``, for a treebank whose ``Tense`` has a past (and a future) but no present,
the present being a participle (UD Hebrew-HTB: ``Tense=Past|Fut`` on finite verbs, the present
``VerbForm=Part`` without ``Tense``): ``PAST`` (or ``PRES``) exactly as ``finite`` reads it;
otherwise ``PRES`` when the root is a verbal participle (``profile.verb_upos`` with
``participle_feature``, ``VerbForm=Part``) none of whose ``aux``/``cop`` dependents carries a
``Tense``. A future (``Tense=Fut`` on the root or its copula, "יהיה מורכב" "will be composed") is
never labelled. The key is the labelling word's surface form. Example (Hebrew): "אנשים מגיעים
לישראל ." (מגיעים: VERB, ``VerbForm=Part``, root) is ``PRES`` with key ``מגיעים``; "התופעה
התבררה אתמול ." (התבררה: ``Tense=Past``) is ``PAST``; "כלכלתה היתה שקועה במיתון ." (the
participle שקועה with the copula היתה, ``Tense=Past``) is ``PAST`` with key ``היתה``.

Every rule leaves out a sentence whose root or labelling word is in a mood of
``exclude_moods`` (``Mood`` feature; by default imperative, optative, jussive, conditional,
subjunctive, desiderative, necessitative, potential): Turkish "yazmayalım" ("let's not write",
``Mood=Opt|Tense=Pres``) is no present-tense sentence, as SentEval's VBD / VBP-VBZ rule never
sees a mood without tense.

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

RULES = ("finite", "root", "marker", "listed", "segment", "participle")
SEGMENT_COLUMNS = ("lemma", "xpos")
# moods whose sentences are never labelled (Mood feature values, docs/tasks.md)
EXCLUDED_MOODS = ("Imp", "Opt", "Jus", "Cnd", "Sub", "Des", "Nec", "Pot")


@dataclass(frozen=True)
class Params:
    min_freq: int = 100  # corpus count of the labelling verb's form, inclusive
    max_freq: int = 5000
    # "finite" (SentEval's, the default), "root" (X-Probe's literal rule), "marker", "listed",
    # "segment" or "participle" (the module docstring)
    rule: str = "finite"
    # the window per million corpus tokens instead (> 0: replaces min_freq / max_freq; for
    # corpora far from Wikipedia size, see docs/tasks.md)
    min_per_million: float = 0.0
    max_per_million: float = 0.0
    # the corpus size (surface tokens) min_freq..max_freq were written for: below it, windows
    # "auto" scales them to per-million bounds (xprobe/extract/windows.py)
    windows_tokens: int = 20_000_000
    # rule "marker": lemmas of the auxiliary words that mark the past (Japanese: ["た"])
    past_markers: tuple[str, ...] = ()
    # rule "listed": forms of the past and of the present finite auxiliaries (Basque: ["zuen",
    # "zen", ...] and ["du", "da", ...]), compared case-folded; both are required
    past_forms: tuple[str, ...] = ()
    pres_forms: tuple[str, ...] = ()
    # rule "segment": the morphemes that mark the past (Korean: ["었", "았", "였"]), the column
    # they are read from ("lemma" or "xpos"), its separator, the XPOS tag a lemma segment must
    # be aligned with ("ep"; "" for any), and the root's UPOS (empty: profile.verb_upos)
    past_segments: tuple[str, ...] = ()
    segment_column: str = "lemma"
    segment_separator: str = "+"
    segment_tag: str = ""
    root_upos: tuple[str, ...] = ()
    # rule "participle": the feature of a present participle (Hebrew: VerbForm=Part)
    participle_feature: str = "VerbForm=Part"
    # every rule: Mood values whose root or labelling word is never labelled ("yazmayalım",
    # Mood=Opt|Tense=Pres); [] labels every mood
    exclude_moods: tuple[str, ...] = EXCLUDED_MOODS


def prepare(ctx: Context) -> None:
    check_window("Tense", ctx.params.min_freq, ctx.params.max_freq)
    params = ctx.params
    if params.rule not in RULES:
        raise XProbeError(f"Tense: rule must be one of {', '.join(RULES)}, got {params.rule!r}")
    if params.rule == "marker" and not params.past_markers:
        raise XProbeError('Tense: rule "marker" needs past_markers (e.g. ["た"])')
    if params.rule == "listed" and not (params.past_forms and params.pres_forms):
        raise XProbeError(
            'Tense: rule "listed" needs past_forms and pres_forms (e.g. ["zuen", "zen"] and '
            '["du", "da"]): a form in neither list is never labelled'
        )
    if params.rule == "segment":
        if not params.past_segments:
            raise XProbeError('Tense: rule "segment" needs past_segments (e.g. ["었", "았"])')
        if params.segment_column not in SEGMENT_COLUMNS:
            raise XProbeError(
                f"Tense: segment_column must be one of {', '.join(SEGMENT_COLUMNS)}, "
                f"got {params.segment_column!r}"
            )
        if params.segment_tag and params.segment_column != "lemma":
            raise XProbeError('Tense: segment_tag aligns lemma segments: segment_column = "lemma"')
        if not params.segment_separator:
            raise XProbeError("Tense: segment_separator must not be empty")


def _dependents(sentence: Sentence, head: int, ctx: Context) -> list[Word]:
    """The ``aux``/``cop`` dependents of word ``head`` (``profile.aux_rels``)."""
    rels = ctx.profile.aux_rels
    return [w for w in sentence.words if w.head == head and base_rel(w.deprel) in rels]


def _marker(sentence: Sentence, ctx: Context) -> tuple[Word, str] | None:
    """Rule ``marker``: a verbal root, PAST when a past-marking auxiliary hangs on it."""
    head = root_id(sentence)
    root = sentence.words[head - 1]
    if root.upos not in ctx.profile.verb_upos:
        return None
    markers = ctx.params.past_markers
    past = any(w.lemma in markers for w in _dependents(sentence, head, ctx))
    return root, "PAST" if past else "PRES"


def _listed(sentence: Sentence, ctx: Context) -> tuple[Word, str] | None:
    """Rule ``listed``: the root or its one aux/cop dependent whose form is a listed one."""
    past = {f.casefold() for f in ctx.params.past_forms}
    pres = {f.casefold() for f in ctx.params.pres_forms}

    def label(w: Word) -> str | None:
        form = w.form.casefold()
        return "PAST" if form in past else "PRES" if form in pres else None

    head = root_id(sentence)
    root = sentence.words[head - 1]
    if (got := label(root)) is not None:
        return root, got
    found = [(w, lab) for w in _dependents(sentence, head, ctx) if (lab := label(w))]
    return found[0] if len(found) == 1 else None


def _past_segment(word: Word, params: Params) -> bool | None:
    """Whether a word's segmented column holds a past segment; None when it cannot be read
    (lemma and XPOS segments that do not align, with ``segment_tag``)."""
    sep = params.segment_separator
    value = word.lemma if params.segment_column == "lemma" else word.xpos
    parts = value.split(sep)
    if not params.segment_tag:
        return any(p in params.past_segments for p in parts)
    tags = word.xpos.split(sep)
    if len(tags) != len(parts):
        return None
    return any(
        t == params.segment_tag and p in params.past_segments
        for p, t in zip(parts, tags, strict=True)
    )


def _segment(sentence: Sentence, ctx: Context) -> tuple[Word, str] | None:
    """Rule ``segment``: a segmented verbal root, PAST when it or an aux/cop dependent holds a
    past segment."""
    params = ctx.params
    head = root_id(sentence)
    root = sentence.words[head - 1]
    column = root.lemma if params.segment_column == "lemma" else root.xpos
    if root.upos not in (params.root_upos or ctx.profile.verb_upos):
        return None
    if params.segment_separator not in column:
        return None  # not segmented: nothing to read
    past = False
    for w in (root, *_dependents(sentence, head, ctx)):
        got = _past_segment(w, params)
        if got is None:
            return None
        past = past or got
    return root, "PAST" if past else "PRES"


def _participle(sentence: Sentence, ctx: Context) -> tuple[Word, str] | None:
    """Rule ``participle``: the finite rule, else PRES for a verbal participle root with no
    tensed aux/cop."""
    found = _finite(sentence, ctx)
    if found is not None:
        return found
    head = root_id(sentence)
    root = sentence.words[head - 1]
    p = ctx.profile
    name, _, value = ctx.params.participle_feature.partition("=")
    if root.upos not in p.verb_upos or root.feat(name) != value:
        return None
    if root.feat(p.tense_feature) is not None:
        return None
    if any(w.feat(p.tense_feature) is not None for w in _dependents(sentence, head, ctx)):
        return None  # a tensed copula: the future "יהיה מורכב", or an unlisted value
    return root, "PRES"


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


def _finite(sentence: Sentence, ctx: Context) -> tuple[Word, str] | None:
    """Rules ``finite`` and ``root``: the root's Tense, else its one finite tensed aux/cop."""
    head = root_id(sentence)
    root = sentence.words[head - 1]
    p = ctx.profile
    if ctx.params.rule == "root" or is_finite(root, p):
        label = _tense(root, ctx)
        if label is not None:
            return root, label
    found: tuple[Word, str] | None = None
    for w in _dependents(sentence, head, ctx):
        if not is_finite(w, p):
            continue
        label = _tense(w, ctx)
        if label is None:
            continue
        if found is not None:
            return None  # two tensed finite auxiliaries: ambiguous
        found = (w, label)
    return found


_RULES = {"marker": _marker, "listed": _listed, "segment": _segment, "participle": _participle}


def excluded_mood(word: Word, moods: tuple[str, ...]) -> bool:
    """Whether a word's ``Mood`` (one value or several, ``Cnd,Pot``) is one of ``moods``."""
    mood = word.feat("Mood")
    return mood is not None and any(m in moods for m in mood.split(","))


def main_verb(sentence: Sentence, ctx: Context) -> tuple[Word, str] | None:
    """The word that carries the sentence's tense and its label, or None."""
    found = _RULES.get(ctx.params.rule, _finite)(sentence, ctx)
    if found is None:
        return None
    moods = ctx.params.exclude_moods
    if not moods:
        return found
    word = found[0]
    if excluded_mood(word, moods):
        return None  # an imperative, optative, conditional...: no tense of the sentence
    root = sentence.words[root_id(sentence) - 1]
    if root is not word and excluded_mood(root, moods):
        return None
    return found


def _carries_tense(w: Word, ctx: Context) -> bool:
    """Rules ``finite``/``root``: a word whose Tense is labelled, finite (``root``: any), in no
    excluded mood: the labelling word is one, whatever the tree."""
    if _tense(w, ctx) is None or excluded_mood(w, ctx.params.exclude_moods):
        return False
    return ctx.params.rule == "root" or is_finite(w, ctx.profile)


def tag_filter(sentence: Sentence, ctx: Context) -> bool:
    """Tags only, per rule: some word could be the labelling word (the root or its aux/cop)."""
    params, p = ctx.params, ctx.profile
    words = sentence.words
    if params.rule == "marker":
        return any(w.upos in p.verb_upos for w in words)
    if params.rule == "listed":
        listed = {f.casefold() for f in (*params.past_forms, *params.pres_forms)}
        return any(w.form.casefold() in listed for w in words)
    if params.rule == "segment":
        upos = params.root_upos or p.verb_upos
        column = (lambda w: w.lemma) if params.segment_column == "lemma" else (lambda w: w.xpos)
        return any(w.upos in upos and params.segment_separator in column(w) for w in words)
    if any(_carries_tense(w, ctx) for w in words):
        return True
    if params.rule != "participle":
        return False
    name, _, value = params.participle_feature.partition("=")
    return any(
        w.upos in p.verb_upos and w.feat(name) == value and w.feat(p.tense_feature) is None
        for w in words
    )


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
    tag_filter=tag_filter,
    prepare=prepare,
    description="tense of the main clause's finite verb (past or present)",
)

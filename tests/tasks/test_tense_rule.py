"""Tense labels the main clause's finite verb, the same construction the same label everywhere.

Fixtures: ``tests/data/tense_constructions.conllu``, hand-written in the annotation style of the
UD treebanks the profiles are for (EWT, German/French/Spanish/Russian GSD: German and Spanish
participles carry no ``Tense``, French and Russian ones ``Tense=Past``, French perfect
auxiliaries are ``aux:tense``). Expected labels are SentEval's rule worked out by hand: the
finite verb decides, a participle never does.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from functools import cache

import pytest

from tests.conftest import FIXTURES
from xprobe.errors import XProbeError
from xprobe.languages import load_profile, profile_from_dict
from xprobe.tasks import Context, CorpusStats, get_task, resolve_params
from xprobe.ud import Sentence, parse_conllu, read_conllu

SPEC = get_task("Tense")


@cache
def fixtures() -> dict[str, Sentence]:
    return {s.comment("sent_id"): s for s in read_conllu(FIXTURES / "tense_constructions.conllu")}


def ctx_for(profile, sentences, **overrides: object) -> Context:
    forms = Counter({t: 200 for s in sentences for t in s.tokens})
    ctx = Context(profile, resolve_params(SPEC, profile, overrides), CorpusStats(forms=forms))
    return dataclasses.replace(ctx, data=SPEC.prepare(ctx))


def label(sid: str, **overrides: object) -> tuple[str, str] | None:
    s = fixtures()[sid]
    ctx = ctx_for(load_profile(sid.split("-")[0]), fixtures().values(), **overrides)
    c = SPEC.candidate(s, ctx, random.Random(0))
    return None if c is None else (c.variants[0].label, c.variants[0].key)


# construction -> (expected label, {language: the finite verb, i.e. the key}). Russian has no
# perfect (English "has eaten" is rendered by a perfective past, "съела", a simple past).
CONSTRUCTIONS = {
    "perfect": ("PRES", {"en": "has", "de": "hat", "fr": "a", "es": "ha"}),
    "passive": ("PRES", {"en": "is", "de": "wird", "fr": "est", "es": "es", "ru": "строится"}),
    "passive-past": ("PAST", {"en": "was", "de": "wurde", "fr": "fut", "es": "fue", "ru": "был"}),
    "past": ("PAST", {"en": "ate", "de": "aß", "fr": "trouva", "es": "comió", "ru": "съела"}),
}


@pytest.mark.parametrize("construction", list(CONSTRUCTIONS))
def test_same_construction_same_label_in_every_language(construction: str) -> None:
    want, keys = CONSTRUCTIONS[construction]
    got = {lang: label(f"{lang}-{construction}") for lang in keys}
    assert got == {lang: (want, key) for lang, key in keys.items()}


def test_participle_root_does_not_decide() -> None:
    # the examples: a present-tense finite auxiliary over a Tense=Past participle
    assert label("en-located") == ("PRES", "is")
    assert label("fr-perfect") == ("PRES", "a")
    # "can be given": the modal has no Tense and "be" is not finite: no finite tensed verb
    assert label("en-modal") is None
    # Russian short passive participle without a copula: no finite verb at all
    assert label("ru-passive-short") is None


def test_root_rule_reproduces_xprobe() -> None:
    # X-Probe's literal rule: the root's own Tense first, participles included; German and
    # Spanish participles carry no Tense, so there the auxiliary still decides
    assert label("en-perfect", rule="root") == ("PAST", "eaten")
    assert label("en-located", rule="root") == ("PAST", "located")
    assert label("en-modal", rule="root") == ("PAST", "given")
    assert label("fr-perfect", rule="root") == ("PAST", "trouvé")
    assert label("ru-passive-short", rule="root") == ("PAST", "построен")
    assert label("de-perfect", rule="root") == ("PRES", "hat")
    assert label("es-passive", rule="root") == ("PRES", "es")
    assert label("en-past", rule="root") == ("PAST", "ate")


def test_root_rule_from_a_profile_and_bad_rule_is_an_error() -> None:
    data = {"code": "en", "name": "English", "tasks": {"past_present": {"rule": "root"}}}
    profile = profile_from_dict(data)
    s = fixtures()["en-perfect"]
    c = SPEC.candidate(s, ctx_for(profile, [s]), random.Random(0))
    assert c is not None and c.variants[0].label == "PAST"
    with pytest.raises(XProbeError, match="Tense: rule must be one of finite, root"):
        ctx_for(load_profile("en"), [s], rule="future")


TURKISH = (
    "1\tAli\tAli\tPROPN\t_\tCase=Nom|Number=Sing|Person=3\t3\tnsubj\t_\t_\n"
    "2\teve\tev\tNOUN\t_\tCase=Dat|Number=Sing|Person=3\t3\tobl\t_\t_\n"
    "3\t{verb}\t{lemma}\tVERB\t_\t{feats}\t0\troot\t_\t_\n"
    "4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_\n"
)


@pytest.mark.parametrize(
    ("verb", "feats", "want"),
    [
        # finite verbs carry no VerbForm in the Turkish treebanks
        ("geldi", "Aspect=Perf|Mood=Ind|Number=Sing|Person=3|Polarity=Pos|Tense=Past", "PAST"),
        ("geliyor", "Aspect=Prog|Mood=Ind|Number=Sing|Person=3|Polarity=Pos|Tense=Pres", "PRES"),
        # a participle does: not finite
        ("gelen", "Aspect=Perf|Mood=Ind|Polarity=Pos|Tense=Past|VerbForm=Part", None),
    ],
)
def test_finite_verbs_without_verbform(verb: str, feats: str, want: str | None) -> None:
    s = next(parse_conllu(TURKISH.format(verb=verb, lemma="gel", feats=feats)))
    profile = profile_from_dict({"code": "tr", "name": "Turkish"})
    c = SPEC.candidate(s, ctx_for(profile, [s]), random.Random(0))
    assert (c.variants[0].label if c else None) == want


@pytest.mark.parametrize(
    ("verb", "lemma", "feats"),
    [
        # "yazmayalım" (let's not write): an optative the treebank marks Tense=Pres
        ("yazmayalım", "yaz", "Aspect=Perf|Mood=Opt|Number=Plur|Person=1|Polarity=Neg|Tense=Pres"),
        # "gel" (come!): an imperative marked Tense=Pres
        ("gel", "gel", "Aspect=Perf|Mood=Imp|Number=Sing|Person=2|Polarity=Pos|Tense=Pres"),
        # "gelse" (if (s)he came): a conditional
        ("gelse", "gel", "Aspect=Perf|Mood=Cnd|Number=Sing|Person=3|Polarity=Pos|Tense=Pres"),
    ],
)
def test_moods_without_tense_are_not_present_sentences(verb: str, lemma: str, feats: str) -> None:
    s = next(parse_conllu(TURKISH.format(verb=verb, lemma=lemma, feats=feats)))
    profile = profile_from_dict({"code": "tr", "name": "Turkish"})
    assert SPEC.candidate(s, ctx_for(profile, [s]), random.Random(0)) is None
    # a profile that wants every mood labelled says so
    c = SPEC.candidate(s, ctx_for(profile, [s], exclude_moods=[]), random.Random(0))
    assert c is not None and c.variants[0].label == "PRES"

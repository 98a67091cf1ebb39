"""Tense rules that read the past outside a ``Pres``/``Past`` Tense feature: ``listed`` (the
forms of finite auxiliaries, Basque), ``segment`` (a morpheme of a ``+``-segmented LEMMA or XPOS,
Korean) and ``participle`` (a present participle root, Hebrew), each selected by a profile.

Fixtures: ``tests/data/tense_annotation.conllu``, hand-written in the style of UD Basque-BDT,
Korean-Kaist and Hebrew-HTB. Every expected label below is worked out by hand from the rule in
the module docstring of ``xprobe/tasks/past_present.py``.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from functools import cache
from typing import Any

import pytest

from tests.conftest import FIXTURES
from xprobe.errors import XProbeError
from xprobe.languages import load_profile, profile_from_dict
from xprobe.tasks import Context, CorpusStats, get_task, resolve_params
from xprobe.ud import Sentence, read_conllu

SPEC = get_task("Tense")
BASQUE = {
    "rule": "listed",
    "past_forms": ["zuen", "zen", "zuten", "zituen", "ziren"],
    "pres_forms": ["du", "da", "dute", "ditu", "dira"],
}
KOREAN = {"rule": "segment", "past_segments": ["었", "았", "였"], "segment_tag": "ep"}


@cache
def fixtures() -> dict[str, Sentence]:
    return {s.comment("sent_id"): s for s in read_conllu(FIXTURES / "tense_annotation.conllu")}


def label(sid: str, profile: Any = None, **tense: Any) -> tuple[str, str] | None:
    if profile is None:
        data = {"code": sid[:2], "name": sid[:2], "tasks": {"past_present": tense}}
        profile = profile_from_dict(data)
    s = fixtures()[sid]
    forms = Counter({t: 3 for t in s.tokens})
    ctx = Context(profile, resolve_params(SPEC, profile), CorpusStats(forms=forms))
    params = dataclasses.replace(ctx.params, min_freq=1, max_freq=10)
    ctx = dataclasses.replace(ctx, params=params)
    ctx = dataclasses.replace(ctx, data=SPEC.prepare(ctx))
    c = SPEC.candidate(s, ctx, random.Random(0))
    return None if c is None else (c.variants[0].label, c.variants[0].key)


@pytest.mark.parametrize(
    ("sid", "want"),
    [
        ("eu-past", ("PAST", "zuen")),  # irakurri zuen "read (past)": the listed past aux
        ("eu-pres", ("PRES", "du")),  # irakurri du "has read": a listed present aux
        ("eu-unlisted", None),  # dezake "can": in neither list, never guessed
        ("eu-root", ("PAST", "zen")),  # Etxean zen "(s)he was at home": the root itself
    ],
)
def test_listed_forms_of_finite_auxiliaries(sid: str, want: object) -> None:
    assert label(sid, **BASQUE) == want
    # the default rule reads Tense, which these auxiliaries do not carry
    assert label(sid) is None


def test_listed_needs_both_lists() -> None:
    with pytest.raises(XProbeError, match='rule "listed" needs past_forms and pres_forms'):
        label("eu-past", rule="listed", past_forms=["zuen"])


@pytest.mark.parametrize(
    ("sid", "want"),
    [
        ("ko-past", ("PAST", "읽었다")),  # 읽+었+다 / pvg+ep+ef
        ("ko-pres", ("PRES", "읽는다")),  # 읽+는다: no past segment, non-past
        ("ko-aux-past", ("PAST", "읽고")),  # 읽고 있었다 "was reading": the past is on the aux
        ("ko-honorific", ("PRES", "읽으신다")),  # the ep segment 으시 is honorific, not past
        ("ko-misaligned", None),  # 3 lemma segments, 2 XPOS segments: not read
        ("ko-noun-root", None),  # 학생이었다 "was a student": the root is no verb
        ("ko-unsegmented", None),  # nothing segmented to read
    ],
)
def test_segment_in_the_lemma_aligned_with_xpos(sid: str, want: object) -> None:
    assert label(sid, **KOREAN) == want
    assert label(sid) is None  # no Tense feature at all


def test_segment_without_tag_and_in_the_xpos_column() -> None:
    lemma_only = {"rule": "segment", "past_segments": ["었", "았", "였"]}
    assert label("ko-misaligned", **lemma_only) == ("PAST", "읽었다")
    xpos = {"rule": "segment", "past_segments": ["ep"], "segment_column": "xpos"}
    assert label("ko-past", **xpos) == ("PAST", "읽었다")
    assert label("ko-pres", **xpos) == ("PRES", "읽는다")
    # and why the tag is aligned with the lemma: the XPOS alone takes an honorific for a past
    assert label("ko-honorific", **xpos) == ("PAST", "읽으신다")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"rule": "segment"}, "needs past_segments"),
        ({**KOREAN, "segment_column": "form"}, "segment_column must be one of lemma, xpos"),
        ({**KOREAN, "segment_column": "xpos"}, "segment_tag aligns lemma segments"),
    ],
)
def test_segment_parameters_are_checked(params: dict[str, Any], message: str) -> None:
    with pytest.raises(XProbeError, match=message):
        label("ko-past", **params)


@pytest.mark.parametrize(
    ("sid", "want"),
    [
        ("he-pres", ("PRES", "מגיעים")),  # participle root: the present
        ("he-past", ("PAST", "התבררה")),  # Tense=Past on the finite root
        ("he-cop-past", ("PAST", "היתה")),  # participle with a past copula: "was sunk"
        ("he-cop-fut", None),  # participle with a future copula: "will be composed"
        ("he-fut", None),  # Tense=Fut: never labelled
        ("he-neg-cop", ("PRES", "מוגבל")),  # אינו (VerbForm=Part, no Tense) "is not limited"
        ("he-nominal", None),  # a nominal sentence: no verb to read
    ],
)
def test_the_hebrew_profile_reads_the_present_from_participles(sid: str, want: object) -> None:
    he = load_profile("he")
    assert he.tasks["past_present"]["rule"] == "participle"
    assert label(sid, he) == want
    # the finite rule alone labels the past only: no balanced set can be built
    finite = {"PAST": want} if want and want[0] == "PAST" else {}
    assert label(sid, rule="finite") == finite.get("PAST")

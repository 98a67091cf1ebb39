"""Tense rule ``marker``: the past read from an auxiliary word (Japanese た), selected by a
profile, with the docstring's example sentences written in UD Japanese-GSD's style."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from xprobe.errors import XProbeError
from xprobe.languages import load_profile
from xprobe.tasks import Context, CorpusStats, get_task, resolve_params
from xprobe.ud import parse_conllu

SPEC = get_task("Tense")
PAST = """# sent_id = past
1\t彼\t彼\tPRON\t_\t_\t5\tnsubj\t_\t_
2\tは\tは\tADP\t_\t_\t1\tcase\t_\t_
3\t本\t本\tNOUN\t_\t_\t5\tobj\t_\t_
4\tを\tを\tADP\t_\t_\t3\tcase\t_\t_
5\t読ん\t読む\tVERB\t_\t_\t0\troot\t_\t_
6\tだ\tた\tAUX\t_\t_\t5\taux\t_\t_
7\t。\t。\tPUNCT\t_\t_\t5\tpunct\t_\t_

"""
PRES = """# sent_id = pres
1\t彼\t彼\tPRON\t_\t_\t5\tnsubj\t_\t_
2\tは\tは\tADP\t_\t_\t1\tcase\t_\t_
3\t本\t本\tNOUN\t_\t_\t5\tobj\t_\t_
4\tを\tを\tADP\t_\t_\t3\tcase\t_\t_
5\t読む\t読む\tVERB\t_\t_\t0\troot\t_\t_
6\t。\t。\tPUNCT\t_\t_\t5\tpunct\t_\t_

"""
NOUN_ROOT = PRES.replace("VERB", "NOUN")


def _label(text: str, **overrides: object):
    profile = load_profile("ja")
    s = next(parse_conllu(text))
    ctx = Context(profile, resolve_params(SPEC, profile, overrides),
                  CorpusStats(forms=Counter({t: 3 for t in s.tokens})))  # fmt: skip
    ctx = dataclasses.replace(ctx, data=SPEC.prepare(ctx), params=dataclasses.replace(
        ctx.params, min_freq=1, max_freq=10))  # fmt: skip
    c = SPEC.candidate(s, ctx, random.Random(0))
    return None if c is None else (c.variants[0].label, c.variants[0].key)


def test_the_profile_selects_the_marker_rule() -> None:
    assert _label(PAST) == ("PAST", "読ん")
    assert _label(PRES) == ("PRES", "読む")
    assert _label(NOUN_ROOT) is None  # only a verbal root is labelled
    # the default rule reads Tense features, which Japanese-GSD has none of
    assert _label(PAST, rule="finite") is None


def test_marker_rule_needs_its_markers() -> None:
    with pytest.raises(XProbeError, match="past_markers"):
        _label(PAST, past_markers=())

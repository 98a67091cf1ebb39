"""Tense as two of the newer shipped profiles define it, on sentences written in their treebanks'
style: the Irish copula (UD Irish-IDT: ``VerbForm=Cop``, finite) and the Armenian imperfect (UD
Armenian-ArmTDP: ``Tense=Imp``, a past)."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

from xprobe.languages import load_profile
from xprobe.tasks import Context, CorpusStats, get_task, resolve_params
from xprobe.ud import parse_conllu

SPEC = get_task("Tense")
# "Ba mhúinteoir é ." (he was a teacher): the copula ba carries the tense, the noun is the root
GA_PAST = """# sent_id = ga-past
1\tBa\tis\tAUX\t_\tTense=Past|VerbForm=Cop\t2\tcop\t_\t_
2\tmhúinteoir\tmúinteoir\tNOUN\t_\tNumber=Sing\t0\troot\t_\t_
3\té\té\tPRON\t_\tNumber=Sing|Person=3\t2\tnsubj\t_\t_
4\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

"""
GA_PRES = GA_PAST.replace("Ba\tis", "Is\tis").replace("Tense=Past", "Tense=Pres")
# "Tá sé déanta ." (it is done): the participle carries no Tense, the verb tá does
GA_PART = """# sent_id = ga-part
1\tTá\tbí\tVERB\t_\tMood=Ind|Tense=Pres\t0\troot\t_\t_
2\tsé\tsé\tPRON\t_\tNumber=Sing|Person=3\t1\tnsubj\t_\t_
3\tdéanta\tdéan\tADJ\t_\tVerbForm=Part\t1\txcomp:pred\t_\t_
4\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_

"""
# "Նա գրում էր ։" (he was writing): imperfective participle + the imperfect of "to be"
HY_IMPERFECT = """# sent_id = hy-imp
1\tՆա\tնա\tPRON\t_\tNumber=Sing|Person=3\t2\tnsubj\t_\t_
2\tգրում\tգրել\tVERB\t_\tAspect=Imp|VerbForm=Part\t0\troot\t_\t_
3\tէր\tեմ\tAUX\t_\tAspect=Imp|Mood=Ind|Number=Sing|Person=3|Tense=Imp|VerbForm=Fin\t2\taux\t_\t_
4\t։\t։\tPUNCT\t_\t_\t2\tpunct\t_\t_

"""
HY_PRESENT = HY_IMPERFECT.replace("էր\tեմ", "է\tեմ").replace("Tense=Imp", "Tense=Pres")


def _label(lang: str, text: str, **profile_overrides: object):
    profile = dataclasses.replace(load_profile(lang), **profile_overrides)
    s = next(parse_conllu(text))
    ctx = Context(profile, resolve_params(SPEC, profile, {}),
                  CorpusStats(forms=Counter({t: 3 for t in s.tokens})))  # fmt: skip
    ctx = dataclasses.replace(ctx, data=SPEC.prepare(ctx), params=dataclasses.replace(
        ctx.params, min_freq=1, max_freq=10))  # fmt: skip
    c = SPEC.candidate(s, ctx, random.Random(0))
    return None if c is None else (c.variants[0].label, c.variants[0].key)


def test_the_irish_copula_is_finite_and_carries_the_tense() -> None:
    assert _label("ga", GA_PAST) == ("PAST", "Ba")
    assert _label("ga", GA_PRES) == ("PRES", "Is")
    assert _label("ga", GA_PART) == ("PRES", "Tá")
    # with the default finite value the copula (VerbForm=Cop) would never label a sentence
    assert _label("ga", GA_PAST, finite_feature="VerbForm=Fin") is None


def test_the_armenian_imperfect_is_a_past() -> None:
    assert _label("hy", HY_IMPERFECT) == ("PAST", "էր")
    assert _label("hy", HY_PRESENT) == ("PRES", "է")

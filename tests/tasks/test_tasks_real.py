"""The nine tasks on the real gold treebanks in ../shared/data/ud (skipped when absent).

Each task runs on every 5..28-token sentence of a dev file, with windows scaled down to the size
of the file; every candidate is checked against the gold annotation it came from.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections import Counter

import pytest
from conftest import shared_path

from xprobe.languages import load_profile
from xprobe.tasks import TASKS, Context, CorpusStats, resolve_params
from xprobe.tasks.common import punct_mask
from xprobe.ud import Sentence, read_conllu, tree_depth

DEV = {
    "en": "en_ewt-ud-dev.conllu",
    "de": "de_gsd-ud-dev.conllu",
    "es": "es_gsd-ud-dev.conllu",
    "fr": "fr_gsd-ud-dev.conllu",
    "ru": "ru_gsd-ud-dev.conllu",
}
SMALL = {
    "WC": {"first_rank": 100, "count": 200},
    "Tense": {"min_freq": 3, "max_freq": 300},
    "SubjNum": {"min_freq": 2, "max_freq": 300},
    "ObjNum": {"min_freq": 2, "max_freq": 300},
    "SOMO": {"min_freq": 3, "max_freq": 60},
}


def count(sentences: list[Sentence], profile_code: str) -> CorpusStats:
    stats = CorpusStats()
    pairs: Counter[tuple[str, str]] = Counter()
    for s in sentences:
        tokens = s.tokens
        stats.forms.update(tokens)
        stats.bigrams.update(itertools.pairwise(tokens))
        for t in s.surface:
            pairs[t.form, "+".join(s.words[w].upos for w in range(t.first, t.last + 1))] += 1
    for (form, tag), c in pairs.items():
        stats.upos.setdefault(form, Counter())[tag] = c
    stats.sentences = len(sentences)
    return stats


def check(name: str, s: Sentence, ctx: Context, c) -> None:
    prof = ctx.profile
    tokens = s.tokens
    label = c.variants[-1].label
    if name == "TreeDepth":
        assert label == str(tree_depth(s.heads))
    elif name in ("Tense", "SubjNum", "ObjNum"):
        key = c.variants[0].key
        assert ctx.params.min_freq <= ctx.stats.forms[key] <= ctx.params.max_freq
        root = s.heads.index(0) + 1
        surf = {w: t.form for t in s.surface for w in range(t.first, t.last + 1)}
        if name == "Tense":
            value = {"PAST": prof.tense_past, "PRES": prof.tense_pres}[label]
            words = [w for w in s.words if w.id == root or w.head == root]
            # the finite verb decides: VerbForm=Fin, or no VerbForm at all; never a participle
            assert any(
                surf[w.id - 1] == key
                and w.feat(prof.tense_feature) in value
                and w.feat("VerbForm") in ("Fin", None)
                for w in words
            )
        else:
            rel = prof.subj_rel if name == "SubjNum" else prof.obj_rel
            value = prof.number_sing if label == "NN" else prof.number_plur
            deps = [w for w in s.words if w.head == root and w.deprel.split(":")[0] == rel]
            assert len(deps) == 1 and deps[0].upos in prof.noun_upos
            assert surf[deps[0].id - 1] == key and deps[0].feat(prof.number_feature) in value
    elif name == "BShift":
        swapped = c.variants[1].tokens
        diff = [i for i, (a, b) in enumerate(zip(tokens, swapped, strict=True)) if a != b]
        assert len(diff) == 2 and diff[1] == diff[0] + 1 and diff[0] >= 1
        punct = punct_mask(s, prof.punct_upos)
        assert not punct[diff[0]] and not punct[diff[1]]
    elif name == "SOMO":
        changed = c.variants[1].tokens
        (i,) = [i for i, (a, b) in enumerate(zip(tokens, changed, strict=True)) if a != b]
        r, w, left, right = changed[i], tokens[i], tokens[i - 1], tokens[i + 1]
        assert c.variants[1].key == r and s.words[s.surface[i].first].upos in (
            *prof.noun_upos,
            *prof.verb_upos,
        )
        bi = ctx.stats.bigrams
        tol = ctx.params.log_tolerance
        assert abs(math.log(bi[left, r]) - math.log(bi[left, w])) <= tol
        assert abs(math.log(bi[r, right]) - math.log(bi[w, right])) <= tol
        for form in (r, w):
            assert ctx.params.min_freq <= ctx.stats.forms[form] <= ctx.params.max_freq
    elif name == "CoordInv":
        inverted = c.variants[1].tokens
        assert sorted(t.lower() for t in inverted) == sorted(t.lower() for t in tokens)
        if tokens[-1] in prof.sentence_final:
            assert inverted[-1] == tokens[-1]


@pytest.mark.shared
@pytest.mark.parametrize("lang", list(DEV))
def test_tasks_agree_with_gold_treebanks(lang: str) -> None:
    path = shared_path("data", "ud", lang, DEV[lang])
    profile = load_profile(lang)
    sentences = list(read_conllu(path))
    stats = count(sentences, lang)
    used = [s for s in sentences if 5 <= len(s.tokens) <= 28]
    found = Counter()
    for name, spec in TASKS.items():
        ctx = Context(profile, resolve_params(spec, profile, SMALL.get(name)), stats)
        ctx = dataclasses.replace(ctx, data=spec.prepare(ctx))
        rng = random.Random(1)
        for s in used:
            c = spec.candidate(s, ctx, rng)
            if c is not None:
                found[name] += 1
                check(name, s, ctx, c)
    # every task finds something in a dev set of ~1,000 sentences
    assert set(found) == set(TASKS), found

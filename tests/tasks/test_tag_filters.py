"""Each task's tag filter (``TaskSpec.tag_filter``) is conservative: on the gold treebanks, every
sentence that the gold tree makes a candidate passes the filter when given only its tags (the
tree replaced by a flat placeholder, so a filter that read heads or relations would fail).

The full check runs over all 23 treebanks of ../shared/data/ud (marked slow, about a minute);
the default run checks the four whose annotation made the filters what they are (German, and
Spanish, Hebrew and Vietnamese, whose CoordInv or Tense candidates are the unusual ones)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from tests.conftest import SHARED, shared_path
from xprobe.extract.scan import count_corpus
from xprobe.languages import load_profile
from xprobe.tasks import TASKS, Context, resolve_params
from xprobe.tasks import coordination_inversion as coordinv
from xprobe.ud import Sentence, parse_conllu, read_conllu

ALL = sorted(p.name for p in (SHARED / "data" / "ud").glob("*") if p.is_dir())
QUICK = ["de", "es", "he", "vi"]
OPEN = {"min_freq": 1, "max_freq": 10**12}  # the frequency windows are no tag matter


def tags_only(s: Sentence) -> Sentence:
    """The sentence with its tree replaced by a flat one (word 1 the root)."""
    words = tuple(
        w._replace(head=0 if i == 0 else 1, deprel="root" if i == 0 else "dep", deps="_")
        for i, w in enumerate(s.words)
    )
    return Sentence(words, s.multiword, s.comments)


def _contexts(lang: str, files: list[str]) -> dict[str, Context]:
    profile = load_profile(lang)
    stats, _ = count_corpus(files, bigrams=True, on_error="skip")
    out = {}
    for spec in TASKS.values():
        if spec.tag_filter is None:
            continue
        names = {f.name for f in dataclasses.fields(spec.params)}
        params = resolve_params(spec, profile, {k: v for k, v in OPEN.items() if k in names})
        ctx = Context(profile, params, stats)
        out[spec.name] = Context(profile, params, stats, spec.prepare(ctx))
    return out


def _tree_rule(name: str, s: Sentence, ctx: Context) -> bool:
    if name == "CoordInv":  # its candidate applies the filter first: check the tree rule alone
        return coordinv.tree_candidate(s, ctx) is not None
    return TASKS[name].candidate(s, ctx, random.Random(0)) is not None


def check_language(lang: str) -> dict[str, tuple[int, int, int]]:
    """Per task: (gold candidates, sentences the filter passes, sentences); asserts that no
    candidate fails the filter."""
    files = [str(p) for p in sorted(shared_path("data", "ud", lang).glob("*.conllu"))]
    ctxs = _contexts(lang, files)
    counts = {name: [0, 0, 0] for name in ctxs}
    lost = []
    for f in files:
        for s in read_conllu(f, on_error="skip"):
            if not 5 <= len(s.tokens) <= 28:
                continue
            bare = tags_only(s)
            for name, ctx in ctxs.items():
                passed = TASKS[name].tag_filter(bare, ctx)  # type: ignore[misc]
                c = counts[name]
                c[2] += 1
                c[1] += passed
                if _tree_rule(name, s, ctx):
                    c[0] += 1
                    if not passed:
                        lost.append(f"{lang} {name}: {s.source}:{s.line} {s.text}")
    assert not lost, "the tag filter drops gold candidates:\n" + "\n".join(lost[:20])
    return {k: (a, b, n) for k, (a, b, n) in counts.items()}


@pytest.mark.parametrize("lang", QUICK)
def test_tag_filters_keep_every_gold_candidate(lang: str) -> None:
    counts = check_language(lang)
    # the check has something to check: candidates exist, and CoordInv's filter rejects most
    assert sum(c[0] >= 10 for c in counts.values()) >= 2  # (Vietnamese has no FEATS)
    a, passed, n = counts["CoordInv"]
    assert a >= 10 and passed < 0.8 * n


@pytest.mark.slow
@pytest.mark.parametrize("lang", [x for x in ALL if x not in QUICK])
def test_tag_filters_keep_every_gold_candidate_all_treebanks(lang: str) -> None:
    counts = check_language(lang)
    assert sum(c[2] for c in counts.values()) > 0


EN = """\
1\tThe\tthe\tDET\tDT\tDefinite=Def\t2\tdet\t_\t_
2\tcat\tcat\tNOUN\tNN\tNumber=Sing\t3\tnsubj\t_\t_
3\tslept\tsleep\tVERB\tVBD\tMood=Ind|Tense=Past|VerbForm=Fin\t0\troot\t_\t_
4\t,\t,\tPUNCT\t,\t_\t8\tpunct\t_\t_
5\tand\tand\tCCONJ\tCC\t_\t8\tcc\t_\t_
6\tthe\tthe\tDET\tDT\tDefinite=Def\t7\tdet\t_\t_
7\tdogs\tdog\tNOUN\tNNS\tNumber=Plur\t8\tnsubj\t_\t_
8\tbarked\tbark\tVERB\tVBD\tMood=Ind|Tense=Past|VerbForm=Fin\t3\tconj\t_\t_
9\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_

"""


def _en_ctx(name: str) -> Context:
    profile = load_profile("en")
    spec = TASKS[name]
    return Context(profile, resolve_params(spec, profile), count_corpus([], bigrams=False)[0])


def test_filters_on_hand_made_tags() -> None:
    s = tags_only(next(parse_conllu(EN)))
    f = {n: TASKS[n].tag_filter for n in ("CoordInv", "SubjNum", "Tense", "TreeDepth")}
    assert all(f[n](s, _en_ctx(n)) for n in f)  # type: ignore[misc]
    # "and" tagged ADV: no coordinating conjunction for CoordInv
    adv = Sentence(tuple(w._replace(upos="ADV") if w.id == 5 else w for w in s.words))
    assert not f["CoordInv"](adv, _en_ctx("CoordInv"))  # type: ignore[misc]
    # no noun with a number: SubjNum cannot qualify; no tensed finite word: Tense cannot
    bare = Sentence(tuple(w._replace(feats="_") for w in s.words))
    assert not f["SubjNum"](bare, _en_ctx("SubjNum"))  # type: ignore[misc]
    assert not f["Tense"](bare, _en_ctx("Tense"))  # type: ignore[misc]
    # a conjunction first ("And the dogs barked .") leaves no first clause
    tail = Sentence(tuple(w._replace(id=i + 1) for i, w in enumerate(s.words[4:])))
    assert not f["CoordInv"](tail, _en_ctx("CoordInv"))  # type: ignore[misc]


def test_tree_free_tasks_are_marked() -> None:
    assert {n for n, s in TASKS.items() if not s.needs_tree} == {"SentLen", "WC", "BShift", "SOMO"}

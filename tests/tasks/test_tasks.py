"""The nine probing tasks on hand-written CoNLL-U (English, German with multiword tokens, Russian).

Every expectation below was worked out by hand from the fixture trees in
``tests/data/tasks_{en,de,ru}.conllu``; the counts are hand-made too.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from xprobe.errors import XProbeError
from xprobe.languages import load_profile
from xprobe.tasks import TASKS, Context, CorpusStats, get_task, resolve_params
from xprobe.tasks.common import punct_mask, surface_form
from xprobe.tasks.odd_man_out import count_bounds, draw_replacement, replacements
from xprobe.tasks.word_content import select_targets
from xprobe.ud import Sentence, parse_conllu, read_conllu

FIXTURES = Path(__file__).resolve().parents[1] / "data"
LANGS = ("en", "de", "ru")


@cache
def sentences(lang: str) -> dict[str, Sentence]:
    path = FIXTURES / f"tasks_{lang}.conllu"
    return {s.comment("sent_id"): s for s in read_conllu(path)}


def make_ctx(name: str, lang: str, stats: CorpusStats, **overrides: object) -> Context:
    """A task's context as the extractor builds it: params, counts, then ``prepare``."""
    spec = get_task(name)
    profile = load_profile(lang)
    ctx = Context(profile, resolve_params(spec, profile, overrides), stats)
    return dataclasses.replace(ctx, data=spec.prepare(ctx))


def run(name: str, sentence: Sentence, ctx: Context, seed: int = 0):
    return get_task(name).candidate(sentence, ctx, random.Random(seed))


# --------------------------------------------------------------------------- the registry

# per-million bounds off (scaled from the counts under --windows auto below windows_tokens)
RELATIVE = {"min_per_million": 0.0, "max_per_million": 0.0, "windows_tokens": 20_000_000}
DEFAULTS = {
    "SentLen": ("sentence_length", {"bins": (5, 9, 13, 17, 21, 26)}),
    "WC": (
        "word_content",
        {"first_rank": 2001, "count": 1000, "min_length": 4, "exclude_upos": ()},
    ),
    "TreeDepth": (
        "tree_depth",
        {
            "min_depth": 3,
            "max_depth": 7,
            "length_bins": (5, 9, 13, 17, 21, 26),
            "length_strata": "bins",
        },
    ),
    "BShift": ("bigram_shift", {}),
    "Tense": (
        "past_present",
        {
            "min_freq": 100,
            "max_freq": 5000,
            "rule": "finite",
            **RELATIVE,
            "past_markers": (),
            "past_forms": (),
            "pres_forms": (),
            "past_segments": (),
            "segment_column": "lemma",
            "segment_separator": "+",
            "segment_tag": "",
            "root_upos": (),
            "participle_feature": "VerbForm=Part",
            "exclude_moods": ("Imp", "Opt", "Jus", "Cnd", "Sub", "Des", "Nec", "Pot"),
        },
    ),
    "SubjNum": ("subj_number", {"min_freq": 100, "max_freq": 5000, **RELATIVE}),
    "ObjNum": ("obj_number", {"min_freq": 100, "max_freq": 5000, **RELATIVE}),
    "SOMO": (
        "odd_man_out",
        {"min_freq": 40, "max_freq": 400, "log_tolerance": 1.0, "max_scan": 200, **RELATIVE},
    ),
    "CoordInv": ("coordination_inversion", {"case_from_counts": True, "balance": "thirds"}),
}
LABELS = {
    "SentLen": ("0", "1", "2", "3", "4", "5"),
    "TreeDepth": ("3", "4", "5", "6", "7"),
    "BShift": ("O", "I"),
    "Tense": ("PAST", "PRES"),
    "SubjNum": ("NN", "NNS"),
    "ObjNum": ("NN", "NNS"),
    "SOMO": ("O", "C"),
    "CoordInv": ("O", "I"),
}


def test_registry_holds_the_nine_tasks_in_senteval_order() -> None:
    assert list(TASKS) == list(DEFAULTS)


@pytest.mark.parametrize("name", list(TASKS))
def test_spec_matches_tasks_md(name: str) -> None:
    spec = TASKS[name]
    file, defaults = DEFAULTS[name]
    assert spec.file == file
    assert get_task(file) is spec
    assert {f.name: f.default for f in dataclasses.fields(spec.params)} == defaults
    for lang in LANGS:
        ctx = make_ctx(name, lang, CorpusStats())
        assert ctx.params == spec.params()
        if name == "WC":
            assert spec.labels_of(ctx) == ()  # no corpus, no targets
        else:
            assert spec.labels_of(ctx) == LABELS[name]
    assert spec.uses_bigrams == (name in ("SOMO", "CoordInv"))
    assert spec.strata == (("longer", "equal", "shorter") if name == "CoordInv" else ())


def test_label_sets_follow_their_parameters() -> None:
    ctx = make_ctx("TreeDepth", "en", CorpusStats(), min_depth=5, max_depth=12)
    assert get_task("TreeDepth").labels_of(ctx) == tuple(str(d) for d in range(5, 13))
    ctx = make_ctx("SentLen", "en", CorpusStats(), bins="5,10,20")
    assert get_task("SentLen").labels_of(ctx) == ("0", "1", "2")


@pytest.mark.parametrize(
    ("name", "overrides"),
    [
        ("Tense", {"min_freq": 10, "max_freq": 5}),
        ("SubjNum", {"min_freq": 0}),
        ("ObjNum", {"max_freq": 0}),
        ("SOMO", {"min_freq": 500}),
        ("SOMO", {"log_tolerance": -1.0}),
        ("SOMO", {"max_scan": -1}),
        ("TreeDepth", {"min_depth": 8}),
        ("TreeDepth", {"length_bins": "9,5"}),
        ("SentLen", {"bins": "5,5,9"}),
        ("WC", {"count": 0}),
    ],
)
def test_bad_parameters_are_clear_errors(name: str, overrides: dict[str, object]) -> None:
    with pytest.raises(XProbeError, match=name):
        make_ctx(name, "en", CorpusStats(), **overrides)


# --------------------------------------------------------------------------- fixture table

# Hand-made counts: every fixture token is seen 200 times (inside Tense/SubjNum/ObjNum's
# [100, 5000]); the German bigram makes "Hunde" a mid-sentence capitalised word (CoordInv).
BIGRAMS = {"de": Counter({("viele", "Hunde"): 3})}
# WC: every lower-cased type ranked by summed count (punctuation, numbers, short words included);
# from rank first_rank on, the first `count` types that are alphabetic and >= 4 characters.
WC_FORMS = {
    # 1 the 1000, 2 x-ray 500, 3 dog 300, 4 weather 90, 5 spring 85 (80 + "Spring" 5),
    # 6 farmer 70, 7 letters 60, 8 cattle 50, 9 coffee 40
    "en": {"the": 900, "The": 100, "weather": 90, "spring": 80, "Spring": 5, "farmer": 70,
           "letters": 60, "cattle": 50, "dog": 300, "x-ray": 500, "coffee": 40},
    # 1 zug 100, 2 haus 60, 3 buch 58, 4 katze 55 (50 + 5), 5 park 45
    "de": {"Haus": 60, "Buch": 58, "Katze": 50, "katze": 5, "Park": 45, "Zug": 100},
    # 1 нет 500, 2 день 90, 3 книги 80 (70 + 10), 4 книгу 65, 5 погода 60
    "ru": {"день": 90, "книги": 70, "Книги": 10, "книгу": 65, "погода": 60, "нет": 500},
}  # fmt: skip
# ranks counted over the whole vocabulary: ranking qualifying types only would give en
# cattle, coffee; de park; ru погода
WC_PARAMS = {"en": {"first_rank": 5, "count": 3}, "de": {"first_rank": 3, "count": 3},
             "ru": {"first_rank": 3, "count": 3}}  # fmt: skip
WC_TARGETS = {
    "en": ("spring", "farmer", "letters"),
    "de": ("buch", "katze", "park"),
    "ru": ("книги", "книгу", "погода"),
}

# sent_id -> task -> expected. SentLen: label; TreeDepth: (label, stratum); Tense, SubjNum,
# ObjNum: (label, key); WC: label; BShift: the swappable pair indices; CoordInv: (I text,
# stratum). Missing means None (the sentence is not used). Worked out by hand from the trees.
EXPECTED: dict[str, dict[str, object]] = {
    "en-coord-comma": {
        "SentLen": "1", "TreeDepth": ("4", "1"), "Tense": ("PAST", "slept"),
        "SubjNum": ("NN", "cat"), "BShift": {1, 4, 5, 6},
        "CoordInv": ("The dog barked , and the cat slept .", "equal"),
    },
    "en-coord-plain": {
        "SentLen": "1", "TreeDepth": ("4", "1"), "Tense": ("PAST", "ate"),
        "SubjNum": ("NNS", "children"), "ObjNum": ("NNS", "apples"),
        "BShift": {1, 2, 3, 4, 5, 6, 7, 8},
        "CoordInv": ("Their parents drank coffee and the children ate green apples .", "longer"),
    },
    "en-coord-proper": {
        "SentLen": "1", "TreeDepth": ("4", "1"), "Tense": ("PAST", "was"),
        "BShift": {1, 2, 3, 4, 5, 6},
        "CoordInv": ("The rain came later but Paris was sunny .", "shorter"),
    },
    "en-coord-shared": {  # "all night" hangs on the root after the second clause
        "SentLen": "1", "TreeDepth": ("4", "1"), "Tense": ("PAST", "slept"),
        "SubjNum": ("NN", "cat"), "BShift": {1, 2, 3, 4, 5, 6, 7},
    },
    "en-two-cc": {
        "SentLen": "1", "TreeDepth": ("4", "1"), "Tense": ("PAST", "left"),
        "BShift": {1, 2, 3, 6, 7, 8},
    },
    "en-cop": {
        "SentLen": "0", "TreeDepth": ("3", "0"), "Tense": ("PRES", "is"),
        "SubjNum": ("NN", "weather"), "WC": "spring", "BShift": {1, 2, 3, 4},
    },
    "en-future": {  # "will" has no Tense feature
        "SentLen": "0", "TreeDepth": ("3", "0"), "ObjNum": ("NNS", "papers"),
        "BShift": {1, 2, 3, 4},
    },
    "en-passive": {  # nsubj:pass counts; the finite auxiliary, not the participle, is the key
        "SentLen": "1", "TreeDepth": ("3", "1"), "Tense": ("PAST", "were"),
        "SubjNum": ("NNS", "letters"), "WC": "letters", "BShift": {1, 2, 3, 4, 5, 6},
    },
    "en-quote": {"SentLen": "1", "TreeDepth": ("3", "1"), "Tense": ("PAST", "said")},
    "en-deep": {
        "SentLen": "2", "TreeDepth": ("7", "2"), "Tense": ("PAST", "left"),
        "SubjNum": ("NN", "friend"), "BShift": set(range(1, 14)),
    },
    "en-somo": {  # farmer and spring are both targets: no WC
        "SentLen": "0", "TreeDepth": ("3", "0"), "Tense": ("PAST", "sold"),
        "SubjNum": ("NN", "farmer"), "ObjNum": ("NNS", "cattle"), "BShift": {1, 2, 3, 4, 5},
    },
    "de-coord-mwt": {  # 12 surface tokens, 14 words; Park and Katze are both WC targets
        "SentLen": "1", "TreeDepth": ("4", "1"), "Tense": ("PAST", "lief"),
        "BShift": {1, 2, 5, 6, 7, 8, 9},
        "CoordInv": ("Die Katze schlief im Haus , und Max lief zum Park .", "shorter"),
    },
    "de-coord-noun": {
        "SentLen": "1", "TreeDepth": ("4", "1"), "Tense": ("PAST", "bellten"),
        "SubjNum": ("NNS", "Hunde"), "WC": "katze", "BShift": {1, 4, 5, 6, 7},
        "CoordInv": ("Die kleine Katze schlief , aber Hunde bellten laut .", "shorter"),
    },
    "de-aux": {  # participle root without Tense: the finite auxiliary decides
        "SentLen": "1", "TreeDepth": ("3", "1"), "Tense": ("PRES", "hat"),
        "SubjNum": ("NN", "Mann"), "ObjNum": ("NN", "Buch"), "WC": "buch",
        "BShift": {1, 2, 3, 4, 5, 6},
    },
    "de-pres": {
        "SentLen": "0", "TreeDepth": ("3", "0"), "Tense": ("PRES", "essen"),
        "SubjNum": ("NNS", "Kinder"), "ObjNum": ("NNS", "Äpfel"), "BShift": {1, 2, 3, 4},
    },
    "de-somo": {
        "SentLen": "0", "TreeDepth": ("3", "0"), "Tense": ("PAST", "verkaufte"),
        "SubjNum": ("NN", "Bauer"), "ObjNum": ("NNS", "Rinder"), "BShift": {1, 2, 3, 4, 5},
    },
    "de-quote": {"SentLen": "0", "TreeDepth": ("3", "0"), "Tense": ("PAST", "sagte")},
    "ru-coord": {
        "SentLen": "1", "TreeDepth": ("3", "1"), "Tense": ("PAST", "читал"),
        "SubjNum": ("NN", "Мальчик"), "ObjNum": ("NN", "книгу"), "WC": "книгу",
        "BShift": {1, 4, 5, 6},
        "CoordInv": ("Девочка писала письмо , а мальчик читал книгу .", "equal"),
    },
    "ru-pres": {
        "SentLen": "0", "TreeDepth": ("3", "0"), "Tense": ("PRES", "читают"),
        "SubjNum": ("NNS", "Студенты"), "ObjNum": ("NNS", "книги"), "WC": "книги",
        "BShift": {1, 2, 3, 4},
    },
    "ru-fut": {  # Tense=Fut is neither class; depth 2 is below the range
        "SentLen": "0", "ObjNum": ("NNS", "книги"), "WC": "книги", "BShift": {1, 2, 3},
    },
    "ru-cop": {
        "SentLen": "0", "Tense": ("PAST", "была"), "SubjNum": ("NN", "погода"),
        "WC": "погода", "BShift": {1, 2, 3},
    },
    "ru-quote": {"SentLen": "0", "TreeDepth": ("3", "0"), "Tense": ("PAST", "ответил")},
    "ru-somo": {
        "SentLen": "0", "TreeDepth": ("3", "0"), "Tense": ("PAST", "продал"),
        "SubjNum": ("NN", "рыбак"), "ObjNum": ("NN", "лодку"), "BShift": {1, 2, 3, 4},
    },
}  # fmt: skip

TABLE_TASKS = ("SentLen", "WC", "TreeDepth", "BShift", "Tense", "SubjNum", "ObjNum", "CoordInv")


def test_every_fixture_sentence_has_expectations() -> None:
    ids = {i for lang in LANGS for i in sentences(lang)}
    assert ids == set(EXPECTED)


def table_ctx(name: str, lang: str) -> Context:
    if name == "WC":
        return make_ctx(name, lang, CorpusStats(forms=Counter(WC_FORMS[lang])), **WC_PARAMS[lang])
    forms = Counter({t: 200 for s in sentences(lang).values() for t in s.tokens})
    return make_ctx(name, lang, CorpusStats(forms=forms, bigrams=BIGRAMS.get(lang, Counter())))


def observed(name: str, sentence: Sentence, ctx: Context) -> object:
    """What the table records for one task on one sentence."""
    if name == "BShift":  # the pair set: every seed's swap must be one of them
        pairs = set()
        for seed in range(40):
            c = run(name, sentence, ctx, seed)
            if c is None:
                return None
            original, swapped = c.variants
            changed = zip(original.tokens, swapped.tokens, strict=True)
            pairs |= {i for i, (a, b) in enumerate(changed) if a != b}
        return {i for i in pairs if i + 1 in pairs}
    c = run(name, sentence, ctx)
    if c is None:
        return None
    last = c.variants[-1]
    if name == "CoordInv":
        return (" ".join(last.tokens), c.stratum)
    if name == "TreeDepth":
        return (last.label, c.stratum)
    if name in ("Tense", "SubjNum", "ObjNum"):
        return (last.label, last.key)
    return last.label


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", TABLE_TASKS)
def test_fixture_labels(lang: str, name: str) -> None:
    ctx = table_ctx(name, lang)
    if name == "WC":
        assert get_task("WC").labels_of(ctx) == WC_TARGETS[lang]
    got = {sid: observed(name, s, ctx) for sid, s in sentences(lang).items()}
    want = {sid: EXPECTED[sid].get(name) for sid in sentences(lang)}
    assert got == want


@pytest.mark.parametrize("lang", LANGS)
def test_classification_variants_keep_the_sentence(lang: str) -> None:
    for name in ("SentLen", "WC", "TreeDepth", "Tense", "SubjNum", "ObjNum"):
        ctx = table_ctx(name, lang)
        for s in sentences(lang).values():
            c = run(name, s, ctx)
            if c is not None:
                assert len(c.variants) == 1 and c.variants[0].tokens == s.tokens


# --------------------------------------------------------------------------- window rules


def test_frequency_window_is_inclusive_and_uses_the_surface_form() -> None:
    s = sentences("en")["en-cop"]
    for count, label in ((99, None), (100, "PRES"), (5000, "PRES"), (5001, None)):
        ctx = make_ctx("Tense", "en", CorpusStats(forms=Counter({"is": count})))
        c = run("Tense", s, ctx)
        assert (c.variants[0].label if c else None) == label
    # SubjNum reads "weather", not the lemma or another form
    ctx = make_ctx("SubjNum", "en", CorpusStats(forms=Counter({"Weather": 300, "is": 300})))
    assert run("SubjNum", s, ctx) is None


def test_tense_key_is_the_multiword_surface_form() -> None:
    text = (
        "1-3\tDámelo\t_\t_\t_\t_\t_\t_\t_\t_\n"
        "1\tDa\tdar\tVERB\t_\tMood=Imp|Number=Sing|Person=2|Tense=Pres|VerbForm=Fin\t0\troot\t_\t_\n"
        "2\tme\tyo\tPRON\t_\tCase=Dat\t1\tiobj\t_\t_\n"
        "3\tlo\tél\tPRON\t_\tCase=Acc\t1\tobj\t_\t_\n"
        "4\tahora\tahora\tADV\t_\t_\t1\tadvmod\t_\t_\n"
        "5\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_\n"
    )
    s = next(parse_conllu(text))
    assert s.tokens == ("Dámelo", "ahora", ".")
    assert surface_form(s, 0) == "Dámelo"
    stats = CorpusStats(forms=Counter({"Dámelo": 150, "Da": 9999}))
    assert run("Tense", s, make_ctx("Tense", "en", stats)) is None  # an imperative: no tense
    c = run("Tense", s, make_ctx("Tense", "en", stats, exclude_moods=()))
    assert c is not None and (c.variants[0].label, c.variants[0].key) == ("PRES", "Dámelo")


def test_two_tensed_finite_auxiliaries_are_ambiguous() -> None:
    def sentence(been_feats: str) -> Sentence:
        rows = [
            ("It", "PRON", "_", 4, "nsubj"),
            ("has", "AUX", "Tense=Pres|VerbForm=Fin", 4, "aux"),
            ("been", "AUX", been_feats, 4, "cop"),
            ("good", "ADJ", "_", 0, "root"),
        ]
        text = "".join(
            f"{i}\t{f}\t{f}\t{u}\t_\t{feats}\t{h}\t{r}\t_\t_\n"
            for i, (f, u, feats, h, r) in enumerate(rows, 1)
        )
        return next(parse_conllu(text))

    ctx = make_ctx("Tense", "en", CorpusStats(forms=Counter({"has": 200, "been": 200})))
    assert run("Tense", sentence("Tense=Past|VerbForm=Fin"), ctx) is None
    c = run("Tense", sentence("Tense=Past|VerbForm=Part"), ctx)  # not finite: only "has"
    assert c is not None and (c.variants[0].label, c.variants[0].key) == ("PRES", "has")


# --------------------------------------------------------------------------- WC


def test_wc_ranks_count_the_whole_vocabulary() -> None:
    # SentEval: "ordered by rank from position 2k+1 onwards, and having length of at least 4
    # characters": ranks are counted over every lower-cased type, then filtered
    forms = Counter(WC_FORMS["en"])
    assert select_targets(forms, 1, 10, 4) == [
        "weather", "spring", "farmer", "letters", "cattle", "coffee",
    ]  # fmt: skip
    assert select_targets(forms, 2, 2, 4) == ["weather", "spring"]  # x-ray, dog skipped
    assert select_targets(forms, 5, 2, 4) == ["spring", "farmer"]
    assert select_targets(forms, 8, 5, 4) == ["cattle", "coffee"]  # fewer than asked
    assert select_targets(forms, 3, 1, 3) == ["dog"]  # shorter words qualify with min_length 3
    # ties are broken by the word itself
    assert select_targets(Counter({"beta": 5, "alpha": 5, "Gamma": 5, "ab": 5}), 1, 3, 4) == [
        "alpha", "beta", "gamma",
    ]  # fmt: skip
    # ranks: ab, alpha, beta, gamma
    assert select_targets(Counter({"beta": 5, "alpha": 5, "Gamma": 5, "ab": 5}), 3, 3, 4) == [
        "beta", "gamma",
    ]  # fmt: skip


def test_wc_needs_exactly_one_target_token() -> None:
    forms = ["Spring", "and", "spring", "again", "."]
    text = "".join(
        f"{i}\t{f}\t_\tNOUN\t_\t_\t{int(i > 1)}\t{'dep' if i > 1 else 'root'}\t_\t_\n"
        for i, f in enumerate(forms, 1)
    )
    s = next(parse_conllu(text))
    ctx = table_ctx("WC", "en")
    assert run("WC", s, ctx) is None  # "spring" twice


# --------------------------------------------------------------------------- BShift


def test_bshift_swaps_one_pair_and_keeps_the_tokens() -> None:
    ctx = table_ctx("BShift", "de")
    s = sentences("de")["de-coord-mwt"]
    seen = set()
    for seed in range(60):
        c = run("BShift", s, ctx, seed)
        assert c is not None
        original, swapped = c.variants
        assert (original.label, swapped.label) == ("O", "I")
        assert original.tokens == s.tokens and swapped.tokens != s.tokens
        assert sorted(swapped.tokens) == sorted(s.tokens)
        seen.add(" ".join(swapped.tokens))
    # the multiword tokens move as wholes; "," "." and the first token never move
    assert "Max zum lief Park , und die Katze schlief im Haus ." in seen
    assert "Max lief zum Park , und die Katze im schlief Haus ." in seen
    assert len(seen) == 7


def test_punct_mask_multiword_token_is_punct_only_if_all_words_are() -> None:
    text = (
        "1\tGo\tgo\tVERB\t_\t_\t0\troot\t_\t_\n"
        "2-3\t.)\t_\t_\t_\t_\t_\t_\t_\t_\n"
        "2\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_\n"
        "3\t)\t)\tPUNCT\t_\t_\t1\tpunct\t_\t_\n"
        "4-5\tx.\t_\t_\t_\t_\t_\t_\t_\t_\n"
        "4\tx\tx\tNOUN\t_\t_\t1\tobj\t_\t_\n"
        "5\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_\n"
    )
    s = next(parse_conllu(text))
    assert punct_mask(s, ("PUNCT",)) == [False, True, False]


# --------------------------------------------------------------------------- SOMO

# The farmer sold his cattle in spring: only "cattle" is a target (the other nouns and the
# verb are out of [40, 400]). Followers of "his" that are NOUNs in the window, by bigram count:
# goats 2 (too rare next to 10), cows 9 (never before "in"), Cattle 10 (same word),
# horses 12 (ok: 5 vs 8 on the right), pigs 20 (25 vs 8 on the right: ln 3.1 > 1),
# oxen 27 (ln 2.7 = 0.993 <= 1, and 3 vs 8 on the right: 0.98 <= 1); sheep is out of the window
# and "ran" is a verb.
SOMO_EN = CorpusStats(
    forms=Counter({
        "The": 1000, "farmer": 1000, "sold": 1000, "his": 1000, "cattle": 50, "in": 1000,
        "spring": 1000, ".": 1000, "goats": 45, "cows": 70, "Cattle": 45, "horses": 60,
        "pigs": 50, "oxen": 41, "sheep": 500, "ran": 50,
    }),
    bigrams=Counter({
        ("his", "cattle"): 10, ("cattle", "in"): 8, ("his", "goats"): 2, ("goats", "in"): 8,
        ("his", "cows"): 9, ("his", "Cattle"): 10, ("Cattle", "in"): 8, ("his", "horses"): 12,
        ("horses", "in"): 5, ("his", "pigs"): 20, ("pigs", "in"): 25, ("his", "oxen"): 27,
        ("oxen", "in"): 3, ("his", "sheep"): 10, ("sheep", "in"): 8, ("his", "ran"): 10,
        ("ran", "in"): 8,
    }),
    upos={
        "goats": Counter({"NOUN": 45}), "cows": Counter({"NOUN": 70}),
        "Cattle": Counter({"NOUN": 45}), "horses": Counter({"NOUN": 50, "VERB": 10}),
        "pigs": Counter({"NOUN": 50}), "oxen": Counter({"NOUN": 41}),
        "sheep": Counter({"NOUN": 500}), "ran": Counter({"VERB": 50}),
        "cattle": Counter({"NOUN": 50}),
    },
)  # fmt: skip


def test_count_bounds() -> None:
    assert count_bounds(10, 1.0) == (4, 27)  # 10/e = 3.68, 10e = 27.18
    assert count_bounds(8, 1.0) == (3, 21)
    assert count_bounds(1, 0.0) == (1, 1)


def test_somo_replacements_follow_the_rule() -> None:
    ctx = make_ctx("SOMO", "en", SOMO_EN)
    s = sentences("en")["en-somo"]
    assert replacements(s.tokens, 4, "NOUN", ctx) == ["horses", "oxen"]
    seen = set()
    for seed in range(40):
        c = run("SOMO", s, ctx, seed)
        assert c is not None
        original, changed = c.variants
        assert original.tokens == s.tokens and (original.label, changed.label) == ("O", "C")
        assert changed.tokens[:4] == s.tokens[:4] and changed.tokens[5:] == s.tokens[5:]
        assert changed.key == changed.tokens[4]
        seen.add(changed.key)
    assert seen == {"horses", "oxen"}
    # a tighter tolerance keeps only horses (ln 1.2 and ln 1.6 are both <= 0.5)
    ctx = make_ctx("SOMO", "en", SOMO_EN, log_tolerance=0.5)
    assert replacements(s.tokens, 4, "NOUN", ctx) == ["horses"]
    # the target itself must be in the window
    stats = dataclasses.replace(SOMO_EN, forms=SOMO_EN.forms + Counter({"cattle": 1000}))
    assert run("SOMO", s, make_ctx("SOMO", "en", stats)) is None


def test_somo_max_scan_samples_the_followers() -> None:
    # six followers of "his" (cows .. oxen) and five preceders of "in" are in range; with
    # max_scan=2 a sample of two of the shorter list is examined, so some seeds find nothing,
    # and whatever is found is still valid
    ctx = make_ctx("SOMO", "en", SOMO_EN, max_scan=2)
    s = sentences("en")["en-somo"]
    keys = [c.variants[1].key if c else None for c in (run("SOMO", s, ctx, i) for i in range(60))]
    assert set(keys) == {"horses", "oxen", None}
    assert replacements(s.tokens, 4, "NOUN", ctx) == ["horses", "oxen"]  # no rng: all


class ScriptedRandom(random.Random):
    """A ``Random`` whose ``_randbelow(n)`` answers (what ``randrange(n)`` draws) come from a
    script (one path of draws)."""

    def __init__(self, script: tuple[int, ...]) -> None:
        super().__init__(0)
        self.script = list(script)
        self.widths: list[int] = []

    def _randbelow(self, n):  # type: ignore[override]
        self.widths.append(n)
        return self.script[len(self.widths) - 1] if len(self.widths) <= len(self.script) else 0


def _all_draws(ctx: Context, tokens: tuple[str, ...]) -> dict[str | None, Fraction]:
    """The probability of each outcome of the draw, summed over every path of ``_randbelow``
    answers (a path of draws of widths w1, w2... has probability 1 / (w1 * w2 * ...))."""
    out: dict[str | None, Fraction] = {}
    paths: list[tuple[int, ...]] = [()]
    while paths:
        script = paths.pop()
        rng = ScriptedRandom(script)
        got = draw_replacement(tokens, 4, "NOUN", ctx, rng)
        if len(rng.widths) > len(script):  # a draw the script did not cover: branch on it
            width = rng.widths[len(script)]
            paths.extend((*script, x) for x in range(width))
            continue
        weight = 1
        for w in rng.widths:
            weight *= w
        out[got] = out.get(got, Fraction(0)) + Fraction(1, weight)
    return out


def test_somo_draw_is_exactly_uniform_among_the_valid() -> None:
    # six followers of "his" are in range (cows .. oxen), five preceders of "in" (oxen 3,
    # horses 5, Cattle, cattle and goats 8; pigs 25 is out), so the five are searched; two are
    # valid (horses, oxen): over every path of the lazy Fisher-Yates draws, each valid one
    # comes out with the same probability
    s = sentences("en")["en-somo"]
    half = Fraction(1, 2)
    assert _all_draws(make_ctx("SOMO", "en", SOMO_EN), s.tokens) == {"horses": half, "oxen": half}
    # two examined of five: nothing found with probability C(3,2)/C(5,2) = 3/10
    assert _all_draws(make_ctx("SOMO", "en", SOMO_EN, max_scan=2), s.tokens) == {
        "horses": Fraction(7, 20),
        "oxen": Fraction(7, 20),
        None: Fraction(3, 10),
    }


def test_somo_draw_is_deterministic_and_valid() -> None:
    ctx = make_ctx("SOMO", "en", SOMO_EN)
    s = sentences("en")["en-somo"]
    got = [draw_replacement(s.tokens, 4, "NOUN", ctx, random.Random(seed)) for seed in range(200)]
    again = [draw_replacement(s.tokens, 4, "NOUN", ctx, random.Random(seed)) for seed in range(200)]
    assert got == again
    counts = Counter(got)
    assert set(counts) == {"horses", "oxen"} and min(counts.values()) > 70


def test_somo_with_multiword_neighbour() -> None:
    # "im" (in + dem) is a neighbour, never a target; bigrams are over surface forms.
    stats = CorpusStats(
        forms=Counter({"Bauer": 1000, "verkaufte": 1000, "Frühling": 100, "Rinder": 1000,
                       "Herbst": 80, "Winter": 90, "im": 5000}),
        bigrams=Counter({("im", "Frühling"): 20, ("Frühling", "seine"): 5,
                         ("im", "Herbst"): 25, ("Herbst", "seine"): 4,
                         ("im", "Winter"): 30, ("Winter", "seine"): 40}),
        upos={"Herbst": Counter({"NOUN": 80}), "Winter": Counter({"NOUN": 90}),
              "im": Counter({"ADP+DET": 5000})},
    )  # fmt: skip
    ctx = make_ctx("SOMO", "de", stats)
    s = sentences("de")["de-somo"]
    c = run("SOMO", s, ctx)
    assert c is not None
    assert " ".join(c.variants[1].tokens) == "Der Bauer verkaufte im Herbst seine Rinder ."
    assert c.variants[1].key == "Herbst"


def test_somo_russian() -> None:
    stats = CorpusStats(
        forms=Counter({"Старый": 50, "рыбак": 50, "продал": 50, "свою": 1000, "лодку": 60,
                       "весной": 1000, "машину": 70, "купил": 60}),
        bigrams=Counter({("свою", "лодку"): 6, ("лодку", "весной"): 2,
                         ("свою", "машину"): 9, ("машину", "весной"): 3,
                         ("Старый", "рыбак"): 1, ("рыбак", "продал"): 2,
                         ("рыбак", "купил"): 2, ("купил", "свою"): 30, ("продал", "свою"): 10}),
        upos={"машину": Counter({"NOUN": 70}), "купил": Counter({"VERB": 60}),
              "рыбак": Counter({"NOUN": 50}), "продал": Counter({"VERB": 50})},
    )  # fmt: skip
    ctx = make_ctx("SOMO", "ru", stats)
    s = sentences("ru")["ru-somo"]
    texts = set()
    for seed in range(30):
        c = run("SOMO", s, ctx, seed)
        assert c is not None
        texts.add(" ".join(c.variants[1].tokens))
    # рыбак has no replacement; продал -> купил (30 vs 10: ln 3 > 1) fails; лодку -> машину
    assert texts == {"Старый рыбак продал свою машину весной ."}


# --------------------------------------------------------------------------- CoordInv


def test_coordinv_keeps_tokens_modulo_first_letters() -> None:
    for lang in LANGS:
        ctx = table_ctx("CoordInv", lang)
        for s in sentences(lang).values():
            c = run("CoordInv", s, ctx)
            if c is None:
                continue
            original, inverted = c.variants
            assert original.tokens == s.tokens and (original.label, inverted.label) == ("O", "I")
            assert inverted.tokens != s.tokens
            assert sorted(t.lower() for t in inverted.tokens) == sorted(t.lower() for t in s.tokens)
            assert inverted.tokens[-1] == s.tokens[-1] == "."


def test_coordinv_case_rules() -> None:
    s = sentences("de")["de-coord-noun"]
    # without the corpus evidence, the spec's plain rule lower-cases the old first word
    ctx = make_ctx("CoordInv", "de", CorpusStats(), case_from_counts=False)
    c = run("CoordInv", s, ctx)
    assert c is not None
    assert " ".join(c.variants[1].tokens) == "Die kleine Katze schlief , aber hunde bellten laut ."
    # a word capitalised only sentence-initially is lower-cased (English "The")
    ctx = make_ctx(
        "CoordInv", "en", CorpusStats(bigrams=Counter({("at", "the"): 9, ("said", "The"): 1}))
    )
    c = run("CoordInv", sentences("en")["en-coord-comma"], ctx)
    assert " ".join(c.variants[1].tokens) == "The dog barked , and the cat slept ."


def test_coordinv_real_looking_sentences() -> None:
    text = (
        "1\tI\tI\tPRON\t_\tCase=Nom|Number=Sing|Person=1|PronType=Prs\t2\tnsubj\t_\t_\n"
        "2\tstayed\tstay\tVERB\t_\tTense=Past|VerbForm=Fin\t0\troot\t_\t_\n"
        "3\thome\thome\tADV\t_\t_\t2\tadvmod\t_\t_\n"
        "4\tbut\tbut\tCCONJ\t_\t_\t8\tcc\t_\t_\n"
        "5\tmy\tmy\tPRON\t_\tPoss=Yes\t6\tnmod:poss\t_\t_\n"
        "6\tfriends\tfriend\tNOUN\t_\tNumber=Plur\t8\tnsubj\t_\t_\n"
        "7\thave\thave\tAUX\t_\tTense=Pres|VerbForm=Fin\t8\taux\t_\t_\n"
        "8\tgone\tgo\tVERB\t_\tTense=Past|VerbForm=Part\t2\tconj\t_\t_\n"
        "9\tout\tout\tADP\t_\t_\t8\tcompound:prt\t_\t_\n"
        "10\t!\t!\tPUNCT\t_\t_\t2\tpunct\t_\t_\n"
    )
    s = next(parse_conllu(text))
    ctx = make_ctx(
        "CoordInv", "en", CorpusStats(bigrams=Counter({("and", "I"): 50, ("said", "i"): 1}))
    )
    c = run("CoordInv", s, ctx)
    assert c is not None and c.stratum == "shorter"
    assert " ".join(c.variants[1].tokens) == "My friends have gone out but I stayed home !"

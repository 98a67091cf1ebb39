"""Extraction on the real gold treebanks (skipped when ../shared is absent).

Every line written is checked against the gold annotation of the sentence it came from (found
through the provenance file), recomputing each label here from the rules in docs/TASKS.md
without using the task modules (Tense: the finite verb; BShift: never the first word; CoordInv:
a clause first, no quotes, no ", ." ending); lexical keys recomputed here never cross splits,
case-folded; classes are balanced; no source sentence feeds two tasks. All five languages.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tests.conftest import shared_path
from xprobe.extract.pipeline import ExtractConfig, check_probing_dir, extract
from xprobe.languages import load_profile
from xprobe.ud import Sentence, read_conllu, tree_depth

pytestmark = [pytest.mark.slow, pytest.mark.shared]

BINS = (5, 9, 13, 17, 21, 26)
SETS = {
    "en": ["en_ewt-ud-train.conllu"],
    "de": ["de_gsd-ud-dev.conllu", "de_gsd-ud-test.conllu"],
    "es": ["es_gsd-ud-dev.conllu", "es_gsd-ud-test.conllu"],
    "fr": ["fr_gsd-ud-dev.conllu", "fr_gsd-ud-test.conllu"],
    "ru": ["ru_gsd-ud-dev.conllu", "ru_gsd-ud-test.conllu"],
}


def _rel(w) -> str:
    return w.deprel.split(":")[0]


def _surface_of(s: Sentence, word_index: int) -> str:
    for t in s.surface:
        if t.first <= word_index <= t.last:
            return t.form
    raise AssertionError


def _finite(w, profile) -> bool:
    """The profile's finite value (VerbForm=Fin; Irish: VerbForm=Cop, the copula) or no VerbForm
    at all (Turkish finite verbs carry none)."""
    name, _, value = profile.finite_feature.partition("=")
    return w.feat(name) in (value, None)


MOODS = ("Imp", "Opt", "Jus", "Cnd", "Sub", "Des", "Nec", "Pot")  # never a tense (docs/tasks.md)


def _tense(s: Sentence, profile) -> tuple[str, str] | None:
    """SentEval's rule: the main clause's finite verb, never a participle, never a mood
    without tense (imperative, optative...)."""
    root = next(w for w in s.words if w.head == 0)
    got = _finite_tense(s, profile, root)
    if got is None or any(m in MOODS for m in (got[2].feat("Mood") or "").split(",")):
        return None
    if any(m in MOODS for m in (root.feat("Mood") or "").split(",")):
        return None
    return got[0], got[1]


def _finite_tense(s: Sentence, profile, root) -> tuple[str, str, object] | None:

    def label(w):
        v = w.feat("Tense")
        return "PAST" if v in profile.tense_past else "PRES" if v in profile.tense_pres else None

    if _finite(root, profile) and label(root):
        return label(root), _surface_of(s, root.id - 1), root
    finite = [
        w
        for w in s.words
        if w.head == root.id and _rel(w) in ("aux", "cop") and _finite(w, profile) and label(w)
    ]  # fmt: skip
    if len(finite) != 1:
        return None
    return label(finite[0]), _surface_of(s, finite[0].id - 1), finite[0]


def _participle_tense(s: Sentence, profile) -> tuple[str, str] | None:
    """Hebrew-HTB's present: SentEval's rule for the past; else a VERB root with VerbForm=Part
    whose aux/cop dependents carry no Tense at all (a future copula is no present)."""
    got = _tense(s, profile)
    if got is not None:
        return got
    root = next(w for w in s.words if w.head == 0)
    if root.upos != "VERB" or root.feat("VerbForm") != "Part" or root.feat("Tense"):
        return None
    deps = [w for w in s.words if w.head == root.id and _rel(w) in ("aux", "cop")]
    if any(w.feat("Tense") for w in deps):
        return None
    return "PRES", _surface_of(s, root.id - 1)


def _number(s: Sentence, rel: str) -> tuple[str, str] | None:
    root = next(w for w in s.words if w.head == 0)
    deps = [w for w in s.words if w.head == root.id and _rel(w) == rel]
    if len(deps) != 1 or deps[0].upos != "NOUN":
        return None
    n = deps[0].feat("Number")
    lab = {"Sing": "NN", "Plur": "NNS"}.get(n or "")
    return (lab, _surface_of(s, deps[0].id - 1)) if lab else None


def _replaced_at(text: str, src: list[str]) -> list[tuple[int, str]]:
    """Every (i, word) where replacing token i of ``src`` by ``word`` gives ``text``."""
    found = []
    for i in range(len(src)):
        head, tail = " ".join(src[:i]), " ".join(src[i + 1 :])
        pre, post = head + " " if head else "", " " + tail if tail else ""
        if len(text) > len(pre) + len(post) and text.startswith(pre) and text.endswith(post):
            word = text[len(pre) : len(text) - len(post)]
            if word != src[i] and word.strip(" ") == word:
                found.append((i, word))
    return found


def _swapped_at(text: str, src: list[str]) -> list[int]:
    """Every i where exchanging words i and i+1 of ``src`` gives ``text`` (a word holding
    spaces, Vietnamese "học sinh", moves whole, its syllables in order)."""
    found = []
    for i in range(len(src) - 1):
        t = [*src[:i], src[i + 1], src[i], *src[i + 2 :]]
        if src[i] != src[i + 1] and " ".join(t) == text:
            found.append(i)
    return found


def _check_line(file: str, label: str, text: str, s: Sentence, profile) -> str | None:
    """The lexical key of the line (None if the task has none); asserts the label.

    A line is its words joined by single spaces; a word whose form holds spaces (UD
    Vietnamese-VTB "học sinh") is written with its syllables apart, so the line's whitespace
    tokens may outnumber the words. Rules count words (``src``), never syllables."""
    src = list(s.tokens)
    natural = " ".join(src)
    assert text == " ".join(text.split()), text  # one space between tokens, nothing else
    if file == "sentence_length":
        assert text == natural and label == str(sum(len(src) >= b for b in BINS) - 1)
    elif file == "word_content":
        assert text == natural and label.isalpha() and len(label) >= 4
        assert [t.lower() for t in src].count(label) == 1
        assert text.lower().split().count(label) == 1  # not also a syllable of another word
    elif file == "tree_depth":
        assert text == natural and label == str(tree_depth(s.heads))
    elif file == "bigram_shift":
        assert not any(q in text for q in profile.quotes)
        if label == "O":
            assert text == natural
        else:
            assert text != natural, text  # a swap that reads as the original is none
            first = next(i for i, t in enumerate(s.surface) if s.words[t.first].upos != "PUNCT")
            at = [
                i
                for i in _swapped_at(text, src)
                if i > first
                and all(s.words[s.surface[j].first].upos != "PUNCT" for j in (i, i + 1))
            ]
            assert at, text
    elif file == "past_present":
        assert text == natural
        rule = profile.tasks.get("past_present", {}).get("rule", "finite")
        got = _participle_tense(s, profile) if rule == "participle" else _tense(s, profile)
        assert got is not None and got[0] == label, (got, label, text)
        return got[1]
    elif file in ("subj_number", "obj_number"):
        assert text == natural
        got = _number(s, "nsubj" if file == "subj_number" else "obj")
        assert got is not None and got[0] == label, (got, label, text)
        return got[1]
    elif file == "odd_man_out":
        if label == "O":
            assert text == natural
            return None
        # one word, never the first or last, replaced by one of as many syllables (a word may
        # hold spaces: Vietnamese "học sinh"), so the line keeps its length
        at = [
            (i, new)
            for i, new in _replaced_at(text, src)
            if 0 < i < len(src) - 1
            and s.surface[i].first == s.surface[i].last
            and s.words[s.surface[i].first].upos in ("NOUN", "VERB")
            and new.count(" ") == src[i].count(" ")
        ]
        assert at, text
        return at[0][1]
    elif file == "coordination_inversion":
        toks = text.split(" ")
        assert sum(w.deprel == "cc" or w.deprel.startswith("cc:") for w in s.words) == 1
        assert not any(q in text for q in profile.quotes)
        root = next(w for w in s.words if w.head == 0)
        assert root.upos in ("VERB", "AUX") or any(
            w.head == root.id and _rel(w) in ("nsubj", "csubj", "cop") for w in s.words
        ), text  # the first conjunct is a clause
        if len(toks) > 1 and toks[-1] in profile.sentence_final:
            assert toks[-2] not in profile.separators, text  # never ", ."
        if label == "O":
            assert text == natural
        else:
            syllables = natural.split(" ")
            assert text != natural
            assert sorted(t.lower() for t in toks) == sorted(t.lower() for t in syllables)
    else:
        raise AssertionError(f"unknown task file {file}")
    return None


@pytest.mark.parametrize("lang", sorted(SETS))
def test_gold_treebanks_agree_with_annotation(tmp_path: Path, lang: str) -> None:
    paths = [str(shared_path("data", "ud", lang, name)) for name in SETS[lang]]
    m = extract(ExtractConfig(
        lang=lang, out=tmp_path, inputs=paths, sizes=(200, 40, 40), allow_partial=True,
        provenance=True, progress=False,
    ))  # fmt: skip
    # dev+test treebanks at the absolute windows leave some splits empty or one-class, which
    # --check rightly reports (tests/extract/test_small_corpora.py); nothing else may be wrong
    small = ("is empty (", "has one class only")
    assert [p for p in check_probing_dir(tmp_path) if not any(s in p for s in small)] == []
    profile = load_profile(lang)
    sources = {(p, s.line): s for p in paths for s in read_conllu(p)}
    used: Counter[tuple[str, int]] = Counter()
    checked = 0
    for file, entry in m["tasks"].items():
        if entry.get("applicable", True) is False:  # too small here: said why, no file
            assert entry["reason"] and not (tmp_path / f"{file}.txt").exists()
            continue
        rows = (tmp_path / entry["file"]).read_text(encoding="utf-8").splitlines()
        prov = (tmp_path / entry["provenance"]).read_text(encoding="utf-8").splitlines()
        assert len(rows) == len(prov) == entry["lines"]
        key_splits: dict[str, set[str]] = defaultdict(set)
        per_split: dict[str, Counter[str]] = defaultdict(Counter)
        for row, p in zip(rows, prov, strict=True):
            split, label, text = row.split("\t")
            psplit, plabel, source, line, sent_id, _ = p.split("\t")
            assert (psplit, plabel) == (split, label)
            s = sources[(source, int(line))]
            assert sent_id == (s.comment("sent_id") or "_")
            key = _check_line(file, label, text, s, profile)
            if key is not None:
                key_splits[key.casefold()].add(split)  # keys are compared case-folded
            per_split[split][label] += 1
            used[(source, int(line))] += 1
            checked += 1
        leaks = {k: v for k, v in key_splits.items() if len(v) > 1}
        assert not leaks, (file, leaks)
        for split, counts in per_split.items():
            values = [counts[lab] for lab in entry["labels"]]
            assert max(values) - min(values) <= 1, (file, split, values)
            assert values == sorted(values, reverse=True)
    assert checked > 500
    assert max(used.values()) == 1  # no source sentence feeds two tasks

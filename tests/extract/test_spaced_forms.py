"""Words whose FORM holds spaces (UD Vietnamese-VTB writes "học sinh", "Hà Nội" as one token).

A probing line is its words written with their syllables apart (the natural text, single
spaces); the rules keep working on UD words (docs/tasks.md, "Words written with spaces"). Every
expectation below was worked out by hand from the hand-made Vietnamese-like sentences here.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Sequence
from pathlib import Path

from tests.extract.handmade import Word, write
from xprobe.extract.pipeline import ExtractConfig, check_probing_dir, extract
from xprobe.languages import load_profile
from xprobe.tasks import Context, get_task, resolve_params
from xprobe.tasks.word_content import Targets
from xprobe.ud import Sentence, parse_conllu

NBSP = "\u00a0"


def clause_pair(subj1: str, obj1: str, subj2: str, obj2: str, extra: int = 0) -> list[Word]:
    """``SUBJ1 thấy OBJ1 , và SUBJ2 thấy OBJ2 .``: two coordinated main clauses; ``extra`` 1
    adds "nữa" to the first clause, 2 to the second (clauses of 4 and 3 words, or 3 and 4)."""
    first: list[Word] = [
        (subj1, "PRON", "_", 2, "nsubj"),
        ("thấy", "VERB", "_", 0, "root"),
        (obj1, "NOUN", "_", 2, "obj"),
    ]
    if extra == 1:
        first.append(("nữa", "ADV", "_", 2, "advmod"))
    c = len(first) + 4  # the conj verb
    words = [
        *first,
        (",", "PUNCT", "_", c, "punct"),
        ("và", "CCONJ", "_", c, "cc"),
        (subj2, "NOUN", "_", c, "nsubj"),
        ("thấy", "VERB", "_", 2, "conj"),
        (obj2, "NOUN", "_", c, "obj"),
    ]
    if extra == 2:
        words.append(("nữa", "ADV", "_", c, "advmod"))
    words.append((".", "PUNCT", "_", 2, "punct"))
    return words


def seeing(obj: str, place: str, extra: Sequence[str]) -> list[Word]:
    """``Tôi thấy OBJ ở PLACE EXTRA... .``"""
    words: list[Word] = [
        ("Tôi", "PRON", "_", 2, "nsubj"),
        ("thấy", "VERB", "_", 0, "root"),
        (obj, "NOUN", "_", 2, "obj"),
        ("ở", "ADP", "_", 5, "case"),
        (place, "PROPN", "_", 2, "obl"),
    ]
    words += [(x, "ADV", "_", 2, "advmod") for x in extra]
    words.append((".", "PUNCT", "_", 2, "punct"))
    return words


OBJECTS = ("mèo", "chó", "học sinh", "sinh viên")
PLACES = ("Hà Nội", "Huế", "Sài Gòn", "Đà Nẵng")


def corpus(path: Path, n: int = 80) -> Path:
    """``n`` seeing sentences (5..9 words, most with a word of two syllables) and ``n // 4``
    coordinations, each sentence different from every other."""
    sents = []
    for i in range(n):
        extra = [f"lần{i}", "nữa", "rồi", "đó"][: i % 5]
        sents.append((f"s{i}", seeing(OBJECTS[i % 4], PLACES[i // 4 % 4], extra)))
    for i in range(n // 4):
        subj2 = ("học sinh", "bác sĩ")[i % 2]
        pair = clause_pair("Chúng tôi", f"mèo{i}", subj2, OBJECTS[i % 4], i % 3)
        sents.append((f"c{i}", pair))
    return write(path, sents)


def _single_spaced(text: str) -> bool:
    return text == " ".join(text.split())


def _rows(out: Path, file: str) -> list[tuple[str, str, str]]:
    lines = (out / f"{file}.txt").read_text(encoding="utf-8").splitlines()
    return [tuple(row.split("\t")) for row in lines]  # type: ignore[misc]


def test_sentences_with_spaced_words_are_offered_and_written_as_syllables(tmp_path: Path) -> None:
    src = corpus(tmp_path / "vi.conllu")
    out = tmp_path / "out"
    m = extract(ExtractConfig(
        lang="vi", out=out, inputs=[str(src)], tasks=["SentLen", "BShift"], sizes=(8, 2, 2),
        allow_partial=True, exclusive=False, progress=False, params={"SentLen": {"bins": (5, 9)}},
    ))  # fmt: skip
    assert m["corpus"]["offered"] == m["corpus"]["in_length_range"] == 100
    assert check_probing_dir(out) == []
    texts = {" ".join(s.tokens): s for s in parse_conllu(src.read_text(encoding="utf-8"))}
    swapped = 0
    for _, label, text in _rows(out, "sentence_length"):
        assert _single_spaced(text) and text in texts
        # SentLen counts words: "Tôi thấy học sinh ở Hà Nội lần3 nữa rồi ." is 9 words,
        # 11 syllables, label 1 (9-12 words)
        words = len(texts[text].tokens)
        assert label == str(sum(words >= b for b in (5, 9)) - 1)
    for _, label, text in _rows(out, "bigram_shift"):
        assert _single_spaced(text)
        assert "Nội Hà" not in text and "Gòn Sài" not in text and "sinh học" not in text
        if label == "I":
            swapped += 1
            assert text not in texts
            assert any(_swap_of(text, s.tokens) for s in texts.values()), text
        else:
            assert text in texts
    assert swapped


def _swap_of(text: str, tokens: Sequence[str]) -> bool:
    """Whether ``text`` is ``tokens`` with two adjacent words exchanged, written apart."""
    for i in range(1, len(tokens) - 1):
        t = list(tokens)
        t[i], t[i + 1] = t[i + 1], t[i]
        if " ".join(t) == text:
            return True
    return False


def test_coordinated_clauses_with_spaced_words_invert_word_by_word(tmp_path: Path) -> None:
    src = corpus(tmp_path / "vi.conllu")
    out = tmp_path / "out"
    extract(ExtractConfig(
        lang="vi", out=out, inputs=[str(src)], tasks=["CoordInv"], sizes=(12, 3, 3),
        allow_partial=True, progress=False,
    ))  # fmt: skip
    rows = _rows(out, "coordination_inversion")
    inverted = {text for _, label, text in rows if label == "I"}
    assert inverted and all(_single_spaced(t) for _, _, t in rows)
    # c1 "Chúng tôi thấy mèo1 nữa , và bác sĩ thấy chó ." inverted, the case moved word by
    # word: "Bác sĩ thấy chó , và chúng tôi thấy mèo1 nữa ."
    expected = set()
    for i in range(20):
        subj, obj = ("Học sinh", "Bác sĩ")[i % 2], OBJECTS[i % 4]
        first, second = f"chúng tôi thấy mèo{i}", f"{subj} thấy {obj}"
        first += " nữa" if i % 3 == 1 else ""
        second += " nữa" if i % 3 == 2 else ""
        expected.add(f"{second} , và {first} .")
    assert "Bác sĩ thấy chó , và chúng tôi thấy mèo1 nữa ." in expected
    assert inverted <= expected


def test_a_reason_counts_the_sentences_offered(tmp_path: Path) -> None:
    """Two sentences with a no-break space inside a word cannot be written one space per
    token: they are not offered, and CoordInv's reason counts the four that are."""
    sents = [
        ("a", seeing("mèo", "Huế", [])),
        ("b", seeing("học sinh", "Hà Nội", [])),
        ("c", seeing("chó", "Sài Gòn", [])),
        ("d", seeing("sinh viên", "Huế", ["nữa"])),
        ("e", seeing(f"học{NBSP}sinh", "Huế", [])),
        ("f", seeing("chó", f"Đà{NBSP}Nẵng", [])),
    ]
    out = tmp_path / "out"
    m = extract(ExtractConfig(
        lang="vi", out=out, inputs=[str(write(tmp_path / "v.conllu", sents))],
        tasks=["CoordInv"], sizes=(2, 1, 1), allow_partial=True, progress=False,
    ))  # fmt: skip
    assert m["corpus"]["in_length_range"] == 6 and m["corpus"]["offered"] == 4
    entry = m["tasks"]["coordination_inversion"]
    assert entry["applicable"] is False
    assert "in the 4 sentences of 5..28 tokens" in entry["reason"], entry["reason"]
    assert json.dumps(m, ensure_ascii=False).count(NBSP) == 0


def _ctx(name: str, src: Path, **params: object) -> tuple[Context, list[Sentence]]:
    """A task's context as extract builds it, with counts from ``src``."""
    from xprobe.extract.scan import count_corpus

    spec = get_task(name)
    profile = load_profile("vi")
    stats, _ = count_corpus([str(src)], bigrams=spec.uses_bigrams)
    ctx = Context(profile, resolve_params(spec, profile, params), stats)
    ctx = dataclasses.replace(ctx, data=spec.prepare(ctx))
    return ctx, list(parse_conllu(src.read_text(encoding="utf-8")))


def test_somo_replaces_a_word_by_one_of_as_many_syllables(tmp_path: Path) -> None:
    """Every object follows "thấy" and precedes "ở" equally often, so each of the four may
    replace another; a one-syllable word (mèo) is replaced by one of one syllable (chó) only,
    a two-syllable one (học sinh) by one of two (sinh viên): the line keeps its length. "cá voi"
    written with a no-break space follows and precedes them as often, but cannot be written one
    space between tokens: never a replacement."""
    objects = (*OBJECTS, f"cá{NBSP}voi")
    sents = [(f"s{i}", seeing(objects[i % 5], "Huế", [f"lần{i}"])) for i in range(50)]
    ctx, sentences = _ctx(
        "SOMO", write(tmp_path / "v.conllu", sents), min_freq=1, max_freq=1000,
        min_per_million=0.0, max_per_million=0.0,
    )  # fmt: skip
    widths = set()
    for seed in range(10):
        for s in sentences:
            if NBSP in s.text:
                continue  # not offered
            cand = get_task("SOMO").candidate(s, ctx, random.Random(seed))
            assert cand is not None
            (orig, changed) = cand.variants
            key = changed.key
            pairs = zip(orig.tokens, changed.tokens, strict=True)
            i = next(j for j, (a, b) in enumerate(pairs) if a != b)
            assert orig.tokens[i] in OBJECTS and key in OBJECTS
            assert key.count(" ") == orig.tokens[i].count(" "), (orig.tokens, key)
            text = " ".join(changed.tokens)
            assert len(text.split()) == len(" ".join(orig.tokens).split())
            widths.add(key.count(" "))
    assert widths == {0, 1}


def test_wc_target_occurs_once_among_the_written_tokens(tmp_path: Path) -> None:
    """Target "sinh" (to be born): a sentence with the word "sinh" is labelled sinh; one that
    also writes "sinh" as a syllable of "học sinh" shows it twice to a reader, and is not used."""
    sents = [
        ("a", [("Tôi", "PRON", "_", 2, "nsubj"), ("sinh", "VERB", "_", 0, "root"),
               ("ở", "ADP", "_", 4, "case"), ("Hà Nội", "PROPN", "_", 2, "obl"),
               (".", "PUNCT", "_", 2, "punct")]),
        ("b", [("Học sinh", "NOUN", "_", 2, "nsubj"), ("sinh", "VERB", "_", 0, "root"),
               ("ở", "ADP", "_", 4, "case"), ("Huế", "PROPN", "_", 2, "obl"),
               (".", "PUNCT", "_", 2, "punct")]),
    ]  # fmt: skip
    ctx, (a, b) = _ctx("WC", write(tmp_path / "v.conllu", sents))
    ctx = dataclasses.replace(ctx, data=Targets(("sinh",), frozenset({"sinh"})))
    cand = get_task("WC").candidate(a, ctx, random.Random(0))
    assert cand is not None and cand.variants[0].label == "sinh"
    assert get_task("WC").candidate(b, ctx, random.Random(0)) is None


def test_the_draft_counts_the_sentences_extract_offers(tmp_path: Path) -> None:
    """``profile draft`` looks at the sentences extract will offer: its reasons count the four
    that can be written one space between tokens, not the two with a no-break space."""
    from xprobe.profiles.draft import draft_profile

    sents = [
        ("a", seeing("mèo", "Huế", [])),
        ("b", seeing("học sinh", "Hà Nội", [])),
        ("c", seeing("chó", "Sài Gòn", [])),
        ("d", seeing("sinh viên", "Huế", ["nữa"])),
        ("e", seeing(f"học{NBSP}sinh", "Huế", [])),
        ("f", seeing("chó", f"Đà{NBSP}Nẵng", [])),
    ]
    src = write(tmp_path / "v.conllu", sents)
    _, report = draft_profile([str(src)], "vi", "Vietnamese", allow_no_feats=True)
    line = next(r for r in report if r.startswith("coordination_inversion:"))
    assert "in the 4 sentences of 5..28 tokens" in line, line


def test_a_perturbation_that_reads_as_a_corpus_sentence_is_rejected(tmp_path: Path) -> None:
    """A perturbation is compared with the corpus as written: swapping "học" and "sinh viên" in
    "Tôi học sinh viên ." gives "Tôi sinh viên học .", the text of another sentence of the corpus
    (segmented "sinh" + "viên học"): an original under label I, so BShift has no candidate; and
    "Tôi thấy xanh xanh xanh ." reads the same with "xanh xanh" and "xanh" swapped."""
    sents = [
        ("a", [("Tôi", "PRON", "_", 2, "nsubj"), ("học", "VERB", "_", 0, "root"),
               ("sinh viên", "NOUN", "_", 2, "obj"), (".", "PUNCT", "_", 2, "punct")]),
        ("b", [("Tôi", "PRON", "_", 2, "nsubj"), ("sinh", "VERB", "_", 0, "root"),
               ("viên học", "NOUN", "_", 2, "obj"), (".", "PUNCT", "_", 2, "punct")]),
        ("c", [("Tôi", "PRON", "_", 2, "nsubj"), ("thấy", "VERB", "_", 0, "root"),
               ("xanh xanh", "NOUN", "_", 2, "obj"), ("xanh", "ADJ", "_", 3, "amod"),
               (".", "PUNCT", "_", 2, "punct")]),
    ]  # fmt: skip
    ctx, (a, b, c) = _ctx("BShift", write(tmp_path / "v.conllu", sents))
    bshift = get_task("BShift")
    assert bshift.candidate(a, ctx, random.Random(0)) is None
    got = bshift.candidate(b, ctx, random.Random(0))  # "Tôi viên học sinh ." is no sentence
    assert got is not None and " ".join(got.variants[1].tokens) == "Tôi viên học sinh ."
    for seed in range(5):  # "xanh xanh" + "xanh" swapped reads as itself: "thấy" moves
        got = bshift.candidate(c, ctx, random.Random(seed))
        assert got is not None and " ".join(got.variants[1].tokens) == "Tôi xanh xanh thấy xanh ."

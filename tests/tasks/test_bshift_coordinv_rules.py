"""BShift never swaps the first word; CoordInv's first conjunct is a clause, a comma before the
conjunction is always the separator, and quotes rule a sentence out (the issue's examples, as
hand-written CoNLL-U)."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from xprobe.languages import load_profile, profile_from_dict
from xprobe.tasks import Context, CorpusStats, get_task, resolve_params
from xprobe.ud import Sentence, parse_conllu


def conllu(rows: list[tuple[str, str, int, str]]) -> Sentence:
    """(form, UPOS, head, deprel) rows as one CoNLL-U sentence."""
    text = "".join(
        f"{i}\t{f}\t{f.lower()}\t{u}\t_\t_\t{h}\t{r}\t_\t_\n"
        for i, (f, u, h, r) in enumerate(rows, 1)
    )
    return next(parse_conllu(text))


def ctx(name: str, lang: str = "en") -> Context:
    spec = get_task(name)
    profile = load_profile(lang)
    c = Context(profile, resolve_params(spec, profile), CorpusStats(bigrams=Counter()))
    return dataclasses.replace(c, data=spec.prepare(c))


def swapped_positions(s: Sentence, seeds: int = 60) -> set[int]:
    spec, c = get_task("BShift"), ctx("BShift")
    seen: set[int] = set()
    for seed in range(seeds):
        cand = spec.candidate(s, c, random.Random(seed))
        assert cand is not None
        original, swapped = cand.variants
        pairs = zip(original.tokens, swapped.tokens, strict=True)
        seen |= {i for i, (a, b) in enumerate(pairs) if a != b}
    return seen


# "( Bill Gates founded Microsoft in 1975 ) ."
PAREN = [
    ("(", "PUNCT", 4, "punct"),
    ("Bill", "PROPN", 4, "nsubj"),
    ("Gates", "PROPN", 2, "flat"),
    ("founded", "VERB", 0, "root"),
    ("Microsoft", "PROPN", 4, "obj"),
    ("in", "ADP", 7, "case"),
    ("1975", "NUM", 4, "obl"),
    (")", "PUNCT", 4, "punct"),
    (".", "PUNCT", 4, "punct"),
]


def test_bshift_never_swaps_the_first_word_after_punctuation() -> None:
    seen = swapped_positions(conllu(PAREN))
    assert seen == {2, 3, 4, 5, 6}  # "Bill" (1) never moves, nor the punctuation
    # without the bracket, the first word is token 0 and still never moves
    seen = swapped_positions(conllu([(f, u, max(h - 1, 0), r) for f, u, h, r in PAREN[1:7]] + [
        (".", "PUNCT", 3, "punct")
    ]))  # fmt: skip
    assert seen == {1, 2, 3, 4, 5}


def test_bshift_sentence_of_one_word_and_punctuation_has_no_pair() -> None:
    s = conllu([("(", "PUNCT", 2, "punct"), ("Yes", "INTJ", 0, "root"), (")", "PUNCT", 2, "punct")])
    assert get_task("BShift").candidate(s, ctx("BShift"), random.Random(0)) is None


def invert(rows: list[tuple[str, str, int, str]], lang: str = "en") -> tuple[str, str] | None:
    c = get_task("CoordInv").candidate(conllu(rows), ctx("CoordInv", lang), random.Random(0))
    return None if c is None else (" ".join(c.variants[1].tokens), c.stratum)


def test_coordinv_first_conjunct_must_be_a_clause() -> None:
    # the example: "Any major dischord and we all suffer ." (a bare noun phrase first)
    rows = [
        ("Any", "DET", 3, "det"),
        ("major", "ADJ", 3, "amod"),
        ("dischord", "NOUN", 0, "root"),
        ("and", "CCONJ", 7, "cc"),
        ("we", "PRON", 7, "nsubj"),
        ("all", "DET", 5, "det"),
        ("suffer", "VERB", 3, "conj"),
        (".", "PUNCT", 3, "punct"),
    ]
    assert invert(rows) is None
    # an imperative is a clause: "Come early and we all win ."
    rows = [
        ("Come", "VERB", 0, "root"),
        ("early", "ADV", 1, "advmod"),
        ("and", "CCONJ", 6, "cc"),
        ("we", "PRON", 6, "nsubj"),
        ("all", "DET", 4, "det"),
        ("win", "VERB", 1, "conj"),
        (".", "PUNCT", 1, "punct"),
    ]
    assert invert(rows) == ("We all win and come early .", "shorter")
    # a noun root with a copula or a subject is a clause: "Tom is a doctor and Ann is a nurse ."
    rows = [
        ("Tom", "PROPN", 4, "nsubj"),
        ("is", "AUX", 4, "cop"),
        ("a", "DET", 4, "det"),
        ("doctor", "NOUN", 0, "root"),
        ("and", "CCONJ", 9, "cc"),
        ("Ann", "PROPN", 9, "nsubj"),
        ("is", "AUX", 9, "cop"),
        ("a", "DET", 9, "det"),
        ("nurse", "NOUN", 4, "conj"),
        (".", "PUNCT", 4, "punct"),
    ]
    assert invert(rows) == ("Ann is a nurse and Tom is a doctor .", "equal")


def test_coordinv_comma_attached_inside_the_first_clause_is_the_separator() -> None:
    # "The cat slept in the garden , and the dog barked ." with the comma on "garden"
    rows = [
        ("The", "DET", 2, "det"),
        ("cat", "NOUN", 3, "nsubj"),
        ("slept", "VERB", 0, "root"),
        ("in", "ADP", 6, "case"),
        ("the", "DET", 6, "det"),
        ("garden", "NOUN", 3, "obl"),
        (",", "PUNCT", 6, "punct"),
        ("and", "CCONJ", 11, "cc"),
        ("the", "DET", 10, "det"),
        ("dog", "NOUN", 11, "nsubj"),
        ("barked", "VERB", 3, "conj"),
        (".", "PUNCT", 3, "punct"),
    ]
    got = invert(rows)
    assert got is not None and not got[0].endswith(", .")
    # the first clause has 6 tokens without its comma, the second 3
    assert got == ("The dog barked , and the cat slept in the garden .", "longer")


# ")" closes a parenthesis right before "and": it belongs to the first clause, whether the parser
# hangs it on the bracketed word (5) or on the root (3)
@pytest.mark.parametrize("bracket_head", [5, 3])
def test_coordinv_closing_bracket_before_the_conjunction_stays_in_its_clause(
    bracket_head: int,
) -> None:
    rows = [
        ("The", "DET", 2, "det"),
        ("cat", "NOUN", 3, "nsubj"),
        ("slept", "VERB", 0, "root"),
        ("(", "PUNCT", 5, "punct"),
        ("today", "NOUN", 3, "obl"),
        (")", "PUNCT", bracket_head, "punct"),
        ("and", "CCONJ", 10, "cc"),
        ("the", "DET", 9, "det"),
        ("dog", "NOUN", 10, "nsubj"),
        ("barked", "VERB", 3, "conj"),
        (".", "PUNCT", 3, "punct"),
    ]
    assert invert(rows) == ("The dog barked and the cat slept ( today ) .", "longer")


def test_coordinv_excludes_quotes_as_bshift_does() -> None:
    # 'The cat said " no " , and the dog barked .'
    rows = [
        ("The", "DET", 2, "det"),
        ("cat", "NOUN", 3, "nsubj"),
        ("said", "VERB", 0, "root"),
        ('"', "PUNCT", 5, "punct"),
        ("no", "INTJ", 3, "obj"),
        ('"', "PUNCT", 5, "punct"),
        (",", "PUNCT", 11, "punct"),
        ("and", "CCONJ", 11, "cc"),
        ("the", "DET", 10, "det"),
        ("dog", "NOUN", 11, "nsubj"),
        ("barked", "VERB", 3, "conj"),
        (".", "PUNCT", 3, "punct"),
    ]
    assert invert(rows) is None
    unquoted = [r for r in rows if r[0] != '"']
    unquoted = [(f, u, h - (h > 4) - (h > 5), r) for f, u, h, r in unquoted]
    assert invert(unquoted) == ("The dog barked , and the cat said no .", "longer")


def invert_with(rows, profile, bigrams: Counter[tuple[str, str]] | None = None) -> str | None:
    """The inverted sentence under ``profile`` with the corpus bigram counts given."""
    spec = get_task("CoordInv")
    c = Context(profile, resolve_params(spec, profile), CorpusStats(bigrams=bigrams or Counter()))
    c = dataclasses.replace(c, data=spec.prepare(c))
    cand = spec.candidate(conllu(rows), c, random.Random(0))
    return None if cand is None else " ".join(cand.variants[1].tokens)


TURKISH = profile_from_dict({"code": "tr", "name": "Turkish"})


def test_coordinv_inverted_line_never_starts_with_punctuation() -> None:
    # "Hava güzeldi ama , nedense bugün yağmur yağdı ." ("The weather was fine, but for some
    # reason it rained today"): the comma after the conjunction opens the second clause, which
    # would start the inverted line: ", Nedense bugün yağmur yağdı ama hava güzeldi ."
    rows = [
        ("Hava", "NOUN", 2, "nsubj"),
        ("güzeldi", "VERB", 0, "root"),
        ("ama", "CCONJ", 8, "cc"),
        (",", "PUNCT", 8, "punct"),
        ("nedense", "ADV", 8, "advmod"),
        ("bugün", "NOUN", 8, "obl"),
        ("yağmur", "NOUN", 8, "nsubj"),
        ("yağdı", "VERB", 2, "conj"),
        (".", "PUNCT", 2, "punct"),
    ]
    assert invert_with(rows, TURKISH) is None
    # without that comma the clauses swap as usual
    rows = [r for r in rows if r[0] != ","]
    rows = [(f, u, h - 1 if h > 3 else h, d) for f, u, h, d in rows]
    assert invert_with(rows, TURKISH) == "Nedense bugün yağmur yağdı ama hava güzeldi ."


def test_coordinv_leading_punctuation_stays_first_and_case_moves() -> None:
    # "- Nedense bugün gelmedi , ama o yarın gelir ." (a dialogue dash: "For some reason (s)he
    # did not come today, but (s)he comes tomorrow"). The dash opens the line, not the first
    # clause: it stays in front, and "Nedense" is lower-cased in the middle of the sentence
    # although the corpus writes it capitalised after dialogue dashes more often than after words
    rows = [
        ("-", "PUNCT", 4, "punct"),
        ("Nedense", "ADV", 4, "advmod"),
        ("bugün", "NOUN", 4, "obl"),
        ("gelmedi", "VERB", 0, "root"),
        (",", "PUNCT", 9, "punct"),
        ("ama", "CCONJ", 9, "cc"),
        ("o", "PRON", 9, "nsubj"),
        ("yarın", "NOUN", 9, "obl"),
        ("gelir", "VERB", 4, "conj"),
        (".", "PUNCT", 4, "punct"),
    ]
    bigrams = Counter({("-", "Nedense"): 4, ("ama", "nedense"): 2})
    assert invert_with(rows, TURKISH, bigrams) == "- O yarın gelir , ama nedense bugün gelmedi ."


def test_coordinv_spanish_opening_question_mark_stays_first() -> None:
    # "¿ Vienes tú y voy yo ?" -> "¿ Voy yo y vienes tú ?"
    rows = [
        ("¿", "PUNCT", 2, "punct"),
        ("Vienes", "VERB", 0, "root"),
        ("tú", "PRON", 2, "nsubj"),
        ("y", "CCONJ", 5, "cc"),
        ("voy", "VERB", 2, "conj"),
        ("yo", "PRON", 5, "nsubj"),
        ("?", "PUNCT", 2, "punct"),
    ]
    assert invert_with(rows, load_profile("es")) == "¿ Voy yo y vienes tú ?"

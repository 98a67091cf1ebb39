"""Issue 23: a sentence repeated in the input (UD Turkish-IMST holds one twice, annotated
differently) is one source sentence: the first occurrence wins, the others are neither counted
nor offered to any task, and the manifest counts them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.extract.handmade import Word, subject_sentence, write
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.extract.scan import count_corpus

# "My time of greatness has come ." twice: first with no subject of the root ("time" an obl),
# then with "time" as its subject, so SubjNum could only take it from the second copy.
FIRST: list[Word] = [
    ("My", "PRON", "_", 2, "nmod:poss"),
    ("time", "NOUN", "Number=Sing", 6, "obl"),
    ("of", "ADP", "_", 4, "case"),
    ("greatness", "NOUN", "Number=Sing", 2, "nmod"),
    ("has", "AUX", "_", 6, "aux"),
    ("come", "VERB", "Tense=Past", 0, "root"),
    (".", "PUNCT", "_", 6, "punct"),
]
SECOND: list[Word] = [(f, u, ft, h, "nsubj" if f == "time" else r) for f, u, ft, h, r in FIRST]
SUBJECTS = [
    ("farmers", "Plur", "sold", ["cattle", "grain"]),
    ("dog", "Sing", "chased", ["cat", "ball"]),
    ("teachers", "Plur", "graded", ["essay", "test"]),
    ("river", "Sing", "flooded", ["valley", "town"]),
    ("girls", "Plur", "painted", ["fence", "wall"]),
    ("baker", "Sing", "sold", ["bread", "cake"]),
]


def fixture(tmp_path: Path) -> Path:
    sents = [(f"s{i}", subject_sentence(*s)) for i, s in enumerate(SUBJECTS)]
    return write(tmp_path / "dup.conllu", [("first", FIRST), *sents, ("second", SECOND)])


def test_repeated_sentence_is_one_source_sentence(tmp_path: Path) -> None:
    conllu = fixture(tmp_path)
    cfg = ExtractConfig(
        lang="en", out=tmp_path / "out", inputs=[str(conllu)], tasks=["SubjNum"],
        sizes=(2, 2, 2), allow_partial=True, provenance=True, progress=False,
        params={"SubjNum": {"min_freq": 1, "max_freq": 100}},
    )  # fmt: skip
    m = extract(cfg)
    # only the six subject sentences are candidates: the second copy is never offered
    assert m["tasks"]["subj_number"]["sentences"]["eligible"] == len(SUBJECTS)
    assert m["corpus"]["duplicates"] == 1
    assert m["corpus"]["sentences"] == len(SUBJECTS) + 1  # distinct ones
    assert m["reader"]["sentences"] == len(SUBJECTS) + 2  # everything read
    entry = m["tasks"]["subj_number"]
    prov = (cfg.out / entry["provenance"]).read_text(encoding="utf-8").splitlines()
    assert prov and all(line.split("\t")[4] != "second" for line in prov)
    text = (cfg.out / "subj_number.txt").read_text(encoding="utf-8")
    assert "greatness" not in text
    assert json.loads((cfg.out / "manifest.json").read_text())["corpus"]["duplicates"] == 1


def test_repeated_sentence_counts_once_in_the_frequencies(tmp_path: Path) -> None:
    stats, read = count_corpus([str(fixture(tmp_path))], bigrams=True)
    assert read.sentences == len(SUBJECTS) + 2
    assert stats.duplicates == 1 and stats.sentences == len(SUBJECTS) + 1
    assert stats.forms["greatness"] == 1 and stats.forms["sold"] == 2
    assert stats.bigrams["of", "greatness"] == 1

"""Yield and projection per task, and frequency windows that follow the corpus (issue 19).

The yield test uses the synthetic corpus of test_extract.py: 400 sentences of 3..32 tokens,
four of which carry the word ``zebra`` (the Rare task's only candidates); the figures are
worked out by hand in the test. The windows tests reproduce the starvation of SubjNum and ObjNum
under absolute windows on a real treebank (UD English-EWT train, 204k tokens, in ../shared).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.extract.test_extract import PARITY, RARE, run, write_corpus
from xprobe.cli import main
from xprobe.extract.yields import amount, projection_line, yield_lines
from xprobe.ud import read_conllu

ZEBRAS = (3, 50, 120, 300)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("y") / "c.conllu"
    return write_corpus(path, 400, markers=dict.fromkeys(ZEBRAS, "zebra"))


def test_yield_and_projection_by_hand(tmp_path: Path, corpus: Path) -> None:
    sents = list(read_conllu(corpus))
    in_range = [s for s in sents if 5 <= len(s.tokens) <= 28]
    zebras = [s for s in in_range if "zebra" in s.tokens]
    assert len(sents) == 400 and len(zebras) == 4  # the four marked sentences are usable
    m = run(tmp_path, corpus, [RARE, PARITY], sizes=(6, 2, 2), allow_partial=True)
    rare, parity = m["tasks"]["rare"], m["tasks"]["parity"]
    # Rare: 4 candidates in 400 parsed sentences = 10,000 per million; all 4 written (one
    # label, no keys; 2/1/1), 6 short of 10: at 4 lines per 400 sentences, 6 more lines need
    # 6 x 400 / 4 = 600 more sentences
    assert rare["sentences"]["taken"] == 4
    assert rare["yield"] == {
        "parsed_sentences": 400,
        "candidates_per_million": 10_000.0,
        "lines_per_million": 10_000.0,
        "more_sentences_needed": 600,
    }
    # Parity: every in-range sentence is a candidate; 10 lines written, filled, no projection
    assert parity["yield"] == {
        "parsed_sentences": 400,
        "candidates_per_million": len(in_range) * 1e6 / 400,
        "lines_per_million": 25_000.0,
    }
    assert yield_lines(m) == [
        "Rare: 4 of 10; about 600 more sentences needed",
        "Parity: 10 of 10 (25,000 lines per million parsed sentences)",
    ]


def test_a_task_shrunk_too_far_is_na_without_a_yield(tmp_path: Path, corpus: Path) -> None:
    """At 10/2/2 Rare's 4 lines would be 3/1/0: te empty, so (issue 20) it does not apply; its
    entry has a reason and no yield, and the summary names it after the tasks written."""
    m = run(tmp_path, corpus, [RARE, PARITY], sizes=(10, 2, 2), allow_partial=True)
    rare = m["tasks"]["rare"]
    assert rare["applicable"] is False and "yield" not in rare
    assert "too small" in rare["reason"] and not (tmp_path / "rare.txt").exists()
    assert rare["kind"] == "corpus"  # too few candidates: the corpus, not the language
    assert yield_lines(m) == [
        "Parity: 14 of 14 (35,000 lines per million parsed sentences)",
        f"Rare: n/a (corpus: {rare['reason']})",
    ]
    assert yield_lines(m, na=False) == yield_lines(m)[:1]


def test_check_prints_the_projection(tmp_path: Path, corpus: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    run(tmp_path, corpus, [RARE], sizes=(6, 2, 2), allow_partial=True)
    assert main(["extract", "--check", str(tmp_path)]) == 0  # 2/1/1: warnings, no problem
    assert "Rare: 4 of 10; about 600 more sentences needed" in capsys.readouterr().out
    # at 10/2/2 (4 lines are 3/1/0, te empty) Rare does not apply: listed once, by file
    run(tmp_path / "na", corpus, [RARE], sizes=(10, 2, 2), allow_partial=True)
    assert main(["extract", "--check", str(tmp_path / "na")]) == 0
    out = capsys.readouterr().out
    assert out.count("n/a (corpus: the corpus is too small") == 1 and "rare: n/a (" in out


def test_amounts_and_the_issue_figures() -> None:
    assert amount(10_578_175) == "10.6 million"
    assert amount(45_123) == "45,100" and amount(987) == "987"
    # 92,479 sentences gave CoordInv 104 of 12,000 lines
    line = projection_line(
        "CoordInv", 12_000, 104, {"more_sentences_needed": (12_000 - 104) * 92_479 // 104 + 1}
    )
    assert line == "CoordInv: 104 of 12,000; about 10.6 million more sentences needed"
    none = projection_line("X", 10, 0, {"more_sentences_needed": None})
    assert none == "X: 0 of 10; nothing found: no rate to project from"


def test_the_manifest_records_the_windows_used(tmp_path: Path, corpus: Path) -> None:
    """The synthetic corpus has 7,000-odd tokens: auto gives SubjNum 5..250 per million
    (100..5,000 at 20 million tokens), counts ceil(5 x t / 10^6) = 1 .. floor(250 x t / 10^6)."""
    from xprobe.tasks.subj_number import TASK

    m = run(tmp_path, corpus, [TASK], sizes=(4, 2, 2), allow_partial=True)
    tokens = m["corpus"]["tokens"]
    how = m["tasks"]["subj_number"]["windows"]
    assert m["windows"] == "auto" and how["used"] == "per-million"
    assert how["counts"] == [1, 250 * tokens // 10**6]
    assert m["tasks"]["subj_number"]["params"]["max_freq"] == 250 * tokens // 10**6
    m = run(tmp_path / "abs", corpus, [TASK], sizes=(4, 2, 2), allow_partial=True,
            windows="absolute")  # fmt: skip
    assert m["tasks"]["subj_number"]["windows"]["counts"] == [100, 5000]


@pytest.mark.slow
@pytest.mark.shared
def test_subj_and_obj_number_no_longer_starve_on_a_small_corpus(tmp_path: Path) -> None:
    """UD English-EWT train (12,544 sentences, 204k tokens) with en.toml, whose windows are the
    absolute 100..5,000: SubjNum and ObjNum cannot fill 400/80/80 with them; with the default
    (auto: 5..250 per million, counts 2..51 here) both are filled."""
    train = shared_path("data", "ud", "en", "en_ewt-ud-train.conllu")
    common = ["extract", "--lang", "en", "--sizes", "400,80,80", "--allow-partial",
              "--tasks", "SubjNum", "ObjNum", "--no-progress", str(train)]  # fmt: skip
    assert main([*common, "--out", str(tmp_path / "abs"), "--windows", "absolute"]) == 0
    assert main([*common, "--out", str(tmp_path / "auto")]) == 0
    starved = json.loads((tmp_path / "abs" / "manifest.json").read_text())["tasks"]
    fed = json.loads((tmp_path / "auto" / "manifest.json").read_text())["tasks"]
    for task in ("subj_number", "obj_number"):
        assert starved[task]["partial"], task
        assert not fed[task]["partial"], (task, fed[task]["shortfalls"])
        assert fed[task]["windows"]["used"] == "per-million"

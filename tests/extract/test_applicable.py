"""Extract finds a task that does not apply and says why (issue 20): the first condition of the
task's rule that no sentence meets, or the length window; never an empty file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.extract.test_extract import write_corpus
from xprobe.errors import XProbeError
from xprobe.extract.pipeline import ExtractConfig, check_probing_dir, extract


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("c") / "c.conllu", 400)


def _run(out: Path, corpus: Path, **kw) -> dict:
    cfg = ExtractConfig(lang="en", out=out, inputs=[str(corpus)], sizes=(20, 4, 4),
                        progress=False, **kw)  # fmt: skip
    return extract(cfg)


def test_the_reason_is_the_condition_no_sentence_meets(tmp_path: Path, corpus: Path) -> None:
    """The synthetic corpus carries no Tense and no Number features."""
    m = _run(tmp_path, corpus, tasks=["Tense", "SubjNum", "SentLen"], allow_partial=True)
    tense, subj = m["tasks"]["past_present"], m["tasks"]["subj_number"]
    assert tense["applicable"] is False and tense["decided_by"] == "extract"
    assert tense["reason"].startswith("no word has Tense in Past, Pres (the feature never occurs)")
    assert subj["reason"].startswith("no noun has Number in Sing, Plur")
    # the corpus never has what the rules read: a gap of the annotation, not of the language
    assert tense["kind"] == subj["kind"] == "annotation"
    assert "sentences of 5..28 tokens" in tense["reason"]
    assert not (tmp_path / "past_present.txt").exists() and check_probing_dir(tmp_path) == []
    assert m["tasks"]["sentence_length"].get("applicable", True)


def test_no_sentence_in_the_window(tmp_path: Path, corpus: Path) -> None:
    m = _run(tmp_path, corpus, tasks=["SentLen", "BShift"], allow_partial=True,
             min_tokens=200, max_tokens=300)  # fmt: skip
    for e in m["tasks"].values():
        assert e["reason"] == "no sentence of the corpus has 200..300 tokens"
        assert e["kind"] == "corpus"
    assert m["length"]["rule"] == "command line"


def test_without_allow_partial_an_undeclared_empty_task_is_an_error(tmp_path, corpus) -> None:
    with pytest.raises(XProbeError, match=r"past_present: no word has Tense.*applicable = false"):
        _run(tmp_path, corpus, tasks=["Tense", "SentLen"])
    assert not (tmp_path / "manifest.json").exists()

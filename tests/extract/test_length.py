"""Sentence length that follows the language (issue 20): the window and SentLen's bins from the
command line, the profile, or derived from the corpus (``length = "auto"``); the manifest says
which."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.extract.test_extract import write_corpus
from xprobe.errors import XProbeError
from xprobe.extract.length import AUTO_CORPUS_WINDOW, corpus_window, length_counts, plan_length
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.tasks.sentence_length import DEFAULT_BINS, ENGLISH_SHARES, derive_edges


def test_derive_edges_are_increasing_and_follow_the_shares() -> None:
    counts = Counter({n: 10 for n in range(1, 101)})  # uniform over 1..100
    edges = derive_edges(counts, (0.1, 0.5, 0.9))
    assert edges == (11, 51, 91)
    assert derive_edges(Counter({7: 100}), ENGLISH_SHARES) == tuple(range(7, 14))  # one length
    scaled = Counter({2 * n: k for n, k in Counter({n: 10 for n in range(1, 51)}).items()})
    # lengths 2, 4, ..., 100: 10 % of the sentences are shorter than 11 (2..10), half than 51
    assert derive_edges(scaled, (0.1, 0.5)) == (11, 51)


@pytest.mark.shared
def test_english_shares_give_back_the_english_bins() -> None:
    """On the corpus the shares were measured on, the derived edges are SentLen's own."""
    train = shared_path("data", "ud", "en", "en_ewt-ud-train.conllu")
    edges = derive_edges(length_counts([str(train)]), ENGLISH_SHARES)
    assert edges == (*DEFAULT_BINS, 29)


def _profile(tmp_path: Path, extra: str) -> str:
    p = tmp_path / "xx.toml"
    p.write_text(f'code = "xx"\nname = "Test"\n{extra}\n', encoding="utf-8")
    return str(p)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("c") / "c.conllu", 800)


def test_where_the_window_comes_from(tmp_path: Path, corpus: Path) -> None:
    assert plan_length("fixed", (0, 0), (None, None), [str(corpus)]).rule == "default"
    got = plan_length("fixed", (6, 20), (None, None), [str(corpus)])
    assert (got.rule, got.min_tokens, got.max_tokens, got.bins) == ("profile", 6, 20, None)
    auto = plan_length("auto", (6, 20), (None, None), [str(corpus)])
    assert auto.rule == "auto" and auto.bins is not None and len(auto.bins) == 6
    assert auto.min_tokens == auto.bins[0] and auto.max_tokens >= auto.bins[-1]
    cli = plan_length("auto", (6, 20), (4, None), [str(corpus)])
    assert (cli.rule, cli.min_tokens, cli.max_tokens) == ("command line", 4, 28)


def test_auto_length_reaches_the_tasks_and_the_manifest(tmp_path: Path, corpus: Path) -> None:
    lang = _profile(tmp_path, 'length = "auto"')
    m = extract(ExtractConfig(lang=lang, out=tmp_path / "o", inputs=[str(corpus)],
                              tasks=["SentLen", "TreeDepth"], sizes=(30, 6, 6),
                              allow_partial=True, progress=False))  # fmt: skip
    length = m["length"]
    counts = length_counts([str(corpus)])
    edges = derive_edges(counts, ENGLISH_SHARES)
    assert length["rule"] == "auto" and length["derived"]["edges"] == list(edges)
    assert length["bins"] == list(edges[:-1]) != list(DEFAULT_BINS)
    assert (length["min_tokens"], length["max_tokens"]) == (edges[0], edges[-1] - 1)
    assert m["tasks"]["sentence_length"]["params"]["bins"] == length["bins"]
    assert m["tasks"]["tree_depth"]["params"]["length_bins"] == length["bins"]
    # --param wins over the derived bins
    m = extract(ExtractConfig(lang=lang, out=tmp_path / "p", inputs=[str(corpus)],
                              tasks=["SentLen"], sizes=(30, 6, 6), allow_partial=True,
                              params={"SentLen": {"bins": "5,9,13"}}, progress=False))  # fmt: skip
    assert m["tasks"]["sentence_length"]["params"]["bins"] == [5, 9, 13]


def test_profile_length_keys_are_validated(tmp_path: Path, corpus: Path) -> None:
    with pytest.raises(XProbeError, match="length must be one of fixed, auto"):
        extract(ExtractConfig(lang=_profile(tmp_path, 'length = "words"'), out=tmp_path / "o",
                              inputs=[str(corpus)], progress=False))  # fmt: skip
    with pytest.raises(XProbeError, match="min_tokens must be a non-negative integer"):
        extract(ExtractConfig(lang=_profile(tmp_path, 'min_tokens = "5"'), out=tmp_path / "o",
                              inputs=[str(corpus)], progress=False))  # fmt: skip
    lang = _profile(tmp_path, "min_tokens = 30\nmax_tokens = 10")
    with pytest.raises(XProbeError, match=r"token bounds 30\.\.10 \(profile\)"):
        extract(ExtractConfig(lang=lang, out=tmp_path / "o", inputs=[str(corpus)],
                              progress=False))  # fmt: skip


def test_the_corpus_stage_of_rounds_keeps_the_window_extract_will_use() -> None:
    """extract --from-text filters sentences before parsing: by the window given, else the
    profile's (one side may default), else 5..28; under length = "auto" wide enough for the
    derivation to see the lengths it cuts off."""
    assert corpus_window("fixed", (0, 0), (None, None)) == (5, 28)
    assert corpus_window("fixed", (3, 40), (None, None)) == (3, 40)
    assert corpus_window("fixed", (0, 40), (None, None)) == (5, 40)
    assert corpus_window("fixed", (3, 40), (6, None)) == (6, 28)  # as plan_length's command line
    assert corpus_window("auto", (0, 0), (None, None)) == AUTO_CORPUS_WINDOW == (1, 200)
    assert corpus_window("auto", (0, 0), (4, 30)) == (4, 30)

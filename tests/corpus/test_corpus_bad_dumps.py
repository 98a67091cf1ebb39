"""Truncated or malformed dumps fail loudly, and a run that keeps no sentence is not a success."""

from __future__ import annotations

import bz2
import json
from pathlib import Path

import pytest
from test_corpus import config, dump_text, trained_model

from xprobe.cli import main as cli_main
from xprobe.corpus.pipeline import run_corpus
from xprobe.corpus.sources import iter_paragraphs
from xprobe.errors import InputError, XProbeError


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return trained_model(tmp_path_factory)


def cut_mid_article(text: str) -> str:
    """The dump cut inside the last article's text (as a copy stopped half-way leaves it)."""
    return text[: text.rindex("<page>") + 200]


def test_dump_cut_mid_article_is_an_error_saying_where(tmp_path: Path) -> None:
    whole = dump_text(extra_pages=2)
    cut = tmp_path / "cut.xml"
    cut.write_text(cut_mid_article(whole), encoding="utf-8")
    lines = cut.read_text(encoding="utf-8").count("\n")
    with pytest.raises(InputError, match=rf"cut\.xml:{lines + 1}: .*ends before </mediawiki>"):
        list(iter_paragraphs([cut]))
    packed = tmp_path / "cut.xml.bz2"  # a whole bz2 stream of a cut dump: same error
    packed.write_bytes(bz2.compress(cut_mid_article(whole).encode()))
    with pytest.raises(InputError, match=r"cut\.xml\.bz2:\d+: .*ends before </mediawiki>"):
        list(iter_paragraphs([packed]))


def test_cut_dump_never_gives_a_complete_manifest(tiny_model: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.xml"
    cut.write_text(cut_mid_article(dump_text(extra_pages=2)), encoding="utf-8")
    out = tmp_path / "out"
    argv = ["corpus", "--lang", "en", "--out", str(out), "--model", str(tiny_model)]
    assert cli_main([*argv, "--workers", "0", "--no-progress", str(cut)]) == 2
    manifest = out / "manifest.json"
    assert not manifest.exists() or not json.loads(manifest.read_text()).get("complete")


def test_xml_that_is_not_xml_is_an_error(tmp_path: Path) -> None:
    fake = tmp_path / "enwiki-pages-articles.xml"
    fake.write_text("This is not XML at all.\nJust a sentence or two of text.\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"pages-articles\.xml:1: not a MediaWiki XML dump"):
        list(iter_paragraphs([fake]))
    other = tmp_path / "other.xml"
    other.write_text('<?xml version="1.0"?>\n<root>\n<a>text</a>\n</root>\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"other\.xml:\d+: .*</mediawiki>"):
        list(iter_paragraphs([other]))


def test_zero_sentences_kept_is_an_error(tiny_model: Path, tmp_path: Path) -> None:
    src = tmp_path / "fragments.txt"
    src.write_text("too short\nno end here either\n", encoding="utf-8")
    with pytest.raises(XProbeError, match=r"no sentence kept from fragments\.txt .*2 sentences"):
        run_corpus(config([src], tmp_path / "out", tiny_model))
    assert not json.loads((tmp_path / "out" / "manifest.json").read_text()).get("complete")

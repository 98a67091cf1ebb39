"""``--lang`` that disagrees with the text warns (issue 28: a German treebank extracted with
``--lang en`` was accepted without a word, manifest ``"language": "en"``). Real gold treebanks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import shared_path
from xprobe.cli import main
from xprobe.extract.lang_check import language_warnings, letter_scripts, top_words
from xprobe.extract.scan import count_corpus
from xprobe.languages import load_profile


def _extract(capsys, lang: str, treebank: Path, out: Path) -> list[str]:
    argv = ["extract", "--lang", lang, "--out", str(out), "--sizes", "20,5,5",
            "--allow-partial", str(treebank), "--tasks", "SentLen"]  # fmt: skip
    capsys.readouterr()
    assert main(argv) == 0
    return [ln for ln in capsys.readouterr().err.splitlines()
            if ln.startswith("WARNING") and "--lang" in ln]  # fmt: skip


def test_german_treebank_with_lang_en_warns_english_does_not(tmp_path: Path, capsys) -> None:
    de = shared_path("data", "ud", "de", "de_gsd-ud-test.conllu")
    en = shared_path("data", "ud", "en", "en_ewt-ud-test.conllu")
    [line] = _extract(capsys, "en", de, tmp_path / "de-as-en")
    assert str(de) in line and "--lang en (English)" in line and "is --lang right?" in line
    assert _extract(capsys, "en", en, tmp_path / "en") == []
    assert _extract(capsys, "de", de, tmp_path / "de") == []


def test_russian_treebank_with_lang_de_names_the_script() -> None:
    ru = shared_path("data", "ud", "ru", "ru_gsd-ud-test.conllu")
    forms = count_corpus([str(ru)], bigrams=False)[0].forms
    assert letter_scripts(forms).most_common(1)[0][0] == "Cyrl"
    [line] = language_warnings(load_profile("de"), forms)
    assert "written in Latn" in line and "letters are Cyrl" in line
    assert language_warnings(load_profile("ru"), forms) == []


def test_profiles_frequent_words_are_their_treebanks_top_words() -> None:
    """The shipped profiles' frequent_words are what top_words finds in their gold treebank."""
    checked = 0
    codes = sorted(p.name for p in shared_path("data", "ud").iterdir() if p.is_dir())
    for code in codes:  # every shipped language (its gold dev+test in ../shared)
        folder = shared_path("data", "ud", code)
        paths = sorted(str(p) for p in folder.glob("*-ud-[dt]e[vs]*.conllu"))
        forms = count_corpus(paths, bigrams=False)[0].forms
        assert list(load_profile(code).frequent_words) == top_words(forms), code
        checked += 1
    assert checked == len(codes) >= 23


@pytest.mark.parametrize(
    ("forms", "script"),
    [({"Haus": 3, "und": 2}, "Latn"), ({"дом": 2}, "Cyrl"), ({"ひらがな": 1, "漢字": 1}, "Hira")],
)
def test_letter_scripts_by_unicode_name(forms: dict[str, int], script: str) -> None:
    assert letter_scripts(Counter(forms)).most_common(1)[0][0] == script

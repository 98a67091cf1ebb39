"""``xprobe profile draft``: a profile drafted from a treebank it has never seen (written in a
temporary folder, not the shipped one) extracts with every line agreeing with the gold
annotation and every task filled or not applicable with a reason; bad input is one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.extract.test_languages_gold import extract_and_check, treebank
from xprobe.cli import main
from xprobe.languages import load_profile


@pytest.mark.shared
@pytest.mark.parametrize("lang", ["id", pytest.param("sv", marks=pytest.mark.slow)])
def test_drafted_profile_extracts_as_gold_says(tmp_path: Path, lang: str, capsys) -> None:
    out = tmp_path / "drafts" / f"{lang}_draft.toml"
    assert main(["profile", "draft", *treebank(lang), "--code", lang, "--out", str(out)]) == 0
    report = capsys.readouterr().out
    assert "past_present:" in report and "xprobe extract --treebank" in report
    # the ud study's way too: every line scored by cross-validation, and its floor
    assert "xprobe extract --treebank --protocol cv:5" in report and "probe --cv 5" in report
    small = [x for x in report.splitlines() if "candidates, fewer than" in x]
    assert all("97 lines" in x for x in small), small
    text = out.read_text(encoding="utf-8")
    assert "# Tense (UPOS:value=count)" in text and "tokens per sentence" in text
    profile = load_profile(str(out))
    if lang == "id":  # UD Indonesian-GSD has no Tense feature: found, and said why
        assert "Tense" in profile.not_applicable["past_present"]
        # the treebank does not annotate it; only a person can say the language has none
        assert profile.na_kinds["past_present"] == "annotation"
    assert 'kind = "language"' not in text
    status = extract_and_check(lang, tmp_path / "probing", str(out))
    for file, reason in profile.not_applicable.items():
        assert status[file] == f"n/a ({reason})"


def test_draft_never_overwrites_and_names_what_is_missing(tmp_path: Path, capsys) -> None:
    conllu = tmp_path / "x.conllu"
    conllu.write_text(
        "1\tDogs\tdog\tNOUN\t_\t_\t2\t_\t_\t_\n2\tbark\tbark\tVERB\t_\t_\t0\t_\t_\t_\n\n"
    )
    out = tmp_path / "xx.toml"
    assert main(["profile", "draft", str(conllu), "--code", "xx", "--out", str(out)]) == 2
    assert "no DEPREL column values" in capsys.readouterr().err and not out.exists()
    conllu.write_text(
        "1\tDogs\tdog\tNOUN\t_\t_\t2\tnsubj\t_\t_\n2\tbark\tbark\tVERB\t_\t_\t0\troot\t_\t_\n\n"
    )
    assert main(["profile", "draft", str(conllu), "--code", "xx", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no FEATS column values" in err and "--allow-no-feats" in err
    out.write_text("keep me")
    args = ["profile", "draft", str(conllu), "--code", "xx", "--out", str(out), "--allow-no-feats"]
    assert main(args) == 2
    assert "exists; pass --force" in capsys.readouterr().err and out.read_text() == "keep me"
    assert main([*args, "--force"]) == 0
    text = out.read_text()
    assert "applicable = false" in text  # no Tense: declared n/a with the reason found
    assert load_profile(str(out)).not_applicable["past_present"]

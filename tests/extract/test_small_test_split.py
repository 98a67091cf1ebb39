"""Issue 23: on a treebank the default sizes (100,000/10,000/10,000) left one to three test lines
per task without a word; extract now warns loudly, per task, when a test split asked for gets
fewer lines than a useful minimum, and the manifest lists the warnings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.extract.handmade import short_and_long
from xprobe.cli import main
from xprobe.extract.check import MIN_USEFUL


@pytest.mark.parametrize(("sizes", "warned"), [("100,20,20", True), ("8,0,0", False)])
def test_tiny_test_split_is_warned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sizes: str, warned: bool
) -> None:
    out = tmp_path / "out"
    argv = ["extract", "--lang", "en", "--out", str(out), "--allow-partial", "--no-progress",
            "--tasks", "SentLen", "--param", "sentence_length.bins=5,13",
            "--sizes", sizes]  # fmt: skip
    assert main([*argv, str(short_and_long(tmp_path / "c.conllu"))]) == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    te = manifest["tasks"]["sentence_length"]["written"]["te"]["total"]
    said = [line for line in capsys.readouterr().err.splitlines() if "test lines" in line]
    assert bool(said) is warned and bool(manifest.get("warnings")) is warned, said
    if warned:
        assert te < MIN_USEFUL
        line = said[0]
        assert line.startswith("WARNING") and f"SentLen: only {te} test lines" in line, line
        assert "--sizes" in line and "20 asked" in line
        assert [f"en: {w}" for w in manifest["warnings"]] == [line.split(": ", 1)[1]]  # + language


def test_default_sizes_on_a_treebank_are_never_silent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The defaults (100,000/10,000/10,000) on 16 sentences: a test split of 1-3 lines is
    either warned about or, below one line per class, the task is n/a with its reason."""
    out = tmp_path / "out"
    argv = ["extract", "--lang", "en", "--out", str(out), "--allow-partial", "--no-progress",
            "--tasks", "SentLen", "--param", "sentence_length.bins=5,13"]  # fmt: skip
    assert main([*argv, str(short_and_long(tmp_path / "c.conllu"))]) == 0
    entry = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["tasks"]
    entry = entry["sentence_length"]
    err = capsys.readouterr().err
    if entry.get("applicable") is False:
        assert "too small" in entry["reason"] and "10000 asked" in entry["reason"]
        assert "not applicable" in err and not (out / "sentence_length.txt").exists()
    else:
        assert "test lines" in err and "10000 asked" in err

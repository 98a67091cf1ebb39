"""Issue 23: loading a transformer prints transformers' "Loading weights" progress bar only on a
terminal; a log file or a pipe gets none (tests capture stderr: not a terminal)."""

from __future__ import annotations

from pathlib import Path

import pytest

from xprobe.cli import main


def test_no_loading_bar_when_stderr_is_not_a_terminal(
    tiny_bert: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from transformers.utils import logging as hf_logging

    sentences = tmp_path / "s.txt"
    sentences.write_text("the cat sat on the mat .\n", encoding="utf-8")
    capsys.readouterr()
    was = hf_logging.is_progress_bar_enabled()
    argv = ["encode", "--encoder", f"hf:{tiny_bert}", str(sentences), "--out", str(tmp_path / "e")]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "Loading weights" not in err and "it/s" not in err, err
    assert hf_logging.is_progress_bar_enabled() == was  # put back as it was

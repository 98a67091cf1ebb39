"""Inputs that are not what ``xprobe extract`` reads: an empty CoNLL-U file (it used to exit 0 with
0 sentences and every task n/a in treebank mode, and to end on a misleading "declare it in the
profile" error without it). Each is one line naming the file, exit 2, and nothing written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.extract.handmade import short_and_long
from xprobe.cli import main


def _extract(tmp: Path, inputs: list[str], *flags: str) -> tuple[int, Path]:
    out = tmp / "out"
    return main(["extract", "--lang", "en", "--out", str(out), *flags, *inputs]), out


def _one_error_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.startswith("ERROR")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("mode", [["--treebank"], []], ids=["treebank", "sizes"])
@pytest.mark.parametrize("text", ["", "\n\n\n"], ids=["empty", "blank-lines"])
def test_an_input_without_sentences_is_one_line(tmp_path: Path, capsys, mode, text) -> None:
    src = tmp_path / "empty.conllu"
    src.write_text(text, encoding="utf-8")
    rc, out = _extract(tmp_path, [str(src)], *mode)
    line = _one_error_line(capsys.readouterr().err)
    assert rc == 2
    assert f"{src}: no sentences" in line, line
    assert not out.exists() or list(out.iterdir()) == []  # no manifest, no temporary file


def test_an_empty_file_among_others_is_named_in_a_warning(tmp_path: Path, capsys) -> None:
    """The other inputs hold sentences: the extraction runs, and a warning names the empty one."""
    src = short_and_long(tmp_path / "c.conllu", 200)
    empty = tmp_path / "empty.conllu"
    empty.write_text("", encoding="utf-8")
    rc, out = _extract(tmp_path, [str(src), str(empty)], "--treebank", "--tasks", "SentLen")
    err = capsys.readouterr().err
    assert rc == 0, err
    assert any("WARNING" in x and f"{empty}: no sentences" in x for x in err.splitlines()), err
    assert (out / "manifest.json").exists()

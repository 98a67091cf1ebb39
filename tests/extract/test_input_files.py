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


# --- a byte-order mark, a folder, a FIFO -------------------------------------------------------


def _with_bom(fixtures: Path, tmp: Path, where: str) -> Path:
    text = (fixtures / "tasks_en.conllu").read_text(encoding="utf-8")
    src = tmp / "bom.conllu"
    # at the start, or a second file joined on with its own mark (cat a.conllu b.conllu)
    text = "\ufeff" + text if where == "start" else text + "\ufeff" + text
    src.write_text(text, encoding="utf-8")
    return src


def test_a_utf8_bom_on_line_1_is_read_as_the_file_without_it(tmp_path: Path, fixtures) -> None:
    """Editors on Windows write one: the file reads as it would without it (the same lines)."""
    from xprobe.extract.scan import iter_blocks
    from xprobe.ud import read_conllu

    src = _with_bom(fixtures, tmp_path, "start")
    plain = fixtures / "tasks_en.conllu"
    assert [s.tokens for s in read_conllu(src)] == [s.tokens for s in read_conllu(plain)]
    assert list(iter_blocks(str(src))) == list(iter_blocks(str(plain)))
    sizes = ["--sizes", "2,2,2", "--allow-partial", "--no-exclusive", "--tasks", "BShift"]
    assert main(["extract", "--lang", "en", "--out", str(tmp_path / "a"), *sizes, str(src)]) == 0
    assert main(["extract", "--lang", "en", "--out", str(tmp_path / "b"), *sizes, str(plain)]) == 0
    assert (tmp_path / "a" / "bigram_shift.txt").read_bytes() == (
        tmp_path / "b" / "bigram_shift.txt"
    ).read_bytes()


def test_a_bom_inside_a_file_is_named_as_one(tmp_path: Path, fixtures, capsys) -> None:
    src = _with_bom(fixtures, tmp_path, "inside")
    line_no = (fixtures / "tasks_en.conllu").read_text(encoding="utf-8").count("\n") + 1
    rc, _ = _extract(tmp_path, [str(src)], "--sizes", "2,2,2", "--allow-partial")
    line = _one_error_line(capsys.readouterr().err)
    assert rc == 2 and f"{src}:{line_no}: " in line and "byte-order mark" in line, line
    assert "expected 10 tab-separated columns" not in line


@pytest.mark.parametrize("kind", ["folder", "fifo"])
@pytest.mark.parametrize("command", ["extract", "draft"])
def test_a_folder_or_fifo_as_input_is_said_as_such(tmp_path: Path, capsys, kind, command) -> None:
    import os

    path = tmp_path / "in.conllu"
    if kind == "folder":
        path.mkdir()
        said = "is a folder, not a CoNLL-U file"
    else:
        os.mkfifo(path)
        said = "is not a regular file (a FIFO)"
    if command == "extract":
        rc, _ = _extract(tmp_path, [str(path)])
    else:
        rc = main(["profile", "draft", str(path), "--code", "xx", "--out", str(tmp_path / "x")])
    line = _one_error_line(capsys.readouterr().err)
    assert rc == 2 and f"{path}: {said}" in line and "no such file" not in line, line

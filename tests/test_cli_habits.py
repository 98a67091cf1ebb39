"""Where a user's command-line habit meets a trap: files after a list option, --no-progress."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES

from xprobe.cli import main


def probe_data(tmp_path: Path) -> tuple[Path, Path]:
    d = tmp_path / "toy" / "xx"
    d.mkdir(parents=True)
    # one token of its own per line: no test sentence repeats a training one (not scored)
    lines = [f"{s}\t{'long' if k % 2 else 'short'}\t{'w ' * (3 + 3 * (k % 2))}{s}{k}\n"
             for s, n in (("tr", 20), ("va", 10), ("te", 10)) for k in range(n)]  # fmt: skip
    (d / "sentence_length.txt").write_text("".join(lines), encoding="utf-8")
    vec = tmp_path / "v.vec"
    own = [f"{s}{k} 0 0\n" for s, n in (("tr", 20), ("va", 10), ("te", 10)) for k in range(n)]
    vec.write_text(f"{1 + len(own)} 2\nw 0.5 1.0\n" + "".join(own), encoding="utf-8")
    return d, vec


@pytest.mark.parametrize(("flag", "shown"), [("--progress", True), ("--no-progress", False)])
def test_probe_progress_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, shown: bool
) -> None:
    data, vec = probe_data(tmp_path)
    argv = ["probe", "--encoder", f"bov:{vec}", "--data", str(data), "--out", str(tmp_path / "r")]
    # mlp: the minibatch trainer has a bar (lr is one L-BFGS solve)
    argv += ["--lang", "xx", "--classifier", "mlp", "--grid", "none", "--max-epochs", "2", flag]
    assert main([*argv, "--cache-dir", str(tmp_path / "c")]) == 0
    err = capsys.readouterr().err
    assert ("train" in err and "encode" in err) is shown
    assert ("it/s" in err or "ep/s" in err or "batch/s" in err or "s/ep" in err) is shown


def test_extract_takes_a_file_swallowed_by_tasks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conllu = FIXTURES / "tasks_en.conllu"
    out = tmp_path / "o"
    argv = ["extract", "--lang", "en", "--out", str(out), "--sizes", "4,2,2", "--allow-partial"]
    assert main([*argv, "--tasks", "SentLen", "BShift", str(conllu)]) == 0
    tasks = __import__("json").loads((out / "manifest.json").read_text())["tasks"]
    assert set(tasks) == {"sentence_length", "bigram_shift"}  # the file was read as input
    # six length classes at 4/2/2 sentences: SentLen is n/a (too small), with no file
    assert all(
        (out / f"{f}.txt").exists() != (e.get("applicable") is False) for f, e in tasks.items()
    )
    err = capsys.readouterr().err
    assert f"{conllu} given after --tasks is an existing file: read as a CoNLL-U input" in err
    missing = tmp_path / "nothere.conllu"
    assert main([*argv, "--out", str(tmp_path / "p"), "--tasks", "SentLen", str(missing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such file" in err[0] and "nothere.conllu" in err[0]

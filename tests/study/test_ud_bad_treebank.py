"""A malformed treebank in a UD release, for a language without a shipped profile (most of a real
release): its profile is drafted in a worker process, whose error used to arrive as a
``BrokenProcessPool`` traceback (exit 1, no file named), because an :class:`InputError` could not
be unpickled in the parent. It is one line naming the file and line, with any ``--jobs``
(issue 43)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from xprobe.cli import main
from xprobe.errors import InputError
from xprobe.study import STUDIES_DIR

GOOD = (
    "1\tDas\tder\tPRON\t_\tNumber=Sing\t2\tnsubj\t_\t_\n2\tgeht\tgehen\tVERB\t_\t_\t0\troot\t_\t_\n"
)

# the second sentence of the treebank (from line 4) -> the line its error names, what it says
BAD = {
    "nine columns": ("1\tDas\tder\tPRON\t_\tNumber=Sing\t2\tnsubj\t_\n", 4, "10"),
    "head cycle": (
        "1\tDas\tder\tPRON\t_\t_\t2\tnsubj\t_\t_\n2\tgeht\tgehen\tVERB\t_\t_\t1\troot\t_\t_\n",
        4,
        "no root",
    ),
    "overlapping multiword ranges": (
        "1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n2-3\tbc\t_\t_\t_\t_\t_\t_\t_\t_\n"
        "1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n2\tb\tb\tX\t_\t_\t1\tdep\t_\t_\n"
        "3\tc\tc\tX\t_\t_\t1\tdep\t_\t_\n",
        5,
        "range 2-3",
    ),
    "id not a number": ("x\tDas\tder\tPRON\t_\t_\t0\troot\t_\t_\n", 4, "bad ID 'x'"),
}


def test_input_error_survives_pickling() -> None:
    e = pickle.loads(pickle.dumps(InputError("a.conllu", 7, "expected 10 columns")))
    assert isinstance(e, InputError)
    assert (e.source, e.line, e.message) == ("a.conllu", 7, "expected 10 columns")
    assert str(e) == "a.conllu:7: expected 10 columns"


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_malformed_treebank_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, jobs: str
) -> None:
    text, line, word = BAD[case]
    conllu = tmp_path / "rel" / "UD_Xx-Y" / "xx_y-ud-test.conllu"
    conllu.parent.mkdir(parents=True)
    conllu.write_text(GOOD + "\n" + text + "\n", encoding="utf-8")
    argv = ["run", str(STUDIES_DIR / "ud.toml"), "--out", str(tmp_path / "out"),
            "--set", f"treebanks.root={tmp_path / 'rel'}", "--jobs", jobs,
            "--set", "report.reference_lang=xx"]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "BrokenProcessPool" not in err, err
    lines = [x for x in err.splitlines() if x.startswith("ERROR")]
    assert len(lines) == 1 and f"{conllu}:{line}: " in lines[0], lines
    assert word in lines[0], lines


@pytest.mark.parametrize("exclude", [False, True])
def test_a_release_without_the_reference_language_is_refused_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], exclude: bool
) -> None:
    """The ud study's ``reference_lang`` (en) checked against the languages of ``[treebanks]
    root`` too: `--dry-run` passed a release without English (or with English excluded), and
    the run failed at the report after every step."""
    for code in ("xx", "en"):
        conllu = tmp_path / "rel" / f"UD_{code.title()}-Y" / f"{code}_y-ud-test.conllu"
        conllu.parent.mkdir(parents=True)
        conllu.write_text(GOOD + "\n", encoding="utf-8")
    if not exclude:
        (tmp_path / "rel" / "UD_En-Y" / "en_y-ud-test.conllu").unlink()
    argv = ["run", str(STUDIES_DIR / "ud.toml"), "--out", str(tmp_path / "out"), "--dry-run",
            "--set", f"treebanks.root={tmp_path / 'rel'}"]  # fmt: skip
    if exclude:
        argv += ["--set", 'treebanks.exclude=["en"]']
    assert main(argv) == 2
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("ERROR")]
    assert len(lines) == 1, lines
    assert (
        "[report] reference_lang: 'en' is not a language of the study (its languages: xx)"
        in (lines[0])
    )
    assert main([*argv, "--set", "report.reference_lang=xx"]) == 0  # one the release has: fine

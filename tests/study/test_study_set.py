"""``xprobe run --set KEY.PATH=VALUE``: one key and one value, checked like the study file.

It used to read VALUE as the first value of a TOML document and drop the rest
(``study.name="x"`` then a newline and ``[languages.evil]``: silently gone), split a quoted
dotted key at every dot (``languages."../x".profile`` said ``unknown key ''``), and let
``study.sizes=[-1,0,0]`` through to fail in a step's argument parser ("expected one argument").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from xprobe.cli import main
from xprobe.study import STUDIES_DIR
from xprobe.study.schema import StudyError, parse_override


def _dry_run(tmp: Path, capsys, *sets: str) -> tuple[int, list[str], str]:
    argv = ["run", str(STUDIES_DIR / "sample.toml"), "--out", str(tmp / "s"), "--dry-run"]
    for s in sets:
        argv += ["--set", s]
    code = main(argv)
    captured = capsys.readouterr()
    errors = [x for x in captured.err.splitlines() if x.startswith("ERROR")]
    assert "Traceback" not in captured.err
    return code, errors, captured.out


@pytest.mark.parametrize(
    "text",
    [
        'study.name="x"\n[languages.evil]\nprofile = "en"\ninput = "/etc/passwd"',
        'study.name="x"\nstudy.seed=5',
        'study.name="x"\rstudy.seed=5',
        'study.name="x" study.seed=5',  # two values on one line
        'study.name="x',  # an unclosed string is not taken as the text '"x'
        "study.sizes=[1,2",
    ],
    ids=[
        "table-after-newline",
        "key-after-newline",
        "key-after-cr",
        "two-on-a-line",
        "unclosed-string",
        "unclosed-list",
    ],
)
def test_anything_but_one_key_and_one_value_is_refused(tmp_path: Path, capsys, text) -> None:
    code, errors, out = _dry_run(tmp_path, capsys, text)
    assert code == 2 and len(errors) == 1, errors
    assert "--set" in errors[0] and "one KEY.PATH=VALUE" in errors[0], errors[0]
    assert "\n" not in errors[0].partition("ERROR xprobe: ")[2] and out == ""
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("probe.seeds=3", {"probe": {"seeds": 3}}),
        ("study.name=plain words", {"study": {"name": "plain words"}}),  # unquoted: a string
        ("treebanks.root=/data/ud-2.14", {"treebanks": {"root": "/data/ud-2.14"}}),
        ('study.name = "a=b" # a comment', {"study": {"name": "a=b"}}),
        ("study.sizes=[10, 2, 2]", {"study": {"sizes": [10, 2, 2]}}),
        ('languages."a.b=c".profile="en"', {"languages": {"a.b=c": {"profile": "en"}}}),
        ("encoders.'x y'.spec='hf:m'", {"encoders": {"x y": {"spec": "hf:m"}}}),
    ],
)
def test_one_key_and_one_value_are_read_as_toml_reads_them(text: str, expected: dict) -> None:
    assert parse_override(text) == expected


def test_a_quoted_dotted_key_names_its_entry(tmp_path: Path, capsys) -> None:
    """The entry name is the quoted text, refused as a name (it would be a path under --out),
    not ``unknown key ''``."""
    code, errors, _ = _dry_run(tmp_path, capsys, 'languages."../x".profile="en"')
    assert code == 2 and len(errors) == 1, errors
    assert '[languages."../x"] is not a valid name' in errors[0], errors[0]
    assert "unknown key ''" not in errors[0]


@pytest.mark.parametrize("bad", ["languages..profile=1", "=3", ".a=1", "a.=1", '"a=1'])
def test_a_key_that_is_no_key_is_one_line(bad: str) -> None:
    with pytest.raises(StudyError) as e:
        parse_override(bad)
    assert str(e.value).startswith(f"--set {bad!r}:") and "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("study.sizes=[-1,0,0]", "[study] sizes must be a list of three integers, none negative"),
        ("study.sizes=[10,2]", "[study] sizes must be a list of three integers, none negative"),
        ("probe.seeds=-2", "[probe] seeds must be a non-negative integer"),
    ],
)
def test_values_are_checked_against_the_schema(tmp_path: Path, capsys, text, said) -> None:
    """At the study check (``--dry-run`` exit 2), not in a step's argument parser."""
    code, errors, _ = _dry_run(tmp_path, capsys, text)
    assert code == 2 and len(errors) == 1, errors
    assert said in errors[0] and "expected one argument" not in errors[0], errors[0]

"""A study never writes or removes outside ``--out``: entry names are names (no ``/``, ``\\``,
``..``, leading ``.``, control characters), checked when the study is read; the engine removes
only what resolves inside ``--out`` and what the step wrote before. The study check also refuses
two steps writing one path and a reference language the study does not have."""

from __future__ import annotations

from pathlib import Path

import pytest

from xprobe.cli import main
from xprobe.errors import XProbeError
from xprobe.study import Step, make_plan
from xprobe.study.engine import run_plan
from xprobe.study.schema import StudyError

DATA = Path(__file__).resolve().parents[1] / "data"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}  # fmt: skip


def errors(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The error lines `xprobe` printed (``ERROR xprobe: ...``), without the prefix."""
    err = capsys.readouterr().err.splitlines()
    return [x.split(": ", 1)[1] for x in err if x.startswith("ERROR")]


def test_a_dotdot_language_name_touches_nothing_outside_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: ``[languages."../../victim"]``, --out t/a/b/out, run twice with a
    changed setting: today the first run writes into t/a/b/victim and the second deletes it."""
    victim = tmp_path / "t" / "a" / "b" / "victim"
    victim.mkdir(parents=True)
    (victim / "precious.txt").write_text("precious\n")
    (tmp_path / "in.conllu").write_bytes((DATA / "corpus_treebank.conllu").read_bytes())
    study = tmp_path / "s.toml"
    study.write_text(
        '[study]\nsizes = [20, 5, 5]\ntasks = ["SentLen"]\nallow_partial = true\n'
        '[probe]\nbaselines = ["majority"]\n'
        '[languages."../../victim"]\nprofile = "en"\ninput = "in.conllu"\n'
    )
    out = tmp_path / "t" / "a" / "b" / "out"
    before = snapshot(tmp_path / "t" / "a" / "b")
    for extra in ([], ["--set", "study.sizes=[120,20,20]"]):
        capsys.readouterr()
        assert main(["run", str(study), "--out", str(out), *extra]) == 2
        lines = errors(capsys)
        assert len(lines) == 1, lines
        assert lines[0].startswith(f'{study}: [languages."../../victim"] is not a valid name')
        assert "path separator" in lines[0]
        assert snapshot(tmp_path / "t" / "a" / "b") == before  # victim untouched, nothing written
    assert not out.exists()


@pytest.mark.parametrize(
    ("section", "name", "why"),
    [
        ("languages", "../../victim", "path separator"),
        ("vectors", "..", "'..'"),
        ("encoders", "..X", "'..'"),
        ("nli", ".hidden", "starts with '.'"),
        ("mappings", "a\\b", "path separator"),
        ("download", "a\tb", "control character"),
        ("variants", "../v", "path separator"),
    ],
)  # fmt: skip
def test_an_entry_name_that_is_a_path_is_one_line(
    tmp_path: Path, section: str, name: str, why: str
) -> None:
    from xprobe.study import load_study

    key = name.replace("\\", "\\\\").replace("\t", "\\t")
    (tmp_path / "s.toml").write_text(f'[{section}."{key}"]\n')
    with pytest.raises(StudyError) as e:
        load_study(tmp_path / "s.toml", tmp_path / "out")
    lines = str(e.value).splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{tmp_path / 's.toml'}: [{section}."), lines[0]
    assert "is not a valid name: it" in lines[0]
    assert why in lines[0]


def writer(out: Path, name: str, target: Path) -> Step:
    kw = {"out": str(target), "text": "new"}
    return Step(name, name, ("call", "tests.study.helpers:write", kw), (str(target),))


@pytest.mark.parametrize("how", ["dotdot", "symlink"])
def test_the_engine_removes_and_writes_nothing_outside_out(tmp_path: Path, how: str) -> None:
    """Defence in depth below the name check: a step whose output only *looks* inside --out
    (``out/x/../../victim``, or a link inside out to a folder outside) is refused before it
    runs, and its old output is never removed, even with a marker from an earlier run."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    if how == "dotdot":
        target = out / "x" / ".." / ".." / "victim"
    else:
        (out / "link").symlink_to(victim)
        target = out / "link"
    step = writer(out, "w", target)
    marks = out / ".study" / "steps"
    marks.mkdir(parents=True)
    (marks / "w.started").write_text('{"fingerprint": "an earlier run"}')
    with pytest.raises(XProbeError, match="outside"):
        run_plan(make_plan([step], out))
    assert snapshot(victim) == {"precious.txt": b"precious\n"}
    from xprobe.study.engine import _clean
    from xprobe.study.state import StepStatus

    _clean(StepStatus(step, "this run", [], True, "settings changed"), out)  # below the plan's
    assert snapshot(victim) == {"precious.txt": b"precious\n"}  # refusal of the link, too


def test_outputs_a_step_did_not_write_are_not_removed(tmp_path: Path) -> None:
    """A step that never ran in this --out (no marker) removes nothing before it runs; one that
    ran removes only the outputs its marker names."""
    out = tmp_path / "out"
    mine = out / "results"
    mine.mkdir(parents=True)
    (mine / "by-hand.txt").write_text("mine\n")
    step = Step("r", "r", ("call", "tests.study.helpers:write",
                           {"out": str(mine / "r.txt"), "text": "r"}), (str(mine),))  # fmt: skip
    from xprobe.study.engine import _clean

    _clean(make_plan([step], out).steps[0], out)
    assert (mine / "by-hand.txt").read_text() == "mine\n"
    marks = out / ".study" / "steps"
    marks.mkdir(parents=True)
    (marks / "r.started").write_text(f'{{"fingerprint": "old", "outputs": ["{out}/other"]}}')
    _clean(make_plan([step], out).steps[0], out)
    assert (mine / "by-hand.txt").read_text() == "mine\n"
    (marks / "r.started").write_text(f'{{"fingerprint": "old", "outputs": ["{mine}"]}}')
    _clean(make_plan([step], out).steps[0], out)
    assert not mine.exists()  # its own old output: removed before it reruns


STUDY = """
[languages.en]
input = "en.conllu"
[languages.de]
input = "de.conllu"
[nli.a]
encoder = "bilstm-max"
vectors = "en.vec"
train = "nli.jsonl"
dev = "nli.jsonl"
[mappings.b]
teacher = "a"
lang = "de"
vectors = "en.vec"
parallel = ["en.txt", "en.txt"]
[encoders.bov]
spec = "bov:${STUDY}/en.vec"
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in ("en.conllu", "de.conllu", "en.vec", "nli.jsonl", "en.txt"):
        (tmp_path / name).write_text("x\n")
    return tmp_path


def dry_run(folder: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    (folder / "s.toml").write_text(text)
    capsys.readouterr()
    code = main(["run", str(folder / "s.toml"), "--out", str(folder / "out"), "--dry-run"])
    return code, errors(capsys)


def test_the_valid_study_plans(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert dry_run(folder, STUDY, capsys) == (0, [])


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (("[mappings.b]", "[mappings.a]"),
         "[nli.a] and [mappings.a] both write {out}/models/a (steps 'train-nli-a' and 'map-a')"),
        (("[encoders.bov]", "[encoders.baselines]"),
         "[probe] baselines and [encoders.baselines] both write {out}/results/en/baselines.jsonl"),
    ],
)  # fmt: skip
def test_two_steps_writing_one_path_are_refused(
    folder: Path, capsys: pytest.CaptureFixture[str], change: tuple[str, str], words: str
) -> None:
    code, lines = dry_run(folder, STUDY.replace(*change), capsys)
    assert code == 2
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{folder / 's.toml'}: ")
    assert words.format(out=folder / "out") in lines[0]
    assert lines[0].endswith(": rename one")
    assert not (folder / "out").exists()


def test_a_reference_language_the_study_lacks_is_refused(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = dry_run(folder, '[report]\nreference_lang = "eng"\n' + STUDY, capsys)
    assert code == 2
    assert lines == [
        f"{folder / 's.toml'}: [report] reference_lang: 'eng' is not a language of the study "
        "(its languages: en, de)"
    ]
    assert dry_run(folder, '[report]\nreference_lang = "de"\n' + STUDY, capsys) == (0, [])

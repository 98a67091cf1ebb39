"""Issue 27, treebank sizes: ``xprobe extract --treebank`` sizes every task from what a small gold
corpus fills (80/10/10 of its balanced candidates), lets tasks share source sentences (never
within a task: a sentence and a lexical key in one split only), reads every sentence from the
lower length bound on (SentLen and TreeDepth keep the maximum their bins end at), and makes a task
whose test split would hold fewer than ``--min-test`` lines n/a of kind ``corpus`` with the counts
in its reason, instead of the 10-line test splits ``--sizes 50,10,10`` gave. The draft prints
the treebank-mode command, and that command extracts without ``--allow-partial``.

Hand-made corpora first (every label follows from how the sentence was written), then the shared
gold treebanks (skipped without ../shared): Tamil (200 sentences) in the fast suite, the others
slow.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.extract.handmade import NOUNS, subject_sentence, write
from tests.extract.test_extract_gold import _check_line
from tests.extract.test_languages_gold import _marker_key
from xprobe.cli import main
from xprobe.extract.check import check_probing_dir, cv_folds
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.languages import load_profile
from xprobe.protocol import cv_shortfall
from xprobe.ud import Sentence, read_conllu

PARAMS = {
    "sentence_length": {"bins": [5, 13]},  # two classes: 5..12 and 13..28 tokens
    "subj_number": {"min_freq": 1, "max_freq": 5},
}
LONG = 40  # tokens of the long sentences: beyond 28, the window SentLen's last bin ends at


def corpus(path: Path, n: int, long: int = 0) -> Path:
    """``n`` sentences ``The farmerI(s) sold N... .``: subject number alternating (Sing on even
    ``i``), length short (5..8 tokens) or long (13..16) alternating every two sentences, so both
    tasks balance on all ``n``; then ``long`` sentences of :data:`LONG` tokens (Sing subject)."""
    sents = []
    for i in range(n):
        number = "Sing" if i % 2 == 0 else "Plur"
        k = 1 + i % 4 if (i // 2) % 2 == 0 else 9 + i % 4
        rest = [NOUNS[(i + j) % len(NOUNS)] for j in range(k)]
        subj = f"farmer{i}" + ("" if number == "Sing" else "s")
        sents.append((f"s{i}", subject_sentence(subj, number, "sold", rest)))
    for i in range(long):
        rest = [NOUNS[(i + j) % len(NOUNS)] for j in range(LONG - 4)]
        sents.append((f"long{i}", subject_sentence(f"baker{i}", "Sing", "sold", rest)))
    return write(path, sents)


def run(
    tmp: Path, src: Path, name: str = "out", tasks: tuple[str, ...] = ("SentLen", "SubjNum"), **kw
) -> tuple[Path, dict]:
    out = tmp / name
    params = {f: p for f, p in PARAMS.items() if f != "subj_number" or "SubjNum" in tasks}
    config = ExtractConfig(
        lang="en", out=out, inputs=[str(src)], tasks=list(tasks), treebank=True,
        params=params, windows="absolute", progress=False, provenance=True, **kw,
    )  # fmt: skip
    return out, extract(config)


def rows(out: Path, file: str) -> list[tuple[str, str, str]]:
    lines = (out / f"{file}.txt").read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("\t")) for line in lines]  # type: ignore[misc]


def test_each_task_takes_what_it_fills_sharing_sentences(tmp_path: Path) -> None:
    """1,200 sentences, both tasks balanced on all of them: each takes all 1,200 (SentLen
    960/120/120 exactly; SubjNum's keys, one per sentence, dealt in the ratio); the tasks
    share sentences, no sentence or subject in two splits of one task, every label as written."""
    src = corpus(tmp_path / "c.conllu", 1200, long=10)
    out, m = run(tmp_path, src)
    assert m["exclusive"] is False and m["treebank"]["ratio"] == [80, 10, 10]
    assert m["treebank"]["min_test"] == 100
    sl, sn = m["tasks"]["sentence_length"], m["tasks"]["subj_number"]
    assert sl["sizes"] == {"tr": 960, "va": 120, "te": 120} and not sl["partial"]
    assert m["treebank"]["task_sizes"]["sentence_length"] == sl["sizes"]
    assert m["treebank"]["task_sizes"]["subj_number"] == sn["sizes"]
    assert sn["sizes"]["te"] >= 100 and sum(sn["sizes"].values()) >= 1150, sn["sizes"]
    # the long sentences are SubjNum candidates (its rule has no length bound), not SentLen's
    assert sn["sentences"]["eligible"] == 1210 and sl["sentences"]["eligible"] == 1200
    assert m["treebank"]["length"]["max_tokens"] == LONG
    assert m["treebank"]["length"]["max_tokens_length_binned"] == 28
    texts = {}
    for file in ("sentence_length", "subj_number"):
        split_of: dict[str, str] = {}
        key_split: dict[str, set[str]] = defaultdict(set)
        for split, label, text in rows(out, file):
            assert split_of.setdefault(text, split) == split, text  # once per task
            tokens = text.split(" ")
            if file == "sentence_length":
                assert label == ("0" if len(tokens) < 13 else "1") and len(tokens) <= 28
            else:
                subj = tokens[1]
                assert label == ("NNS" if subj.endswith("s") else "NN"), text
                key_split[subj].add(split)
        assert all(len(v) == 1 for v in key_split.values())
        texts[file] = set(split_of)
    assert len(texts["sentence_length"] & texts["subj_number"]) > 1000  # shared
    warnings: list[str] = []
    assert check_probing_dir(out, warnings) == [] and warnings == []


def test_below_min_test_is_na_of_kind_corpus_with_counts(tmp_path: Path, capsys) -> None:
    """300 sentences: 300 balanced lines, 240/30/30: a test split of 30 lines, too few, and too
    few for the floor (100 test and 100 validation lines need 400): n/a, no file, exit 0 without
    --allow-partial."""
    src = corpus(tmp_path / "c.conllu", 300)
    out = tmp_path / "out"
    argv = ["extract", "--lang", "en", "--out", str(out), "--treebank", "--tasks", "SentLen",
            "--param", "sentence_length.bins=5,13", "--no-progress", str(src)]  # fmt: skip
    assert main(argv) == 0
    entry = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["tasks"]
    entry = entry["sentence_length"]
    assert entry["applicable"] is False and entry["kind"] == "corpus"
    assert entry["decided_by"] == "extract" and not (out / "sentence_length.txt").exists()
    assert "300 candidates give 300 balanced lines (240/30/30 at 80/10/10)" in entry["reason"]
    assert "test would hold 30 lines, fewer than --min-test 100" in entry["reason"]
    assert main(["extract", "--check", str(out)]) == 0
    # a lower minimum fills it, at the ratio
    _, m = run(tmp_path, src, "low", tasks=("SentLen",), min_test=30)
    assert m["tasks"]["sentence_length"]["sizes"] == {"tr": 240, "va": 30, "te": 30}


def test_one_label_is_a_corpus_na_not_an_error(tmp_path: Path) -> None:
    """Every subject singular: SubjNum has one label. Without --treebank that stops extract
    (the profile should declare it); in treebank mode it is recorded n/a, kind corpus, like a
    task too small for --min-test, while SentLen fills."""
    sents = [
        (f"s{i}", subject_sentence(f"farmer{i}", "Sing", "sold", NOUNS[: 1 + i % 4 + 8 * (i % 2)]))
        for i in range(1000)
    ]
    src = write(tmp_path / "c.conllu", sents)
    out, m = run(tmp_path, src)
    entry = m["tasks"]["subj_number"]
    assert entry["applicable"] is False and entry["kind"] == "corpus", entry
    assert "all 1000 candidates are NN, none NNS" in entry["reason"], entry["reason"]
    assert m["tasks"]["sentence_length"]["sizes"] == {"tr": 800, "va": 100, "te": 100}
    assert not (out / "subj_number.txt").exists() and check_probing_dir(out) == []


def test_short_of_min_test_at_the_ratio_keeps_min_test_lines(tmp_path: Path) -> None:
    """600 sentences: 60 test lines at 80/10/10, but 100 test and 100 validation lines leave
    400 for training (at least their 200): sized 400/100/100."""
    out, m = run(tmp_path, corpus(tmp_path / "c.conllu", 600), tasks=("SentLen",))
    assert m["tasks"]["sentence_length"]["sizes"] == {"tr": 400, "va": 100, "te": 100}
    got = [r[0] for r in rows(out, "sentence_length")]
    assert (got.count("tr"), got.count("va"), got.count("te")) == (400, 100, 100)
    warnings: list[str] = []
    assert check_probing_dir(out, warnings) == [] and warnings == []


def test_same_inputs_same_bytes(tmp_path: Path) -> None:
    src = corpus(tmp_path / "c.conllu", 700, long=5)
    a, _ = run(tmp_path, src, "a")
    b, _ = run(tmp_path, src, "b")
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir()) and "subj_number.txt" in names
    for name in names:
        if name != "manifest.json":
            assert (a / name).read_bytes() == (b / name).read_bytes(), name
    ma, mb = (json.loads((d / "manifest.json").read_text()) for d in (a, b))
    ma.pop("inputs"), mb.pop("inputs")
    assert json.dumps(ma, sort_keys=True).replace(str(a), "") == json.dumps(
        mb, sort_keys=True
    ).replace(str(b), "")


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--ratio", "80,20,0"], "TR and TE above 0"),
        (["--min-test", "0"], "--min-test must be at least 1"),
        (["--from-text", "wiki.xml", "--parsed", "p"], "takes no --from-text"),
        (["--sizes", "1000,0,100"], "--sizes allows no va line"),
        (["--sizes", "1000,100,50"], "--min-test 100 is more than the 50 test lines"),
    ],
)
def test_bad_treebank_settings_are_one_line(tmp_path: Path, capsys, flags, said) -> None:
    src = corpus(tmp_path / "c.conllu", 20)
    out = tmp_path / "out"
    argv = ["extract", "--lang", "en", "--out", str(out), "--treebank", *flags]
    assert main(argv if "--from-text" in flags else [*argv, str(src)]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err and not (out / "manifest.json").exists()


# --- the shared gold treebanks ---------------------------------------------------------------


def gold(lang: str) -> list[str]:
    ud = shared_path("data", "ud", lang)
    return sorted(str(p) for p in ud.glob("*.conllu") if "-train" not in p.name)


def draft_and_extract(tmp: Path, lang: str, capsys) -> tuple[Path, dict, list[str]]:
    """Draft a profile from the treebank, then run the extract command the draft printed."""
    paths = gold(lang)
    prof = tmp / f"{lang}.toml"
    argv = ["profile", "draft", *paths, "--code", lang, "--out", str(prof), "--allow-no-feats"]
    assert main(argv) == 0
    printed = [x.strip() for x in capsys.readouterr().out.splitlines()]
    command = next(x for x in printed if x.startswith("xprobe extract --treebank"))
    args = shlex.split(command)[1:]
    assert "--allow-partial" not in args and "--sizes" not in args
    out = tmp / "probing"
    args[args.index("--out") + 1] = str(out)
    assert main([*args, "--no-progress", "--provenance"]) == 0, command
    return out, json.loads((out / "manifest.json").read_text(encoding="utf-8")), paths


def check_gold(out: Path, m: dict, paths: list[str], profile_name: str) -> list[str]:
    """Every filled task: at least 100 test lines (under ``cv:K``, where every line is scored:
    at least the cross-validation floor of lines in all), each line as gold says, no sentence or
    key in two splits of the task; returns the filled tasks."""
    profile = load_profile(profile_name)
    sources: dict[tuple[str, int], Sentence] = {
        (p, s.line): s for p in paths for s in read_conllu(p)
    }
    filled, used = [], defaultdict(set)
    bins = m["length"]["bins"]
    for file, entry in m["tasks"].items():
        if entry.get("applicable", True) is False:
            assert entry["reason"].strip() and not (out / f"{file}.txt").exists()
            continue
        filled.append(file)
        folds = cv_folds(m)
        if folds is None:
            assert entry["written"]["te"]["total"] >= 100, (file, entry["written"])
        else:
            per_class: Counter[str] = Counter()
            for split in entry["written"].values():
                per_class.update(split["classes"])
            assert cv_shortfall(per_class, folds) is None, (file, entry["written"])
        split_of: dict[tuple[str, int], str] = {}
        keys: dict[str, set[str]] = defaultdict(set)
        prov = (out / entry["provenance"]).read_text(encoding="utf-8").splitlines()
        for (split, label, text), p in zip(rows(out, file), prov, strict=True):
            _, _, source, line, _, _ = p.split("\t")
            s = sources[(source, int(line))]
            assert split_of.setdefault((source, int(line)), split) == split, (file, text)
            used[(source, int(line))].add(file)
            if file == "sentence_length":
                assert text == " ".join(s.tokens)
                assert label == str(sum(len(s.tokens) >= b for b in bins) - 1), (text, bins)
            elif file == "word_content":  # the target word (a class in every split), once
                assert text == " ".join(s.tokens), (file, text)
                assert [t.lower() for t in s.tokens].count(label) == 1, (file, label, text)
            elif file == "past_present" and entry["params"].get("rule") == "marker":
                markers = entry["params"]["past_markers"]
                keys[_marker_key(s, label, profile, markers)].add(split)
            else:
                key = _check_line(file, label, text, s, profile)
                if key is not None:
                    keys[key.casefold()].add(split)
        assert not {k: v for k, v in keys.items() if len(v) > 1}, file
    assert check_probing_dir(out) == []
    if len(filled) > 1:
        assert max(map(len, used.values())) > 1  # tasks share source sentences
    return filled


@pytest.mark.shared
def test_tamil_200_sentences_gives_corpus_na_not_tiny_splits(tmp_path: Path, capsys) -> None:
    out, m, _ = draft_and_extract(tmp_path, "ta", capsys)
    assert m["corpus"]["sentences"] <= 200
    na = {f: e for f, e in m["tasks"].items() if e.get("applicable") is False}
    found = {f: e for f, e in na.items() if e["decided_by"] == "extract"}
    assert set(m["tasks"]) == set(na) and len(found) >= 7, na  # the rest: the draft's n/a
    for e in found.values():
        assert e["kind"] == "corpus", e
        assert "balanced line" in e["reason"] and "fewer than" in e["reason"], e["reason"]
    assert check_probing_dir(out) == [] and not list(out.glob("*.txt"))


@pytest.mark.shared
@pytest.mark.slow
def test_english_dev_test_fills_tasks_with_100_test_lines_as_gold_says(tmp_path: Path) -> None:
    from tests.extract.test_languages_gold import PARAMS as TREEBANK_PARAMS

    paths = gold("en")
    out = tmp_path / "en"
    m = extract(ExtractConfig(
        lang="en", out=out, inputs=paths, treebank=True, provenance=True, progress=False,
        params=TREEBANK_PARAMS,
    ))  # fmt: skip
    filled = check_gold(out, m, paths, "en")
    assert {"sentence_length", "bigram_shift", "past_present"} <= set(filled), filled
    for e in m["tasks"].values():
        if e.get("applicable") is False:
            assert e.get("kind") == "corpus" and "test would hold" in e["reason"], e


@pytest.mark.shared
@pytest.mark.parametrize(
    "lang", ["ta", *(pytest.param(x, marks=pytest.mark.slow) for x in ("en", "de", "vi", "pl"))]
)
def test_the_drafted_command_extracts_without_allow_partial(
    tmp_path: Path, lang: str, capsys
) -> None:
    out, m, paths = draft_and_extract(tmp_path, lang, capsys)
    assert m["allow_partial"] is False and "treebank" in m
    check_gold(out, m, paths, str(tmp_path / f"{lang}.toml"))

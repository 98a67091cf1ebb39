"""Corpus and extract in rounds (issue 19): parse only what the quotas need.

A MediaWiki dump of the tiny grammar's sentences (tests/corpus), parsed with the tiny UDPipe
model trained here; shards of 10 sentences. BShift (any sentence is a candidate) at 20/4/4
needs some 28 sentences: the rounds stop well before the dump's end; a size the dump cannot fill
reads it all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.corpus.test_corpus import config, dump_text, trained_model
from xprobe.corpus.pipeline import run_corpus
from xprobe.errors import XProbeError
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.extract.rounds import ROUNDS_FILE, Rounds, build_language, next_target

pytest.importorskip("ufal.udpipe")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return trained_model(tmp_path_factory)


@pytest.fixture(scope="module")
def dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("dump") / "pages.xml"
    p.write_text(dump_text(extra_pages=30), encoding="utf-8")
    return p


def ex_config(out: Path, sizes: tuple[int, int, int]) -> ExtractConfig:
    return ExtractConfig(
        lang="en", out=out, inputs=[], tasks=["BShift"], sizes=sizes, allow_partial=True
    )


def files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.glob("*.txt"))}


def test_next_target_grows_or_follows_the_projection() -> None:
    partial = {"partial": True, "yield": {"more_sentences_needed": 1000}}
    full = {"partial": False, "yield": {}}
    m = {"tasks": {"a": partial, "b": full}}
    # (parsed 100 + needed 1000) x 1.1 = 1210 beats 2 x 100 (and is below 20 x 100)
    assert next_target(100, 100, m, Rounds(margin=1.1, max_growth=20.0)) == 1210
    m["tasks"]["a"] = {"partial": True, "yield": {"more_sentences_needed": None}}
    assert next_target(100, 100, m, Rounds(growth=3.0)) == 300  # nothing to project from
    m["tasks"]["a"] = {"partial": True, "yield": {"more_sentences_needed": 10**9}}
    assert next_target(100, 100, m, Rounds(max_growth=8.0)) == 800  # starved: capped


def test_rounds_stop_when_filled_and_match_one_pass(
    dump: Path, tiny_model: Path, tmp_path: Path
) -> None:
    parsed, out = tmp_path / "parsed", tmp_path / "probing"
    cc = config([dump], parsed, tiny_model, shard_size=10)
    man = build_language(cc, ex_config(out, (20, 4, 4)), Rounds(first=10, growth=2.0))
    done = man["rounds"]["done"]
    assert len(done) >= 2 and done[0]["asked"] == 10 and done[0]["partial"] == ["BShift"]
    assert done[-1]["partial"] == [] and done[-1]["next"] is None
    assert not man["tasks"]["bigram_shift"]["partial"] and man["allow_partial"] is True
    held = json.loads((parsed / "manifest.json").read_text())["counts"]["kept"]
    assert held == done[-1]["asked"] == done[-1]["parsed"]
    whole = run_corpus(config([dump], tmp_path / "whole", tiny_model, shard_size=10))
    assert whole["counts"]["kept"] > held  # stopped before the end of the dump
    # the same files as one pass of corpus (limited to the same sentences) + extract
    ref_parsed = tmp_path / "ref-parsed"
    run_corpus(config([dump], ref_parsed, tiny_model, shard_size=10, max_sentences=held))
    shards = [str(p) for p in sorted(ref_parsed.glob("shard-*"))]
    cfg = ex_config(tmp_path / "ref", (20, 4, 4))
    extract(ExtractConfig(**{**cfg.__dict__, "inputs": shards}))
    assert files(out) == files(tmp_path / "ref") != {}
    # a rerun finds the rounds recorded and redoes only the last extraction
    state = json.loads((parsed / ROUNDS_FILE).read_text())
    again = build_language(cc, ex_config(out, (20, 4, 4)), Rounds(first=10, growth=2.0))
    assert again["rounds"]["done"] == [*state["rounds"][:-1], again["rounds"]["done"][-1]]
    assert len(again["rounds"]["done"]) == len(done)
    assert files(out) == files(tmp_path / "ref")


def test_rounds_read_everything_when_the_quota_is_out_of_reach(
    dump: Path, tiny_model: Path, tmp_path: Path
) -> None:
    parsed, out = tmp_path / "parsed", tmp_path / "probing"
    cc = config([dump], parsed, tiny_model, shard_size=10)
    man = build_language(cc, ex_config(out, (5000, 500, 500)), Rounds(first=10))
    last = man["rounds"]["done"][-1]
    assert last["exhausted"] and last["partial"] == ["BShift"] and last["next"] is None
    # the projection made the second round jump (10 -> 80, the most a round may grow)
    assert man["rounds"]["done"][1]["asked"] == 80
    entry = man["tasks"]["bigram_shift"]
    assert entry["partial"] and entry["yield"]["more_sentences_needed"] > 0
    # exhausted: the files equal a full corpus pass then extract
    run_corpus(config([dump], tmp_path / "whole", tiny_model, shard_size=10))
    shards = [str(p) for p in sorted((tmp_path / "whole").glob("shard-*"))]
    cfg = ex_config(tmp_path / "ref", (5000, 500, 500))
    extract(ExtractConfig(**{**cfg.__dict__, "inputs": shards}))
    assert files(out) == files(tmp_path / "ref") != {}


def test_an_interrupted_build_resumes_to_the_same_files(
    dump: Path, tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import xprobe.extract.rounds as rounds_mod

    cc = config([dump], tmp_path / "a-parsed", tiny_model, shard_size=10)
    build_language(cc, ex_config(tmp_path / "a", (20, 4, 4)), Rounds(first=10))
    calls = {"n": 0}
    real = rounds_mod.run_extraction

    def dies_in_round_two(cfg: ExtractConfig):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(cfg)

    cb = config([dump], tmp_path / "b-parsed", tiny_model, shard_size=10)
    monkeypatch.setattr(rounds_mod, "run_extraction", dies_in_round_two)
    with pytest.raises(KeyboardInterrupt):
        build_language(cb, ex_config(tmp_path / "b", (20, 4, 4)), Rounds(first=10))
    assert not (tmp_path / "b" / "manifest.json").exists()
    monkeypatch.setattr(rounds_mod, "run_extraction", real)
    build_language(cb, ex_config(tmp_path / "b", (20, 4, 4)), Rounds(first=10))
    assert files(tmp_path / "b") == files(tmp_path / "a") != {}
    a = json.loads((tmp_path / "a-parsed" / ROUNDS_FILE).read_text())["rounds"]
    b = json.loads((tmp_path / "b-parsed" / ROUNDS_FILE).read_text())["rounds"]
    assert [r["asked"] for r in a] == [r["asked"] for r in b]


def test_cli_from_text(dump: Path, tiny_model: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from xprobe.cli import main

    out, parsed = tmp_path / "probing", tmp_path / "parsed"
    argv = ["extract", "--lang", "en", "--out", str(out), "--tasks", "BShift",
            "--sizes", "20,4,4", "--allow-partial", "--no-progress", "--from-text", str(dump),
            "--parsed", str(parsed), "--model", str(tiny_model), "--workers", "0",
            "--shard-size", "10", "--first-round", "10"]  # fmt: skip
    assert main(argv) == 0
    man = json.loads((out / "manifest.json").read_text())
    assert [r["asked"] for r in man["rounds"]["done"]] == [10, 40]
    # the tag filter is on: after the first round, BShift (no tree) needs nothing parsed
    done = man["rounds"]["done"]
    assert man["rounds"]["settings"]["tag_filter"] is True and done[1]["filter"] == []
    assert done[1]["sentences"] == {"read": 40, "tagged": 30, "parsed": 10}
    off = tmp_path / "off"
    swap = {str(out): str(off), str(parsed): str(off / "p")}
    assert main([swap.get(a, a) for a in argv] + ["--no-tag-filter"]) == 0
    man_off = json.loads((off / "manifest.json").read_text())
    assert man_off["rounds"]["done"][1]["sentences"] == {"read": 40, "tagged": 0, "parsed": 40}
    assert files(off) == files(out)
    capsys.readouterr()
    both = ["extract", str(dump), "--lang", "en", "--out", str(out), "--from-text", str(dump)]
    assert main([*both, "--parsed", str(parsed)]) == 2
    assert "--from-text takes no CoNLL-U inputs" in capsys.readouterr().err


def test_without_allow_partial_an_unfilled_build_is_an_error(
    dump: Path, tiny_model: Path, tmp_path: Path
) -> None:
    from xprobe.errors import XProbeError

    cc = config([dump], tmp_path / "parsed", tiny_model, shard_size=10)
    strict = ExtractConfig(lang="en", out=tmp_path / "p", inputs=[], tasks=["BShift"],
                           sizes=(5000, 500, 500))  # fmt: skip
    with pytest.raises(XProbeError, match=r"cannot fill BShift"):
        build_language(cc, strict, Rounds(first=10))
    assert not (tmp_path / "p" / "manifest.json").exists()
    filled = ExtractConfig(**{**strict.__dict__, "sizes": (20, 4, 4)})
    assert build_language(cc, filled, Rounds(first=10))["allow_partial"] is False


def test_next_target_skips_the_entries_of_tasks_that_do_not_apply() -> None:
    """A profile's n/a task has an entry without ``partial`` or ``yield`` (issue 20)."""
    na = {"task": "Tense", "applicable": False, "reason": "r", "decided_by": "profile"}
    m = {"tasks": {"a": {"partial": True, "yield": {"more_sentences_needed": 1000}}, "t": na}}
    assert next_target(100, 100, m, Rounds(margin=1.1, max_growth=20.0)) == 1210


def test_rounds_with_tasks_that_do_not_apply(dump: Path, tiny_model: Path, tmp_path: Path) -> None:
    """A task the profile declares n/a is not run and does not keep the rounds going; a task
    that finds nothing keeps them going (more text may fill it) and, the input read, gets the
    n/a entry of a plain extract over the same shards, with no file in either."""
    from tests.extract.test_extract import NoParams
    from xprobe.tasks.base import TaskSpec

    profile = tmp_path / "en-na.toml"
    en = (Path(__file__).parents[2] / "languages" / "en.toml").read_text(encoding="utf-8")
    na_table = '[tasks.coordination_inversion]\napplicable = false\nreason = "test"\n'
    profile.write_text(en + "\n" + na_table, encoding="utf-8")
    never = TaskSpec("Never", "never", ("a", "b"), NoParams, lambda s, ctx, rng: None)
    cc = config([dump], tmp_path / "parsed", tiny_model, shard_size=10)
    cfg = ExtractConfig(lang=str(profile), out=tmp_path / "p", inputs=[], sizes=(20, 4, 4),
                        tasks=["BShift", "CoordInv"], allow_partial=True)  # fmt: skip
    man = build_language(cc, cfg, Rounds(first=10))
    assert man["rounds"]["done"][-1]["partial"] == [] and not man["rounds"]["done"][-1]["exhausted"]
    na = man["tasks"]["coordination_inversion"]
    assert na["applicable"] is False and na["decided_by"] == "profile" and na["reason"] == "test"
    assert sorted(files(tmp_path / "p")) == ["bigram_shift.txt"]
    # a task that finds nothing: every round is partial until the input ends
    with_never = ExtractConfig(
        **{**cfg.__dict__, "out": tmp_path / "q", "tasks": ["BShift", never]}
    )
    man = build_language(cc, with_never, Rounds(first=10))
    done = man["rounds"]["done"]
    assert all("Never" in r["partial"] for r in done) and done[-1]["partial"] == ["Never"]
    assert done[-1]["exhausted"] and done[-1]["next"] is None
    never_entry = man["tasks"]["never"]
    assert never_entry["applicable"] is False and never_entry["decided_by"] == "extract"
    assert "no sentence passes the rule of Never" in never_entry["reason"]
    assert sorted(files(tmp_path / "q")) == ["bigram_shift.txt"]
    shards = [str(p) for p in sorted((tmp_path / "parsed").glob("shard-*"))]
    ref = extract(ExtractConfig(**{**with_never.__dict__, "out": tmp_path / "r", "inputs": shards}))
    assert ref["tasks"]["never"] == never_entry and ref["task_order"] == man["task_order"]
    assert files(tmp_path / "r") == files(tmp_path / "q")
    # without --allow-partial the task that found nothing is an error, as in a plain extract
    strict = ExtractConfig(**{**with_never.__dict__, "out": tmp_path / "s", "allow_partial": False})
    with pytest.raises(XProbeError, match=r"never: no sentence passes the rule of Never"):
        build_language(cc, strict, Rounds(first=10))

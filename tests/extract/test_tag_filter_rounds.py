"""Tag, then parse only what can qualify (issue 29), with the real English model.

The input is the text of UD English-EWT dev, one sentence a line (about 900 are kept).
A shard parsed in part must give the extractor exactly what a shard parsed whole gives the tasks
it was parsed for and the tasks that need no tree: the same files, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.corpus.test_corpus import config
from xprobe.corpus.pipeline import run_corpus
from xprobe.corpus.tagonly import PARSED_FOR, TAGS_ONLY, tag_then_parse
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.extract.rounds import Rounds, build_language
from xprobe.extract.tagfilter import select_for

pytest.importorskip("ufal.udpipe")


@pytest.fixture(scope="module")
def model() -> Path:
    return shared_path("models", "en-ewt.udpipe")


@pytest.fixture(scope="module")
def text(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dev = shared_path("data", "ud", "en", "en_ewt-ud-dev.conllu")
    lines = [ln for ln in dev.read_text("utf-8").split("\n") if ln.startswith("# text = ")]
    p = tmp_path_factory.mktemp("ewt") / "ewt.txt"
    p.write_text("\n".join(ln[len("# text = ") :] for ln in lines) + "\n", "utf-8")
    return p


SENTENCES = [
    ["The", "cat", "slept", ",", "and", "the", "dogs", "barked", "."],
    ["I", "did", "n't", "go", "there", "."],
    ["She", "reads", "the", "book", "every", "day", "."],
]


def test_tagging_then_parsing_is_the_parser_output(model: Path) -> None:
    from xprobe.corpus.udpipe import Parser

    parser = Parser(model)
    whole, _ = parser.parse(SENTENCES, 7)
    # every sentence passes: the parse, each sentence marked
    got = tag_then_parse(parser, SENTENCES, 7, lambda s: ("a",), ["a", "b"])
    marker = f"{PARSED_FOR}a,b\n"
    assert got.conllu.count(marker) == 3 and got.conllu.replace(marker, "") == whole
    assert (got.tagged, got.parsed, got.passed) == (3, 3, {"a": 3})
    # none passes: the same tags, a placeholder tree, marked tags-only
    none = tag_then_parse(parser, SENTENCES, 7, lambda s: (), ["a"])
    assert (none.parsed, none.conllu.count(f"{TAGS_ONLY}a\n")) == (0, 3)

    def cols(conllu: str, keep: slice) -> list[list[str]]:
        rows = [ln.split("\t") for ln in conllu.split("\n") if ln and ln[0] != "#"]
        return [r[keep] for r in rows]

    assert cols(none.conllu, slice(0, 6)) == cols(whole, slice(0, 6))
    assert cols(none.conllu, slice(6, 8)) != cols(whole, slice(6, 8))
    # only the first passes: the first is the parse, the rest tags-only
    one = tag_then_parse(parser, SENTENCES, 7, lambda s: ("a",) * (s.words[1].form == "cat"), ["a"])
    assert one.parsed == 1 and whole.split("\n\n")[0] in one.conllu.replace(f"{PARSED_FOR}a\n", "")


def ex(
    out: Path, tasks: list[str], sizes: tuple[int, int, int], inputs: list[str]
) -> ExtractConfig:
    return ExtractConfig(
        lang="en", out=out, inputs=inputs, tasks=tasks, sizes=sizes, allow_partial=True,
        params={"SubjNum": {"min_freq": 1, "max_freq": 10**6}} if "SubjNum" in tasks else {},
        windows="absolute",
    )  # fmt: skip


def files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.glob("*.txt"))}


TASKS = ["SentLen", "BShift", "SubjNum", "CoordInv"]


@pytest.mark.slow
def test_shards_parsed_in_part_extract_like_whole_ones(
    text: Path, model: Path, tmp_path: Path
) -> None:
    """Filtered for CoordInv and SubjNum: those two and the tree-free tasks get the same files
    as from shards parsed whole; fewer sentences were parsed."""
    sel = select_for(ex(tmp_path, TASKS, (1, 1, 1), []), ["SubjNum", "CoordInv", "BShift"])
    assert sel is not None and sel.tasks == ("coordination_inversion", "subj_number")
    whole = run_corpus(config([text], tmp_path / "whole", model, shard_size=100))
    run_corpus(config([text], tmp_path / "part", model, shard_size=100, select=sel))
    shards = json.loads((tmp_path / "part" / "manifest.json").read_text())["shards"]
    read, parsed = sum(r["sentences"] for r in shards), sum(r["parsed"] for r in shards)
    assert read == whole["counts"]["kept"] > 800 and 0 < parsed < 0.9 * read
    assert all(r["parsed_for"] == ["coordination_inversion", "subj_number"] for r in shards)
    outs = []
    for name in ("whole", "part"):
        inputs = [str(p) for p in sorted((tmp_path / name).glob("shard-*"))]
        man = extract(ex(tmp_path / f"{name}-out", TASKS, (40, 10, 10), inputs))
        outs.append(files(tmp_path / f"{name}-out"))
    assert outs[0] == outs[1] and len(outs[0]) == 4
    assert man["tasks"]["coordination_inversion"]["sentences"]["taken"] >= 10
    # Tense, not parsed for, is offered none of these shards' sentences (the parsed ones are a
    # sample biased by the other tasks' filters): it finds nothing, where whole shards fill it
    got = {}
    for name in ("whole", "part"):
        inputs = [str(p) for p in sorted((tmp_path / name).glob("shard-*"))]
        cfg = ex(tmp_path / f"{name}-tense", ["Tense"], (40, 10, 10), inputs)
        cfg.params = {"Tense": {"min_freq": 1, "max_freq": 10**6}}
        got[name] = extract(cfg)["tasks"]["past_present"]
    assert got["whole"]["sentences"]["eligible"] > 300 and not got["whole"]["partial"]
    assert got["part"]["applicable"] is False


@pytest.mark.slow
def test_rounds_with_and_without_the_filter_write_the_same_files(
    text: Path, model: Path, tmp_path: Path
) -> None:
    """SentLen fills in the first round, CoordInv never: the later rounds tag every sentence
    and parse those with a coordinating conjunction, and the files are those of the rounds
    that parse everything."""
    mans = {}
    for flag in (True, False):
        cc = config([text], tmp_path / f"parsed-{flag}", model, shard_size=100)
        cfg = ex(tmp_path / f"out-{flag}", ["SentLen", "CoordInv"], (30, 6, 6), [])
        rounds = Rounds(first=100, growth=2.0, limit=600, tag_filter=flag)
        mans[flag] = build_language(cc, cfg, rounds)
    assert files(tmp_path / "out-True") == files(tmp_path / "out-False") != {}
    on, off = mans[True]["rounds"]["done"], mans[False]["rounds"]["done"]
    assert [r["asked"] for r in on] == [r["asked"] for r in off] == [100, 600]  # projected
    assert on[0]["filter"] is None and on[0]["partial"] == ["CoordInv"]
    assert all(r["filter"] == ["coordination_inversion"] for r in on[1:])
    assert all(r["filter"] is None for r in off)
    last_on, last_off = on[-1]["sentences"], off[-1]["sentences"]
    assert last_on["read"] == last_off["read"] == last_off["parsed"] == 600
    # the first 100 parsed whole; of the 500 tagged after it, a minority parsed
    assert last_on["tagged"] == 500 and 100 < last_on["parsed"] < 100 + 500 * 0.6
    coord = on[-1]["tasks"]["CoordInv"]
    assert coord["passed"] == last_on["parsed"] - 100 and coord["kept"] > 0
    assert coord["kept"] == off[-1]["tasks"]["CoordInv"]["kept"]


def test_the_selection_travels_to_workers_and_knows_its_tasks(tmp_path: Path) -> None:
    """Pickled (spawned processes, Dask), the selection answers the same; a short task that
    needs no tree is left out, one from outside the registry means parsing everything."""
    import pickle

    from xprobe.ud import parse_conllu

    conllu = "".join(
        f"{i}\t{w}\t_\t{u}\t_\t{f}\t{0 if i == 1 else 1}\t{'root' if i == 1 else 'dep'}\t_\t_\n"
        for i, (w, u, f) in enumerate(
            [("Cats", "NOUN", "Number=Plur"), ("sleep", "VERB", "Tense=Pres|VerbForm=Fin"),
             ("and", "CCONJ", "_"), ("dogs", "NOUN", "Number=Plur"),
             ("bark", "VERB", "Tense=Pres|VerbForm=Fin"), (".", "PUNCT", "_")], 1)
    )  # fmt: skip
    s = next(parse_conllu(conllu + "\n"))
    sel = select_for(ex(tmp_path, TASKS, (1, 1, 1), []), ["CoordInv", "SubjNum", "SentLen"])
    assert sel is not None and sel.tasks == ("coordination_inversion", "subj_number")
    assert sel(s) == pickle.loads(pickle.dumps(sel))(s) == sel.tasks
    no_cc = next(parse_conllu(conllu.replace("CCONJ", "ADV") + "\n"))
    assert sel(no_cc) == ("subj_number",)
    only_free = select_for(ex(tmp_path, TASKS, (1, 1, 1), []), ["SentLen", "BShift"])
    assert only_free is not None and only_free.tasks == () and only_free(s) == ()
    assert select_for(ex(tmp_path, TASKS, (1, 1, 1), []), ["Other"]) is None
    # TreeDepth's filter passes every sentence of the window: parse them all, without tagging
    assert select_for(ex(tmp_path, TASKS, (1, 1, 1), []), ["CoordInv", "TreeDepth"]) is None


def test_multiword_tokens_survive_tagging_first() -> None:
    """German ``zum`` -> ``zu dem``: the range line stays, the words are tagged, and parsing the
    tagged sentence gives what parsing it at once gives."""
    from xprobe.corpus.udpipe import Parser
    from xprobe.ud import parse_conllu

    parser = Parser(shared_path("models", "de-gsd-small.udpipe"))
    sents = [s.split() for s in ("Wir gehen zum Bahnhof und er bleibt im Haus .",
                                 "Die Kinder spielen vom Morgen bis zum Abend .")]  # fmt: skip
    whole, _ = parser.parse(sents, 1)
    got = tag_then_parse(parser, sents, 1, lambda s: ("a",), ["a"])
    assert got.conllu.replace(f"{PARSED_FOR}a\n", "") == whole
    none = tag_then_parse(parser, sents, 1, lambda s: (), ["a"])
    tagged = list(parse_conllu(none.conllu))
    assert [s.tokens for s in tagged] == [s.tokens for s in parse_conllu(whole)]
    assert tagged[0].tokens[2] == "zum" and [w.form for w in tagged[0].words[2:4]] == ["zu", "dem"]

"""The corpus pipeline end to end: a MediaWiki dump written here -> sharded CoNLL-U.

The UDPipe model is trained here in seconds (``train_model``) from
tests/data/corpus_treebank.conllu, a synthetic treebank from a small template grammar; the
dump's sentences come from the same grammar, so the tiny model segments and parses them. Tests
about parsing quality use the shared en-ewt model and skip without it.
"""

from __future__ import annotations

import bz2
import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from conftest import FIXTURES, REPO, shared_path

from xprobe.cli import main as cli_main
from xprobe.corpus.filters import FilterConfig
from xprobe.corpus.pipeline import CorpusConfig, run_corpus
from xprobe.corpus.udpipe import ModelError, Parser, load_model, train_model
from xprobe.errors import InputError, XProbeError
from xprobe.ud import parse_conllu, read_conllu

TREEBANK = FIXTURES / "corpus_treebank.conllu"


def treebank_texts() -> list[str]:
    return [s.comment("text") or "" for s in read_conllu(TREEBANK)]


def trained_model(factory: pytest.TempPathFactory) -> Path:
    """The tiny model, trained once per test session (the corpus test modules share it)."""
    path = factory.getbasetemp() / "corpus-tiny-model" / "tiny.udpipe"
    if not path.exists():
        path.parent.mkdir(exist_ok=True)
        train_model([TREEBANK], path)
    return path


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return trained_model(tmp_path_factory)


# --------------------------------------------------------------------------- a dump of our own

SIMPLE = [
    "The old cat saw many dogs in Paris.",
    "Anna didn't like the red car.",
    "The kings never find Berlin and many quiet singers never find the new river.",
    "A small teacher visited the famous city near London.",
    "Peter builds the new books.",
]


def page(title: str, text: str, ns: int = 0, pid: int = 1, redirect: bool = False) -> str:
    red = '    <redirect title="Elsewhere" />\n' if redirect else ""
    return (
        f"  <page>\n    <title>{title}</title>\n    <ns>{ns}</ns>\n    <id>{pid}</id>\n{red}"
        f"    <revision>\n      <id>{pid + 100}</id>\n"
        f'      <text bytes="{len(text)}" xml:space="preserve">{escape(text)}</text>\n'
        "    </revision>\n  </page>\n"
    )


def dump_text(extra_pages: int = 0) -> str:
    """Several articles with templates, links, tables, refs, italics, '&'; plus a template page,
    a redirect, and ``extra_pages`` articles of treebank sentences."""
    art1 = (
        "{{Infobox city|name=Paris|population=2000000}}\n"
        "The old cat saw [[Dog|many dogs]] in [[Paris]].<ref>{{cite book|title=Cats}}</ref> "
        "Anna didn't like the ''red'' car. Short one.\n\n"
        '{| class="wikitable"\n|-\n! Year !! Value\n|-\n| 1999 || 12\n|}\n'
        "== History ==\n"
        "The kings never find '''Berlin''' and many quiet singers never find the new river.\n"
    )
    art2 = (
        "A small teacher visited the famous city near [[London]]. "
        "Peter builds the new books. Peter builds the new books.\n\n"
        "Cats and dogs never visited the old village.\n"
        "[[File:Cat.jpg|thumb|A cat in a box]]\n"
        "this fragment has no capital and no end\n"
    )
    pages = [
        page("Paris", art1, pid=1),
        page("Template:Infobox city", "The city template text should never appear here.", 10, 2),
        page("Old name", "#REDIRECT [[Paris]]", pid=3, redirect=True),
        page("London", art2, pid=4),
    ]
    texts = treebank_texts()
    for k in range(extra_pages):
        body = " ".join(texts[k * 6 : k * 6 + 6]) + "\n\n" + " ".join(texts[k * 6 + 6 : k * 6 + 9])
        pages.append(page(f"Extra {k}", body, pid=10 + k))
    return (
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" xml:lang="en">\n'
        "  <siteinfo>\n    <sitename>Wikipedia</sitename>\n"
        "    <base>https://en.wikipedia.org/wiki/Main_Page</base>\n    <namespaces>\n"
        '      <namespace key="0" case="first-letter" />\n'
        '      <namespace key="10" case="first-letter">Template</namespace>\n'
        "    </namespaces>\n  </siteinfo>\n" + "".join(pages) + "</mediawiki>\n"
    )


@pytest.fixture
def dump(tmp_path: Path) -> Path:
    p = tmp_path / "mini-pages-articles.xml"
    p.write_text(dump_text(), encoding="utf-8")
    return p


def config(inputs: list[Path], out: Path, model: Path, **kw: object) -> CorpusConfig:
    kw.setdefault("workers", 0)
    kw.setdefault("filters", FilterConfig(min_tokens=5, max_tokens=28))
    return CorpusConfig(lang="en", out=out, inputs=tuple(inputs), model=model, progress=False, **kw)  # type: ignore[arg-type]


def shard_bytes(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("shard-*.conllu.gz"))}


def texts_of(out: Path) -> list[str]:
    return [s.comment("text") or "" for p in sorted(out.glob("shard-*")) for s in read_conllu(p)]


# --------------------------------------------------------------------------- model


def test_train_model_parses_and_splits_contractions(tiny_model: Path) -> None:
    parser = Parser(tiny_model, "presegmented")
    conllu, words = parser.parse([["Anna", "did", "n't", "like", "the", "red", "car", "."]], 7)
    (s,) = list(parse_conllu(conllu))
    assert s.comment("sent_id") == "7"
    assert s.comment("text") == "Anna did n't like the red car ."
    assert words == len(s.words) == 8
    assert [w.upos for w in s.words[:3]] == ["PROPN", "AUX", "PART"]


def test_model_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not found"):
        load_model(tmp_path / "missing.udpipe")
    bad = tmp_path / "bad.udpipe"
    bad.write_bytes(b"this is not a model")
    with pytest.raises(ModelError, match="not a UDPipe 1 model"):
        load_model(bad)
    tb = tmp_path / "broken.conllu"
    tb.write_text("1\tx\n\n", encoding="utf-8")
    with pytest.raises(ModelError, match=r"broken\.conllu"):
        train_model([tb], tmp_path / "x.udpipe")
    with pytest.raises(ModelError, match=r"training failed: .*dimension '8' is not supported"):
        train_model([TREEBANK], tmp_path / "y.udpipe", tokenizer="dimension=8")
    assert not (tmp_path / "y.udpipe").exists()


# --------------------------------------------------------------------------- the pipeline


def test_dump_to_conllu(dump: Path, tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    man = run_corpus(config([dump], out, tiny_model))
    texts = texts_of(out)
    # hand-checked: the six distinct real sentences; not the duplicate, not the
    # three-token one, not the template page, the redirect, the table, the image caption
    expected = [
        "The old cat saw many dogs in Paris .",
        "Anna did n't like the red car .",
        "The kings never find Berlin and many quiet singers never find the new river .",
        "A small teacher visited the famous city near London .",
        "Peter builds the new books .",
        "Cats and dogs never visited the old village .",
    ]
    assert texts == expected
    counts = man["counts"]
    assert counts["kept"] == 6
    assert counts["rejected"]["duplicate"] == 1
    assert counts["sentences"] == counts["kept"] + sum(counts["rejected"].values())
    sents = [s for p in sorted(out.glob("shard-*")) for s in read_conllu(p)]  # valid trees
    assert [s.comment("sent_id") for s in sents] == [str(i) for i in range(1, 7)]
    assert all(s.text == s.comment("text") for s in sents)
    assert sents[1].tokens == ("Anna", "did", "n't", "like", "the", "red", "car", ".")
    saved = json.loads((out / "manifest.json").read_text())
    assert saved["complete"] is True
    assert saved["tokenizer"]["fixups"] == ["fix_english_nt"]
    assert saved["settings"]["inputs"][0]["name"] == dump.name


def test_bz2_gives_the_same_shards(dump: Path, tiny_model: Path, tmp_path: Path) -> None:
    packed = tmp_path / (dump.name + ".bz2")
    packed.write_bytes(bz2.compress(dump.read_bytes()))
    run_corpus(config([dump], tmp_path / "a", tiny_model))
    run_corpus(config([packed], tmp_path / "b", tiny_model))
    assert shard_bytes(tmp_path / "a") == shard_bytes(tmp_path / "b") != {}


def test_input_errors_are_clear(dump: Path, tiny_model: Path, tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.xml.bz2"
    data = bz2.compress(dump.read_bytes())
    corrupt.write_bytes(data[:40] + bytes(200) + data[240:])
    with pytest.raises(InputError, match=r"corrupt\.xml\.bz2.*corrupt or truncated"):
        run_corpus(config([corrupt], tmp_path / "c", tiny_model))
    truncated = tmp_path / "truncated.xml.bz2"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"truncated\.xml\.bz2"):
        run_corpus(config([truncated], tmp_path / "t", tiny_model))
    with pytest.raises(XProbeError, match=r"cannot read input .*nothere\.xml"):
        run_corpus(config([tmp_path / "nothere.xml"], tmp_path / "n", tiny_model))
    with pytest.raises(ModelError, match="not found"):
        run_corpus(config([dump], tmp_path / "m", tmp_path / "none.udpipe"))


def test_resume_after_interruption_is_byte_identical(tiny_model: Path, tmp_path: Path) -> None:
    src = tmp_path / "big.xml"
    src.write_text(dump_text(extra_pages=12), encoding="utf-8")
    full = tmp_path / "full"
    run_corpus(config([src], full, tiny_model, shard_size=10))
    assert len(shard_bytes(full)) >= 4

    class Stop(Exception):
        pass

    def stop_after_second(index: int) -> None:
        if index == 1:
            raise Stop

    part = tmp_path / "part"
    with pytest.raises(Stop):
        run_corpus(config([src], part, tiny_model, shard_size=10), on_shard=stop_after_second)
    assert sorted(shard_bytes(part)) == ["shard-00000.conllu.gz", "shard-00001.conllu.gz"]
    (part / "shard-00001.conllu.gz").write_bytes(b"damaged")  # an intact-looking, wrong file
    man = run_corpus(config([src], part, tiny_model, shard_size=10))
    assert man["timing"]["shards_resumed"] == 1  # shard 0 kept, shard 1 redone
    assert shard_bytes(part) == shard_bytes(full)
    full_manifest = json.loads((full / "manifest.json").read_text())
    part_manifest = json.loads((part / "manifest.json").read_text())
    assert part_manifest["shards"] == full_manifest["shards"]
    assert part_manifest["counts"] == full_manifest["counts"]


def test_other_settings_in_the_same_folder_are_refused(
    dump: Path, tiny_model: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    run_corpus(config([dump], out, tiny_model))
    with pytest.raises(XProbeError, match=r"other settings.*filters"):
        run_corpus(config([dump], out, tiny_model, filters=FilterConfig(min_tokens=3)))


def test_max_sentences_and_shards(tiny_model: Path, tmp_path: Path) -> None:
    src = tmp_path / "big.xml"
    src.write_text(dump_text(extra_pages=6), encoding="utf-8")
    out = tmp_path / "out"
    man = run_corpus(config([src], out, tiny_model, shard_size=4, max_sentences=11))
    assert man["counts"]["kept"] == 11
    assert [len(list(read_conllu(p))) for p in sorted(out.glob("shard-*"))] == [4, 4, 3]


def test_a_larger_max_sentences_reuses_the_shards(tiny_model: Path, tmp_path: Path) -> None:
    """Growing a folder: whole shards of the smaller run are reused, its last shard (cut short
    by the limit) is parsed again, and the shards equal a run with the larger limit from an
    empty folder; a smaller limit than the folder holds is refused."""
    src = tmp_path / "big.xml"
    src.write_text(dump_text(extra_pages=6), encoding="utf-8")
    out, ref = tmp_path / "out", tmp_path / "ref"
    first = run_corpus(config([src], out, tiny_model, shard_size=4, max_sentences=11))
    assert first["exhausted"] is False
    man = run_corpus(config([src], out, tiny_model, shard_size=4, max_sentences=20))
    assert man["timing"]["shards_resumed"] == 2  # shards 0 and 1; shard 2 held 3 of 4
    assert man["counts"]["kept"] == 20
    run_corpus(config([src], ref, tiny_model, shard_size=4, max_sentences=20))
    assert shard_bytes(out) == shard_bytes(ref)
    with pytest.raises(XProbeError, match=r"holds 20 parsed sentences .* --max-sentences 8"):
        run_corpus(config([src], out, tiny_model, shard_size=4, max_sentences=8))
    whole = run_corpus(config([src], out, tiny_model, shard_size=4))
    assert whole["exhausted"] is True and whole["timing"]["shards_resumed"] == 5


def test_two_worker_processes_match_one(tiny_model: Path, tmp_path: Path) -> None:
    src = tmp_path / "big.xml"
    src.write_text(dump_text(extra_pages=8), encoding="utf-8")
    run_corpus(config([src], tmp_path / "w0", tiny_model, shard_size=8))
    run_corpus(config([src], tmp_path / "w2", tiny_model, shard_size=8, workers=2))
    assert shard_bytes(tmp_path / "w2") == shard_bytes(tmp_path / "w0")
    assert len(shard_bytes(tmp_path / "w0")) >= 3


@pytest.mark.slow
def test_dask_local_cluster_matches(tiny_model: Path, tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    src = tmp_path / "big.xml"
    src.write_text(dump_text(extra_pages=4), encoding="utf-8")
    run_corpus(config([src], tmp_path / "w0", tiny_model, shard_size=8))
    run_corpus(config([src], tmp_path / "dask", tiny_model, shard_size=8, scheduler="local"))
    assert shard_bytes(tmp_path / "dask") == shard_bytes(tmp_path / "w0")


def test_cli(
    dump: Path, tiny_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["corpus", "--lang", "en", "--out", str(out), "--model", str(tiny_model)]
    assert cli_main([*argv, "--workers", "0", "--no-progress", str(dump)]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["kept"] == 6
    bad = tmp_path / "bad.udpipe"
    bad.write_bytes(b"nope")
    argv = ["corpus", "--lang", "en", "--out", str(tmp_path / "o2"), "--model", str(bad)]
    assert cli_main([*argv, str(dump)]) == 2


@pytest.mark.slow
def test_killed_process_resumes_identically(tiny_model: Path, tmp_path: Path) -> None:
    src = tmp_path / "big.xml"
    src.write_text(dump_text(extra_pages=40), encoding="utf-8")
    base = [
        sys.executable,
        "-m",
        "xprobe",
        "-q",
        "corpus",
        "--lang",
        "en",
        "--model",
        str(tiny_model),
        "--shard-size",
        "5",
        "--workers",
        "1",
        "--no-progress",
    ]
    subprocess.run([*base, "--out", str(tmp_path / "full"), str(src)], check=True, cwd=REPO)
    out = tmp_path / "killed"
    proc = subprocess.Popen([*base, "--out", str(out), str(src)], cwd=REPO, start_new_session=True)
    deadline = time.time() + 120
    while not (out / "shard-00000.conllu.gz").exists() and time.time() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not json.loads((out / "manifest.json").read_text()).get("complete")
    subprocess.run([*base, "--out", str(out), str(src)], check=True, cwd=REPO)
    assert shard_bytes(out) == shard_bytes(tmp_path / "full")


# --------------------------------------------------------------------------- real English


def test_real_model_parses_contractions_and_ampersand(tmp_path: Path) -> None:
    model = shared_path("models", "en-ewt.udpipe")
    src = tmp_path / "text.txt"
    src.write_text(
        "She didn't like the museum & its garden. He can't swim, but he won't say so in public.\n",
        encoding="utf-8",
    )
    run_corpus(config([src], tmp_path / "out", model))
    sents = [s for p in sorted((tmp_path / "out").glob("shard-*")) for s in read_conllu(p)]
    assert [s.text for s in sents] == [
        "She did n't like the museum & its garden .",
        "He ca n't swim , but he wo n't say so in public .",
    ]
    nt = [w for s in sents for w in s.words if w.form == "n't"]
    assert len(nt) == 3 and all(w.upos == "PART" for w in nt)
    with gzip.open(next((tmp_path / "out").glob("shard-*")), "rt") as f:
        assert "&amp;" not in f.read()


@pytest.mark.slow
def test_end_to_end_corpus_then_extract(tmp_path: Path) -> None:
    model = shared_path("models", "en-ewt.udpipe")
    data = shared_path("data", "xprobe", "en")
    pytest.importorskip("xprobe.extract.pipeline")
    from sacremoses import MosesDetokenizer

    detok = MosesDetokenizer("en")
    lines = []
    for task in sorted(p.name for p in data.iterdir()):
        with open(data / task / "va.txt", encoding="utf-8") as f:
            lines += [detok.detokenize(next(f).split("\t")[0].split()) for _ in range(300)]
    paras = [" ".join(lines[i : i + 5]) for i in range(0, len(lines), 5)]
    src = tmp_path / "wiki.txt"
    src.write_text("\n".join(paras) + "\n", encoding="utf-8")
    out = tmp_path / "parsed"
    assert (
        cli_main(
            [
                "corpus",
                "--lang",
                "en",
                "--out",
                str(out),
                "--model",
                str(model),
                "--workers",
                "2",
                "--no-progress",
                str(src),
            ]
        )
        == 0
    )
    probing = tmp_path / "probing"
    shards = [str(p) for p in sorted(out.glob("shard-*"))]
    code = cli_main(
        [
            "extract",
            "--lang",
            "en_US",  # the small-corpus profile: 2,700 sentences are far from Wikipedia size
            "--out",
            str(probing),
            "--sizes",
            "100,20,20",
            "--allow-partial",
            *shards,
        ]
    )
    assert code == 0
    assert cli_main(["extract", "--check", str(probing)]) == 0


def test_punkt_profile_and_moses_fallback(tiny_model: Path, tmp_path: Path) -> None:
    profile = tmp_path / "xx.toml"
    profile.write_text(
        'code = "xx"\nname = "Test"\nsegmenter = "punkt"\nmoses_lang = "xx"\n', encoding="utf-8"
    )
    src = tmp_path / "text.txt"
    src.write_text(" ".join(treebank_texts()[:40]) + "\n", encoding="utf-8")
    cfg = CorpusConfig(
        lang=str(profile), out=tmp_path / "out", inputs=(src,), model=tiny_model, workers=0,
        progress=False,
    )  # fmt: skip
    man = run_corpus(cfg)
    assert man["settings"]["segmenter"] == "punkt"
    assert man["tokenizer"]["fallback"] is True and man["tokenizer"]["moses_lang"] == "en"
    texts = texts_of(tmp_path / "out")
    # Punkt splits at every sentence end of this text: 40 sentences in, 40 (distinct) out
    originals = treebank_texts()[:40]
    assert man["counts"]["sentences"] == 40
    assert len(texts) == len(set(originals))
    assert all(t.endswith(" .") for t in texts)

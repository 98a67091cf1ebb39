"""The corpus stage's parts on their own: inputs, segmentation, Moses, filters, CoNLL-U rewrite."""

from __future__ import annotations

import bz2
import gzip
import json
from pathlib import Path

import pytest

from xprobe.corpus.filters import DedupTable, FilterConfig, SentenceFilter
from xprobe.corpus.segment import PunktSegmenter, train_punkt
from xprobe.corpus.shards import Manifest, input_fingerprint, shard_name, write_shard
from xprobe.corpus.sources import detect_kind, iter_paragraphs
from xprobe.corpus.tokenize import MosesTokenizer, fix_english_nt
from xprobe.corpus.udpipe import rewrite_conllu
from xprobe.errors import InputError, XProbeError
from xprobe.ud import parse_conllu

DUMP = """<mediawiki xml:lang="en">
  <siteinfo>
    <namespaces>
      <namespace key="10" case="first-letter">Vorlage</namespace>
    </namespaces>
  </siteinfo>
  <page>
    <title>Alpha</title>
    <ns>0</ns>
    <id>7</id>
    <revision>
      <id>70</id>
      <text xml:space="preserve">{{Vorlage:Box|x=1}}The ''Alpha'' river &amp; the \
'''Beta''' lake lie in [[Norway|the north]].&lt;ref&gt;A ref.&lt;/ref&gt;
It was ''named'' in 1900.</text>
    </revision>
  </page>
  <page>
    <title>Vorlage:Box</title>
    <ns>10</ns>
    <id>8</id>
    <revision>
      <id>80</id>
      <text xml:space="preserve">Template body text.</text>
    </revision>
  </page>
</mediawiki>
"""


def test_dump_paragraphs_clean_and_unquoted(tmp_path: Path) -> None:
    p = tmp_path / "d.xml.bz2"
    p.write_bytes(bz2.compress(DUMP.encode()))
    paras = list(iter_paragraphs([p]))
    # templates, refs, links gone; '&' unescaped; italics/bold gone without adding quotes;
    # the template namespace is read from <siteinfo> (here "Vorlage"), its page is skipped
    assert [(x.doc, x.text) for x in paras] == [
        ("Alpha", "The Alpha river & the Beta lake lie in the north."),
        ("Alpha", "It was named in 1900."),
    ]


def test_wikiextractor_outputs_and_plain_text(tmp_path: Path) -> None:
    text = tmp_path / "wiki_00"
    text.write_text(
        '<doc id="1" url="u" title="Alpha">\nAlpha\n\nFirst paragraph here.\nSecond one.\n</doc>\n'
        '<doc id="2" url="u" title="Beta">\nBeta\nBeta text.\n</doc>\n',
        encoding="utf-8",
    )
    js = tmp_path / "wiki_01.gz"
    with gzip.open(js, "wt", encoding="utf-8") as f:
        f.write(json.dumps({"id": "3", "title": "Gamma", "text": "Gamma\nOne.\n\nTwo."}) + "\n")
    plain = tmp_path / "plain.txt"
    plain.write_text("Para one.\n\n  Para two.  \n", encoding="utf-8")
    got = [(p.doc, p.text) for p in iter_paragraphs([text, js, plain])]
    assert got == [
        ("Alpha", "First paragraph here."),
        ("Alpha", "Second one."),
        ("Beta", "Beta text."),
        ("Gamma", "Gamma"),
        ("Gamma", "One."),
        ("Gamma", "Two."),
        ("plain.txt:1", "Para one."),
        ("plain.txt:3", "Para two."),
    ]


def test_detect_kind() -> None:
    assert detect_kind('<mediawiki xmlns="x">') == "dump"
    assert detect_kind('<doc id="1" url="" title="t">') == "wikiextractor"
    assert detect_kind('{"text": "x"}') == "json"
    assert detect_kind("{not json") == "text"
    assert detect_kind("Just text.") == "text"


def test_bad_inputs(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("ok\ncaf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin1.txt:2: not UTF-8"):
        list(iter_paragraphs([bad]))
    with pytest.raises(XProbeError, match="cannot read input"):
        list(iter_paragraphs([tmp_path]))
    js = tmp_path / "x.json"
    js.write_text('{"text": "a"}\n{"title": "no text"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"x.json:2: expected a wikiextractor --json"):
        list(iter_paragraphs([js]))


def test_moses_fixups_and_no_escaping() -> None:
    assert fix_english_nt(["I", "didn", "'t", "go"]) == ["I", "did", "n't", "go"]
    assert fix_english_nt(["can", "'t", "won", "'t", "DON", "'T"]) == [
        "ca", "n't", "wo", "n't", "DO", "N'T"
    ]  # fmt: skip
    assert fix_english_nt(["'t", "n", "'s"]) == ["'t", "n", "'s"]
    en = MosesTokenizer("en")
    assert en.tokenize('It didn\'t cost $5 & "more".') == [
        "It", "did", "n't", "cost", "$", "5", "&", '"', "more", '"', "."
    ]  # fmt: skip
    assert MosesTokenizer("en", fixups=False).tokenize("didn't")[:2] == ["didn", "'t"]
    xx = MosesTokenizer("xx")
    assert xx.description["fallback"] is True and xx.description["moses_lang"] == "en"
    assert MosesTokenizer("de").description["fixups"] == []


def test_filters_each_reason() -> None:
    f = SentenceFilter(FilterConfig(min_tokens=3, max_tokens=6), sentence_final=(".", "?"))
    cases = [
        ("A cat | sat .", "markup"),
        ("See http://x.org now .", "markup"),
        ("a cat sat .", "not_sentence"),
        ("A cat sat", "not_sentence"),
        ("1 2 3 4 .", "not_sentence"),
        ("Hi there .", None),
        ("Go .", "too_short"),
        ("One two three four five six .", "too_long"),
        ("« Was it so ?", None),
        ("Hi there .", "duplicate"),
    ]
    for raw, reason in cases:
        assert f.check(raw, raw.split()) == reason, raw
    assert f.rejected == {"markup": 2, "not_sentence": 3, "too_short": 1, "too_long": 1,
                          "duplicate": 1}  # fmt: skip


def test_dedup_table_is_bounded() -> None:
    t = DedupTable(slots_log2=4, start_log2=2)  # grows 4 -> 8 -> 16 slots; remembers 11
    assert all(t.add(h) for h in range(1, 12))
    assert not t.add(5) and not t.add(11)
    assert t.add(99) and t.saturated and t.add(99)  # full: no longer remembered
    assert t.size == 11
    big = DedupTable(slots_log2=20, start_log2=3)
    assert all(big.add(h * 7919) for h in range(1, 5000))
    assert not any(big.add(h * 7919) for h in range(1, 5000))
    assert big.size == 4999 and not big.saturated


def test_punkt_trained_offline() -> None:
    text = ["Mr. Smith went to Washington. Mr. Jones stayed. It rained on Mr. Li."] * 50
    seg = PunktSegmenter(train_punkt(text))
    para = "The boat sank. Mr. Brown swam ashore!  Nobody else did."
    assert seg.split(para) == ["The boat sank.", "Mr. Brown swam ashore!", "Nobody else did."]


UDPIPE_OUT = """# newdoc
# newpar
# sent_id = 1
# text = Wir gehen zum Bahnhof .
1\tWir\t_\tPRON\t_\t_\t2\tnsubj\t_\t_
2\tgehen\t_\tVERB\t_\t_\t0\troot\t_\t_
3-4\tzum\t_\t_\t_\t_\t_\t_\t_\t_
3\tzu\t_\tADP\t_\t_\t5\tcase\t_\t_
4\tdem\t_\tDET\t_\t_\t5\tdet\t_\t_
5\tBahnhof\t_\tNOUN\t_\t_\t2\tobl\t_\tSpaceAfter=No
6\t.\t_\tPUNCT\t_\t_\t2\tpunct\t_\tSpacesAfter=\\n

# sent_id = 2
# text = Ja .
1\tJa\t_\tINTJ\t_\t_\t0\troot\t_\t_
2\t.\t_\tPUNCT\t_\t_\t1\tpunct\t_\tSpaceAfter=No|SpacesAfter=\\n

"""


def test_rewrite_conllu_numbers_and_surface_text() -> None:
    text, n_sent, n_words = rewrite_conllu(UDPIPE_OUT, 41)
    assert (n_sent, n_words) == (2, 8)
    a, b = parse_conllu(text)
    assert a.comments == ("# sent_id = 41", "# text = Wir gehen zum Bahnhof .")
    assert b.comments == ("# sent_id = 42", "# text = Ja .")
    assert a.text == "Wir gehen zum Bahnhof ." and len(a.words) == 6
    assert a.words[5].misc == "_" and b.words[1].misc == "SpaceAfter=No"
    assert "newdoc" not in text and "newpar" not in text


def test_shards_and_manifest(tmp_path: Path) -> None:
    assert shard_name(3) == "shard-00003.conllu.gz"
    m = Manifest.open(tmp_path / "a", {"a": 1})
    rec = write_shard(tmp_path / "a", 0, "# sent_id = 1\n1\tA\t_\t_\t_\t_\t0\troot\t_\t_\n\n")
    again = write_shard(tmp_path / "b", 0, "# sent_id = 1\n1\tA\t_\t_\t_\t_\t0\troot\t_\t_\n\n")
    assert rec == again  # reproducible gzip
    src = tmp_path / "in.txt"
    src.write_text("x" * 10, encoding="utf-8")
    fp = input_fingerprint(src)
    assert fp["name"] == "in.txt" and fp["size"] == 10
    m.record(0, {**rec, "sentences": 1, "words": 1})
    m.save(complete=False)
    m2 = Manifest.open(tmp_path / "a", {"a": 1})
    assert m2.done(0) is not None and m2.done(1) is None
    (tmp_path / "a" / rec["file"]).write_bytes(b"changed")
    assert m2.done(0) is None
    with pytest.raises(XProbeError, match="other settings"):
        Manifest.open(tmp_path / "a", {"a": 2})
    with pytest.raises(XProbeError, match="holds shards but no manifest"):
        Manifest.open(tmp_path / "b", {"a": 1})

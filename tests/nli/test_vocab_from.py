"""``train-nli --vocab-from`` reads the project's own probing files (issue 11, item 8)."""

from __future__ import annotations

import gzip

import pytest

from xprobe.errors import InputError, XProbeError
from xprobe.nli.train import extra_vocabulary


def test_senteval_layout_takes_the_sentence_not_the_split(tmp_path):
    p = tmp_path / "past_present.txt"
    p.write_text("tr\tPAST\tThe cat sat .\nva\tPRES\tA dog runs\nte\tPAST\tIt rained\n")
    words = extra_vocabulary([str(p)])
    assert words == {"The", "cat", "sat", ".", "A", "dog", "runs", "It", "rained"}
    assert not words & {"tr", "va", "te", "PAST", "PRES"}


def test_xprobe_layout_takes_the_first_field(tmp_path):
    p = tmp_path / "va.txt"
    p.write_text("Der Hund schläft .\tPres\nDie Katze schlief\tPast\n")
    assert extra_vocabulary([str(p)]) == {"Der", "Hund", "schläft", ".", "Die", "Katze", "schlief"}


def test_plain_text_one_sentence_per_line(tmp_path):
    p = tmp_path / "text.txt"
    p.write_text("one two\nthree\n\nfour\n")
    assert extra_vocabulary([str(p)]) == {"one", "two", "three", "four"}


def test_probing_folders_of_both_layouts(tmp_path):
    se = tmp_path / "probing" / "en"
    se.mkdir(parents=True)
    (se / "bigram_shift.txt").write_text("tr\tO\talpha beta\nte\tI\tbeta alpha\n")
    with gzip.open(se / "odd_man_out.txt.gz", "wt", encoding="utf-8") as f:
        f.write("va\tC\tgamma\n")
    (se / "manifest.json").write_text('{"language": "en"}')
    (se / "bigram_shift.provenance.tsv").write_text("id\tnot a sentence\n")
    xp = tmp_path / "xprobe" / "de" / "tree_depth"
    xp.mkdir(parents=True)
    (xp / "te.txt").write_text("delta epsilon\t5\n")
    words = extra_vocabulary([str(tmp_path / "probing" / "en"), str(tmp_path / "xprobe")])
    assert words == {"alpha", "beta", "gamma", "delta", "epsilon"}


def test_a_line_of_another_layout_is_an_error(tmp_path):
    p = tmp_path / "mixed.txt"
    p.write_text("tr\tPAST\tThe cat sat .\nThe dog\tPRES\n")
    with pytest.raises(InputError, match=r"mixed\.txt:2: expected split<TAB>label<TAB>sentence"):
        extra_vocabulary([str(p)])
    p.write_text("xx\tPAST\tThe cat sat .\n")
    with pytest.raises(InputError, match=r"mixed\.txt:1: .*SentEval.*X-Probe"):
        extra_vocabulary([str(p)])


def test_missing_and_undecodable_files(tmp_path):
    with pytest.raises(XProbeError, match="--vocab-from file not found"):
        extra_vocabulary([str(tmp_path / "nope.txt")])
    (tmp_path / "bad.txt").write_bytes(b"tr\tO\tcaf\xe9\n")
    with pytest.raises(InputError, match=r"bad\.txt:1: not UTF-8"):
        extra_vocabulary([str(tmp_path / "bad.txt")])

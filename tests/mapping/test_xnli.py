"""XNLI readers: the official multi-language layout and plain premise/hypothesis/label files."""

from __future__ import annotations

import pytest
from conftest import shared_path

from xprobe.errors import InputError, XProbeError
from xprobe.mapping.xnli import NLIExample, read_xnli


def test_official_layout_with_language_filter(fixtures):
    de = read_xnli(fixtures / "xnli_official.tsv", language="de")
    assert de.examples == [
        NLIExample("Die Katze saß.", "Eine Katze sitzt.", "neutral", "de"),
        NLIExample("Er schläft.", "Er rennt.", "contradiction", "de"),
    ]
    assert de.skipped == 1  # the row with gold label "-"
    everything = read_xnli(fixtures / "xnli_official.tsv")
    assert [e.language for e in everything.examples] == ["en", "de", "de", "fr"]
    with pytest.raises(XProbeError, match=r"language 'ru' \(present: de, en, fr\)"):
        read_xnli(fixtures / "xnli_official.tsv", language="ru")


def test_plain_layout_and_limit(fixtures):
    plain = read_xnli(fixtures / "xnli_plain.tsv", language="de")
    assert [e.label for e in plain.examples] == ["neutral", "contradiction", "entailment"]
    assert plain.examples[2] == NLIExample("Es regnet.", "Es ist nass.", "entailment", "de")
    assert len(read_xnli(fixtures / "xnli_plain.tsv", limit=2)) == 2


def test_malformed_rows_name_file_and_line(tmp_path):
    p = tmp_path / "bad.tsv"
    p.write_text("a\tb\tneutral\nonly two\tcolumns\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.tsv:2: expected premise<TAB>hypothesis<TAB>label"):
        read_xnli(p)
    p.write_text("language\tgold_label\tsentence1\n", encoding="utf-8")
    with pytest.raises(InputError, match="header lacks columns sentence2"):
        read_xnli(p)
    with pytest.raises(XProbeError, match="XNLI file not found"):
        read_xnli(tmp_path / "missing.tsv")


def test_real_xnli_rows_are_aligned_across_languages():
    en = read_xnli(shared_path("data", "xnli", "dev-en.tsv"))
    de = read_xnli(shared_path("data", "xnli", "dev-de.tsv"))
    assert len(en) == len(de) == 2490
    assert [e.label for e in en.examples] == [e.label for e in de.examples]


def test_reads_a_member_of_the_downloaded_zip(fixtures, tmp_path):
    import zipfile

    with zipfile.ZipFile(tmp_path / "XNLI-1.0.zip", "w") as z:
        z.write(fixtures / "xnli_official.tsv", "XNLI-1.0/xnli.dev.tsv")
    got = read_xnli(tmp_path / "XNLI-1.0.zip" / "XNLI-1.0" / "xnli.dev.tsv", language="fr")
    assert got.examples == [NLIExample("Il dort.", "Il se repose.", "entailment", "fr")]
    with pytest.raises(XProbeError, match=r"no member XNLI-1\.0/xnli\.test\.tsv"):
        read_xnli(tmp_path / "XNLI-1.0.zip" / "XNLI-1.0" / "xnli.test.tsv")

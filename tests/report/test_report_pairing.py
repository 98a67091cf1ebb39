"""Bag-of-vectors rows pair across languages by kind (issue 23).

A ``bov:`` encoder is named after its vector file (``bov-en``, ``bov-fi``), so pairing by name
left "Not paired: bov-fi" and no difference to English for the encoder every study has. Encoders
of the same kind over each language's vectors (same pooling and casing, read from the records'
``encoder_id``) pair by kind; an encoder that still does not pair is told how to name it.
"""

from __future__ import annotations

from tests.report.test_report_mixing import _rec
from xprobe.report.build import write_report


def _bov(name, lang, task, value, pooling="mean", fp="f0"):
    return _rec(name, lang, task, value, encoder_id=f"bov-{pooling}:{fp}:cased")


def test_bov_rows_of_two_languages_pair_by_kind(tmp_path):
    recs = []
    for task, en, fi in (("SentLen", 0.7, 0.6), ("WC", 0.3, 0.2)):
        recs += [_bov("bov-en", "en", task, en, fp="e1"), _bov("bov-fi", "fi", task, fi, fp="f1")]
        recs += [_bov("pmeans-en", "en", task, en, "pmeans", "e1"),
                 _bov("pmeans-fi", "fi", task, fi, "pmeans", "f1")]  # fmt: skip
    paths = write_report(recs, tmp_path)
    assert "relative_xprobe_mlp_fi.png" in {p.name for p in paths}
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "Not paired" not in text
    assert "bov-fi vs bov-en: by kind (bov-mean)" in text
    assert "pmeans-fi vs pmeans-en: by kind (bov-pmeans)" in text
    row = next(ln for ln in text.splitlines() if ln.startswith("| bov-fi vs bov-en | "))
    assert row.split(" | ")[1].startswith("-10.0 [")  # fi SentLen 60.0 - en 70.0


def test_unpaired_encoder_is_told_how_to_name_it(tmp_path):
    recs = [_rec("en-bilstm-max", "en", "WC", 0.3), _rec("de-bilstm-max", "de", "WC", 0.2)]
    write_report(recs, tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "de-bilstm-max (no teacher recorded" in text
    assert "--name" in text and "[name=" in text

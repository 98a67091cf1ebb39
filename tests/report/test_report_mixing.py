"""The report never mixes experiments or hides what it cannot show (issue 15's records)."""

from __future__ import annotations

import csv

import pytest

from xprobe.errors import XProbeError
from xprobe.probe.robustness import stability
from xprobe.report.build import write_report


def _rec(enc, lang, task, value, seed=0, clf="mlp", max_train=None, **extra):
    return {
        "encoder": enc, "encoder_id": extra.pop("encoder_id", enc + "-id"), "dataset": "xprobe",
        "language": lang, "task": task, "classifier": clf, "seed": seed, "split": "test",
        "metric": "accuracy", "value": value, "n_train": 100, "n_test": 50, "dataset_hash": "h",
        "protocol": "tr/va/te", "grid": "default", "max_train": max_train, "hyperparameters": {},
        "version": "0.1.0", **extra,
    }  # fmt: skip


def test_subsample_and_full_run_are_not_averaged(tmp_path):
    recs = [_rec("bov", "en", "SentLen", 0.10, max_train=2000), _rec("bov", "en", "SentLen", 0.60)]
    write_report(recs, tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "35.0" not in text and "25.0" not in text
    full = list(csv.reader(open(tmp_path / "table4_xprobe_mlp_en_max_train-all.csv")))
    small = list(csv.reader(open(tmp_path / "table4_xprobe_mlp_en_max_train-2000.csv")))
    assert full[1][1].startswith("60.0 [") and small[1][1].startswith("10.0 [")
    assert "max_train=2000" in text and "max_train=all" in text


def test_unknown_fields_separate_experiments(tmp_path):
    """A field the report does not know (a layer) is part of the experiment key."""
    recs = [_rec("hf", "en", "WC", 0.2, layer=3), _rec("hf", "en", "WC", 0.8, layer=6)]
    write_report(recs, tmp_path)
    # Table 1 (mean across rows, in %) may hold 50.0; the accuracy table must not
    text = (tmp_path / "table4_xprobe_mlp_en.md").read_text(encoding="utf-8")
    assert "50.0" not in text and "20.0" in text and "80.0" in text


def test_seeds_are_averaged_and_std_only_with_several(tmp_path):
    recs = [_rec("a", "en", "WC", 0.2, seed=0), _rec("a", "en", "WC", 0.4, seed=1),
            _rec("b", "en", "WC", 0.3)]  # fmt: skip
    write_report(recs, tmp_path)
    rows = {r[0]: r[1:] for r in csv.reader(open(tmp_path / "table4_xprobe_mlp_en.csv"))}
    # no per-item correctness in these records: Wilson intervals on n_test, marked (b)
    assert rows["a"] == ["30.0 [19.1, 43.8] (b) ± 10.0 (2 seeds)"]
    assert rows["b"] == ["30.0 [19.1, 43.8] (b)"]
    assert rows["n_test"] == ["50"]


def _reversed_records():
    recs = []
    for clf in ("lr", "mlp"):
        for size in (100, 1000):
            for i, enc in enumerate("ABCDE"):
                for task in ("SentLen", "WC"):
                    recs.append(_rec(enc, "en", task, 0.9 - 0.1 * i, clf=clf, max_train=size))
                    recs.append(_rec(enc, "de", task, 0.5 + 0.1 * i, clf=clf, max_train=size))
    return recs


def test_stability_is_per_language(tmp_path):
    recs = _reversed_records()
    with pytest.raises(XProbeError, match="language"):
        stability(recs)
    write_report(recs, tmp_path)
    text = (tmp_path / "stability.md").read_text(encoding="utf-8")
    de, en = text.split("## xprobe / de")[1].split("## xprobe / en")
    assert "| SentLen | A > B > C > D > E |" in en
    assert "| SentLen | E > D > C > B > A |" in de


def test_mapped_student_pairs_with_its_teacher(tmp_path):
    recs = []
    for task, en, de in (("SentLen", 0.7, 0.6), ("WC", 0.3, 0.2)):
        recs.append(_rec("en-bilstm-max", "en", task, en, encoder_id="bilstm-max:aaa"))
        recs.append(_rec("de-bilstm-max", "de", task, de, encoder_id="bilstm-max:bbb",
                         mapped_from="bilstm-max:aaa"))  # fmt: skip
    paths = write_report(recs, tmp_path)
    assert "relative_xprobe_mlp_de.png" in {p.name for p in paths}
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "de-bilstm-max (de, mapped from en en-bilstm-max): by teacher" in text


def test_report_says_when_nothing_pairs(tmp_path):
    recs = [_rec("en-bilstm-max", "en", "WC", 0.3), _rec("de-bilstm-max", "de", "WC", 0.2)]
    paths = write_report(recs, tmp_path)
    assert not any(p.name.startswith("relative_") for p in paths)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "No encoder of de pairs with a en encoder" in text
    assert "de-bilstm-max (no teacher recorded" in text


def test_flags_overlap_partial_and_says_how_to_read_after_the_tables(tmp_path):
    recs = [_rec("a", "en", "WC", 0.3, test_overlap_removed=12), _rec("a", "en", "Tense", 0.6,
            partial=True)]  # fmt: skip
    write_report(recs, tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert text.index("How to read this report") > text.index("test accuracy")
    assert "30.0 [19.1, 43.8] (b)†" in text and "(b)*" in text
    assert "† test overlaps training: WC" in text and "partially filled (manifest): Tense" in text


def test_baseline_block_per_language(tmp_path):
    recs = [{**_rec("baseline", "de", "WC", 0.01, clf="majority"), "grid": "none"},
            _rec("bov-de", "de", "WC", 0.25, clf="lr", encoder_id="bov-mean:x"),
            _rec("bilstm", "de", "WC", 0.4)]  # fmt: skip
    write_report(recs, tmp_path)
    rows = {r[0]: r[1:] for r in csv.reader(open(tmp_path / "baselines_xprobe_de.csv"))}
    assert rows["majority"][0].startswith("1.0 [") and rows["bov-de (lr)"][0].startswith("25.0 [")
    assert "bilstm" not in rows


def test_xnli_says_why_no_figure(tmp_path):
    import json

    xnli = tmp_path / "x.json"
    xnli.write_text(json.dumps({"en": {"a": 0.6, "b": 0.7}}))
    recs = [_rec("a", "en", "WC", 0.3), _rec("b", "en", "WC", 0.4)]
    paths = write_report(recs, tmp_path / "r", xnli=xnli)
    assert not any("xnli" in p.name for p in paths)
    text = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "No figure" in text and "2 encoder(s) with an XNLI accuracy for en (3 needed)" in text


def test_layers_are_rows_and_overlap_dicts_flag(tmp_path):
    recs = [_rec("hf", "en", "WC", 0.2, layer=3), _rec("hf", "en", "WC", 0.8, layer=6),
            _rec("bov", "en", "WC", 0.3, overlap_removed={"va": 2, "te": 5})]  # fmt: skip
    write_report(recs, tmp_path)
    rows = {r[0]: r[1:] for r in csv.reader(open(tmp_path / "table4_xprobe_mlp_en.csv"))}
    assert rows["hf@L3"][0].startswith("20.0 [") and rows["hf@L6"][0].startswith("80.0 [")
    assert rows["bov"][0].endswith("†")

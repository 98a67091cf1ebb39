"""The report renders from a small results file: tables with the right cells, valid PNGs."""

from __future__ import annotations

import csv
import json

import pytest

from xprobe.errors import XProbeError
from xprobe.probe.records import append_records
from xprobe.report.build import load_xnli, table1, write_report
from xprobe.report.group import group_experiments
from xprobe.report.tables import build_tables

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _rec(enc, lang, task, value, seed=0, dataset="xprobe", clf="mlp", max_train=None):
    return {
        "encoder": enc,
        "encoder_id": enc + "-id",
        "dataset": dataset,
        "language": lang,
        "task": task,
        "classifier": clf,
        "seed": seed,
        "split": "test",
        "metric": "accuracy",
        "value": value,
        "n_train": 100,
        "n_test": 50,
        "dataset_hash": "h",
        "protocol": "tr/va/te",
        "grid": "default",
        "max_train": max_train,
        "hyperparameters": {},
        "version": "0.1.0",
    }


@pytest.fixture
def records():
    recs = []
    accs = {"bilstm-max": (0.70, 0.30), "cnn-avg": (0.20, 0.06), "attn-max": (0.74, 0.27)}
    for enc, (sl, wc) in accs.items():
        recs += [_rec(enc, "en", "SentLen", sl), _rec(enc, "en", "WC", wc)]
        recs += [_rec(enc, "de", "SentLen", sl + 0.1), _rec(enc, "de", "WC", wc - 0.05)]
        recs.append(_rec(enc, "en", "SentLen", sl - 0.2, dataset="orig"))
        recs.append(_rec(enc, "en", "WC", wc, dataset="orig"))
    recs.append(_rec("bilstm-max", "en", "SentLen", 0.72, seed=1))  # 2 seeds: 0.70, 0.72
    recs.append({**_rec("baseline", "en", "SentLen", 0.2), "classifier": "majority"})
    return recs


def test_experiments_and_table1(records):
    exps = group_experiments(records)
    (bl,) = [e for e in exps if e.get("encoder") == "bilstm-max" and e.get("language") == "en"
             and e.get("task") == "SentLen" and e.get("dataset") == "xprobe"]  # fmt: skip
    assert bl.n == 2 and bl.mean == pytest.approx(0.71) and bl.std == pytest.approx(0.01)
    (maj,) = [e for e in exps if e.get("classifier") == "majority"]
    assert maj.mean == 0.2 and maj.std is None
    tables = build_tables(exps)
    key = next(t.setting_key() for t in tables if t.dataset == "xprobe")
    rows = {t: (m, s, k) for t, m, s, k in table1(tables, "xprobe", "mlp", key)}
    # WC over (en, de) x 3 encoders: .30 .06 .27 and .25 .01 .22
    wc = [0.30, 0.06, 0.27, 0.25, 0.01, 0.22]
    assert rows["WC"][0] == pytest.approx(sum(wc) / 6) and rows["WC"][2] == 6


def test_report_writes_tables_and_pngs(tmp_path, records):
    xnli = tmp_path / "xnli.json"
    xnli.write_text(
        json.dumps(
            {
                "en": {"bilstm-max": 0.71, "cnn-avg": 0.51, "attn-max": 0.70},
                "de": {"bilstm-max": 0.66, "cnn-avg": 0.50, "attn-max": 0.64},
            }
        )
    )
    paths = write_report(records, tmp_path / "rep", reference="en", xnli=xnli)
    names = {p.name for p in paths}
    for name in (
        "table4_xprobe_mlp_en.md",
        "table4_xprobe_mlp_de.csv",
        "table1_xprobe_mlp.md",
        "relative_xprobe_mlp_de.png",
        "datasets_en_mlp_orig_vs_xprobe.png",
        "xnli_spearman_xprobe_mlp.png",
        "report.md",
    ):
        assert name in names, name
    for p in paths:
        if p.suffix == ".png":
            assert p.read_bytes()[:8] == PNG_MAGIC and p.stat().st_size > 2000
    rows = list(csv.reader(open(tmp_path / "rep" / "table4_xprobe_mlp_en.csv")))
    assert rows[0] == ["encoder", "SentLen", "WC"]
    cells = {r[0]: [c.split(" [")[0] + (" ±" + c.split(" ±")[1] if " ±" in c else "")
                    for c in r[1:]] for r in rows[1:]}  # fmt: skip
    assert cells["majority"] == ["20.0", ""]  # baselines first, empty cell when not measured
    assert cells["bilstm-max"] == ["71.0 ± 1.0 (2 seeds)", "30.0"]
    assert cells["n_test"] == ["50", "50"]
    assert cells["cnn-avg"] == ["20.0", "6.0"]
    assert rows[1][0] == "majority"
    xr = list(csv.reader(open(tmp_path / "rep" / "xnli_spearman_xprobe_mlp.csv")))
    # en: SentLen (.71, .20, .74) vs XNLI (.71, .51, .70): ranks (2,1,3) vs (3,1,2) -> rho 0.5
    en = next(r for r in xr if r[0] == "en")
    assert en[1] == "0.50"


def test_xnli_tsv_and_errors(tmp_path):
    p = tmp_path / "x.tsv"
    p.write_text("language\tencoder\taccuracy\nde\tbilstm-max\t0.66\n", encoding="utf-8")
    assert load_xnli(p) == {("de", "bilstm-max"): 0.66}
    p.write_text("de\tbilstm-max\t0.66\nde\tcnn\tabc\n", encoding="utf-8")
    with pytest.raises(XProbeError, match=r"x\.tsv:2"):
        load_xnli(p)


def test_cli_report(tmp_path, records, capsys):
    from xprobe.cli import main

    res = tmp_path / "r.jsonl"
    append_records(res, records)
    assert main(["report", str(res), "--out", str(tmp_path / "o")]) == 0
    assert (tmp_path / "o" / "report.md").is_file()
    assert main(["report", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o")]) == 2


def test_stability_section_from_several_settings(tmp_path):
    recs = []
    for clf in ("lr", "mlp"):
        for size in (100, 1000):
            for i, enc in enumerate(("a", "b", "c", "d")):
                for task in ("SentLen", "WC"):
                    recs.append(_rec(enc, "en", task, 0.5 + 0.1 * i, clf=clf, max_train=size))
    paths = write_report(recs, tmp_path)
    assert any(p.name == "stability.md" for p in paths)
    text = (tmp_path / "stability.md").read_text()
    assert "| lr | 100 | 2.00 | 2.00 |" in text  # perfect agreement on 2 tasks: mu = 2

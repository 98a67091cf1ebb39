"""A test or validation split that holds one class only (issue 23).

The original X-Probe Turkish ``obj_number/te.txt`` is 7,396 ``Plur`` lines and nothing else:
trained on ``va`` and tested on halves of ``te``, the majority baseline scores 0.0 and nothing
said why. Such a split is an error unless ``--allow-one-class``; then the records carry
``one_class`` and the report flags the cells and says what the number means.
"""

from __future__ import annotations

import json
import logging

import pytest

from xprobe.cli import main
from xprobe.errors import XProbeError
from xprobe.probe.harness import ProbeOptions, run_probe
from xprobe.report.build import write_report


def _senteval(tmp_path, te_labels=("Sing", "Plur"), va_labels=("Sing", "Plur")):
    """tr/va/te lines; te and va cycle through the labels given."""
    d = tmp_path / "set" / "tr"
    d.mkdir(parents=True)
    lines = [f"tr\t{('Sing', 'Plur')[i % 2]}\ttrain sentence {i} .\n" for i in range(12)]
    lines += [f"va\t{va_labels[i % len(va_labels)]}\tdev sentence {i} .\n" for i in range(6)]
    lines += [f"te\t{te_labels[i % len(te_labels)]}\ttest sentence {i} .\n" for i in range(6)]
    (d / "obj_number.txt").write_text("".join(lines), encoding="utf-8")
    (d / "manifest.json").write_text(json.dumps({"language": "tr", "tasks": {}}))
    return d


def _xprobe(tmp_path):
    """The X-Probe layout as released for Turkish ObjNum: va has both classes, te only Plur."""
    d = tmp_path / "xp" / "obj_number"
    d.mkdir(parents=True)
    va = [f"va sentence {i} .\t{'Sing' if i % 3 else 'Plur'}\n" for i in range(12)]
    te = [f"te sentence {i} .\tPlur\n" for i in range(8)]
    (d / "va.txt").write_text("".join(va), encoding="utf-8")
    (d / "te.txt").write_text("".join(te), encoding="utf-8")
    return d.parent


def _opts(tmp_path, **kw):
    return ProbeOptions(classifiers=("majority",), cache_dir=tmp_path / "c", device="cpu",
                        language="tr", **kw)  # fmt: skip


def test_one_class_test_split_is_an_error(tmp_path):
    d = _senteval(tmp_path, te_labels=("Plur",))
    with pytest.raises(XProbeError, match=r"obj_number\.txt: the test split holds one class only"
                       r" \('Plur', 6 sentences;.*--allow-one-class"):  # fmt: skip
        run_probe(None, d, tmp_path / "r.jsonl", _opts(tmp_path))
    assert not (tmp_path / "r.jsonl").exists()


def test_one_class_validation_split_is_an_error(tmp_path):
    d = _senteval(tmp_path, va_labels=("Sing",))
    with pytest.raises(XProbeError, match=r"the validation split holds one class only"):
        run_probe(None, d, tmp_path / "r.jsonl", _opts(tmp_path))


def test_xprobe_turkish_layout_is_one_line_exit_2(tmp_path, capsys):
    d = _xprobe(tmp_path)
    code = main(["probe", "--data", str(d), "--lang", "tr", "--out", str(tmp_path / "r.jsonl"),
                 "--classifier", "majority", "--cache-dir", str(tmp_path / "c")])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "one class only ('Plur'" in err and "obj_number" in err


def test_allowed_one_class_split_is_recorded_and_reported(tmp_path, caplog):
    d = _xprobe(tmp_path)
    with caplog.at_level(logging.WARNING):
        recs = run_probe(None, d, tmp_path / "r.jsonl", _opts(tmp_path, allow_one_class=True))
    assert any("one class only" in r.message for r in caplog.records)
    test = [r for r in recs if r["split"] == "test"]
    assert test and all(r["one_class"] == {"te": "Plur", "va": "Plur"} for r in test)
    assert test[0]["value"] == 0.0  # majority of va is Sing: the number the issue saw
    write_report(recs, tmp_path / "rep")
    text = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "0.0 [" in text and "§" in text.split("## Notes")[0]
    note = next(ln for ln in text.splitlines() if "one class only" in ln and ln.startswith("- "))
    assert "ObjNum" in note and "'Plur'" in note and "test" in note


def test_cli_flag_allows_it(tmp_path):
    d = _senteval(tmp_path, te_labels=("Plur",))
    out = tmp_path / "r.jsonl"
    args = ["probe", "--data", str(d), "--out", str(out), "--classifier", "majority",
            "--cache-dir", str(tmp_path / "c")]  # fmt: skip
    assert main(args) == 2 and not out.exists()
    assert main([*args, "--allow-one-class"]) == 0
    recs = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert {json.dumps(r.get("one_class")) for r in recs} == {json.dumps({"te": "Plur"})}

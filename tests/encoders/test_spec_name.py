"""An encoder spec may carry its display name: ``bov:vectors/fi.vec[name=bov-fasttext]``
(issue 23: rows named after their vector files never paired across languages)."""

from __future__ import annotations

import pytest

from xprobe.encoders.spec import default_name, parse_encoder, split_display_name
from xprobe.errors import XProbeError


def test_split_display_name_keeps_other_options():
    assert split_display_name("bov:v/fi.vec[name=bov-ft]") == ("bov:v/fi.vec", "bov-ft")
    assert split_display_name("hf:m/x[cls,name=MiniLM-L6,layers=0,6]") == (
        "hf:m/x[cls,layers=0,6]", "MiniLM-L6")  # fmt: skip
    assert split_display_name("random:lstm:v.vec:0[hidden=8]") == (
        "random:lstm:v.vec:0[hidden=8]", None)  # fmt: skip
    with pytest.raises(XProbeError, match="empty name"):
        split_display_name("bov:v.vec[name=]")


def test_default_name_is_the_spec_name():
    assert default_name("bov:vectors/fi.vec[name=bov-fasttext]") == "bov-fasttext"
    assert default_name("hf:models/all-MiniLM-L6-v2[cls,name=MiniLM-L6]") == "MiniLM-L6"
    assert default_name("bov:vectors/fi.vec") == "bov-fi"


def test_parse_encoder_ignores_the_name(tmp_path):
    vec = tmp_path / "fi.vec"
    vec.write_text("2 3\nkissa 1 0 0\nkoira 0 1 0\n", encoding="utf-8")
    named = parse_encoder(f"bov:{vec}[name=bov-fasttext]")
    assert named.id == parse_encoder(f"bov:{vec}").id  # the name is not part of the identity
    assert named.encode([["kissa"]]).tolist() == [[1.0, 0.0, 0.0]]


def test_probe_records_the_spec_name(tmp_path):
    from xprobe.probe.classifiers import TrainConfig
    from xprobe.probe.harness import ProbeOptions, run_probe

    vec = tmp_path / "fi.vec"
    vec.write_text("2 2\nyes 1 0\nno 0 1\n", encoding="utf-8")
    d = tmp_path / "set" / "fi"
    d.mkdir(parents=True)
    lines = [f"{s}\t{lab}\t{s} {i} {w}\n" for s, k in (("tr", 8), ("va", 4), ("te", 4))
             for i in range(k) for lab, w in ((("Y", "yes"), ("N", "no"))[i % 2],)]  # fmt: skip
    (d / "past_present.txt").write_text("".join(lines), encoding="utf-8")
    opts = ProbeOptions(classifiers=("lr",), language="fi", device="cpu", cache_dir=tmp_path / "c",
                        train=TrainConfig(max_epochs=2, lr=1e-2))  # fmt: skip
    recs = run_probe(f"bov:{vec}[name=bov-fasttext]", d, tmp_path / "r.jsonl", opts)
    assert recs and {r["encoder"] for r in recs} == {"bov-fasttext"}
    assert all(r["encoder_id"].startswith("bov-mean:") for r in recs)

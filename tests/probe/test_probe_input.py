"""probe refuses input that would give a wrong number that looks right (issue 12, items 5, 6, 8).

Each test builds a tiny probing folder by hand and runs ``probe`` on it through the library or
the command line: the expected outcome (an error line naming file and place, or a warning) is
written out in the test.
"""

from __future__ import annotations

import gzip
import json
import logging
import math

import numpy as np
import pytest

from xprobe.cli import main
from xprobe.encoders.spec import parse_encoder
from xprobe.errors import XProbeError
from xprobe.probe.classifiers import TrainConfig
from xprobe.probe.harness import ProbeOptions, run_probe

pytest.importorskip("torch")

FAST = TrainConfig(max_epochs=5, patience=2, lr=1e-2)


def _lines(n_tr=20, n_va=10, n_te=10, labels=("PAST", "PRES")):
    out = []
    for split, k in (("tr", n_tr), ("va", n_va), ("te", n_te)):
        for i in range(k):
            lab = labels[i % len(labels)]
            out.append(f"{split}\t{lab}\t{split} sentence {i} {lab.lower()} .\n")
    return out


def _folder(tmp_path, lines, name="past_present.txt", manifest=True):
    d = tmp_path / "set" / "en"
    d.mkdir(parents=True)
    (d / name).write_text("".join(lines), encoding="utf-8")
    if manifest:
        (d / "manifest.json").write_text(json.dumps({"language": "en", "tasks": {}}))
    return d


def _opts(tmp_path, **kw):
    kw.setdefault("language", "en")  # folders without a manifest name no language
    return ProbeOptions(cache_dir=tmp_path / "cache", train=FAST, device="cpu", **kw)


def _probe_cli(d, tmp_path, *extra):
    return main(["probe", "--data", str(d), "--out", str(tmp_path / "r.jsonl"),
                 "--cache-dir", str(tmp_path / "c"), *extra])  # fmt: skip


# ------------------------------------------------------------------ item 5: non-UTF-8 bytes


def test_non_utf8_byte_is_one_line_naming_file_and_line(tmp_path, capsys):
    d = _folder(tmp_path, _lines())
    raw = (d / "past_present.txt").read_bytes().split(b"\n")
    raw[2] = raw[2].replace(b"sentence", b"caf\xe9")  # Latin-1 e-acute on line 3
    (d / "past_present.txt").write_bytes(b"\n".join(raw))
    assert _probe_cli(d, tmp_path, "--classifier", "majority") == 2
    err = capsys.readouterr().err
    assert f"{d / 'past_present.txt'}:3:" in err
    assert "UTF-8" in err and "0xe9" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_non_utf8_byte_in_gz_and_xprobe_layout(tmp_path):
    from xprobe.probe.datasets import load_probing_dir

    d = tmp_path / "gz"
    d.mkdir()
    with gzip.open(d / "past_present.txt.gz", "wb") as f:
        f.write("".join(_lines()).encode() + b"te\tPAST\tbad \xff byte\n")
    with pytest.raises(XProbeError, match=r"past_present\.txt\.gz:41: not UTF-8"):
        load_probing_dir(d, language="en")
    x = tmp_path / "xp" / "tree_depth"
    x.mkdir(parents=True)
    (x / "va.txt").write_bytes(b"a b c\t3\n")
    (x / "te.txt").write_bytes(b"a b c\t3\nd \x80 f\t4\n")
    with pytest.raises(XProbeError, match=r"te\.txt:2: not UTF-8.*0x80"):
        load_probing_dir(tmp_path / "xp", language="en")


# ------------------------------------------------------------------ item 6: NaN / inf embeddings


def test_nan_row_in_npy_embeddings_is_refused_naming_row_and_encoder(tmp_path):
    lines = _lines()
    d = _folder(tmp_path, lines)
    arr = np.random.default_rng(0).normal(size=(len(lines), 4)).astype(np.float32)
    arr[33, 2] = np.nan  # row 34 of the file: te sentence 3
    np.save(tmp_path / "emb.npy", arr)
    enc = parse_encoder(f"npy:{tmp_path / 'emb.npy'}")
    with pytest.raises(XProbeError) as info:
        run_probe(enc, d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("lr",), name="mine"))
    msg = str(info.value)
    assert "mine" in msg and "NaN" in msg
    assert "line 34" in msg and "past_present.txt" in msg
    assert not (tmp_path / "r.jsonl").exists()


class _InfEncoder:
    """Returns +inf for any sentence holding the token '7'; a fine vector otherwise."""

    id = "inf-test-v1"
    dim = 3

    def encode(self, batch):
        return np.array(
            [[math.inf if "7" in s else 1.0, len(s), 0.5] for s in batch], dtype=np.float32
        )


def test_infinite_embeddings_from_an_encoder_are_refused(tmp_path):
    d = _folder(tmp_path, _lines())
    with pytest.raises(XProbeError) as info:
        run_probe(_InfEncoder(), d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("lr",)))
    msg = str(info.value)
    assert "inf-test-v1" in msg and "infinite" in msg
    assert "line 8" in msg  # the first sentence with '7': tr sentence 7, line 8 of the file
    assert "'tr sentence 7 pres .'" in msg


# ------------------------------------------------------------------ item 8: suspicious data


def test_label_only_in_test_split_is_an_error(tmp_path):
    lines = [*_lines(), "te\tFUT\tit will rain .\n"]
    d = _folder(tmp_path, lines)
    with pytest.raises(XProbeError, match=r"past_present\.txt: label 'FUT' .*test.*never.*train"):
        run_probe(None, d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("majority",)))


def test_label_only_in_validation_split_is_a_warning(tmp_path, caplog):
    lines = [*_lines(), "va\tFUT\tit will rain .\n"]
    d = _folder(tmp_path, lines)
    with caplog.at_level(logging.WARNING):
        recs = run_probe(None, d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("majority",)))
    assert len(recs) == 2
    assert any("label 'FUT'" in r.message and "validation" in r.message for r in caplog.records)


def test_npy_with_more_rows_than_the_task_file_is_an_error(tmp_path):
    lines = _lines()
    d = _folder(tmp_path, lines)
    np.save(tmp_path / "emb.npy", np.ones((len(lines) + 1, 3), dtype=np.float32))
    enc = parse_encoder(f"npy:{tmp_path / 'emb.npy'}")
    with pytest.raises(XProbeError, match=r"41 rows.*40 sentences"):
        run_probe(enc, d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("lr",)))


def test_npy_with_as_many_rows_is_accepted(tmp_path):
    lines = _lines()
    d = _folder(tmp_path, lines)
    np.save(tmp_path / "emb.npy", np.ones((len(lines), 3), dtype=np.float32))
    enc = parse_encoder(f"npy:{tmp_path / 'emb.npy'}")
    recs = run_probe(enc, d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("lr",)))
    assert len(recs) == 2


def test_unfinished_extraction_folder_is_an_error(tmp_path):
    d = _folder(tmp_path, _lines(), manifest=False)
    (d / "past_present.provenance.tsv").write_text("x\n")  # written by extract, manifest not yet
    with pytest.raises(XProbeError, match=r"no manifest\.json.*unfinished"):
        run_probe(None, d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("majority",)))
    (d / "past_present.provenance.tsv").unlink()
    (d / ".sentence_length.txt.abc123.tmp").write_text("tr\t0\tx\n")  # a killed atomic write
    with pytest.raises(XProbeError, match=r"unfinished"):
        run_probe(None, d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("majority",)))
    (d / ".sentence_length.txt.abc123.tmp").unlink()
    (d / ".stdin.k2j3.conllu").write_text("")  # extract's spool of standard input
    with pytest.raises(XProbeError, match=r"\.stdin\.k2j3\.conllu is there: an unfinished"):
        run_probe(None, d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("majority",)))


def test_folder_without_manifest_and_no_leftovers_is_a_warning(tmp_path, caplog):
    d = _folder(tmp_path, _lines(), manifest=False)  # e.g. SentEval's own probing files
    with caplog.at_level(logging.WARNING):
        recs = run_probe(None, d, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("majority",)))
    assert len(recs) == 2
    assert any("no manifest.json" in r.message for r in caplog.records)
    caplog.clear()
    d2 = _folder(tmp_path / "b", _lines(), manifest=True)
    with caplog.at_level(logging.WARNING):
        run_probe(None, d2, tmp_path / "r2.jsonl", _opts(tmp_path, classifiers=("majority",)))
    assert not any("manifest" in r.message for r in caplog.records)


def test_results_file_with_a_non_utf8_byte_is_one_line(tmp_path, capsys):
    d = _folder(tmp_path, _lines())
    (tmp_path / "r.jsonl").write_bytes(b'{"encoder": "caf\xe9"}\n')
    assert _probe_cli(d, tmp_path, "--classifier", "majority") == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'r.jsonl'}:1: not UTF-8" in err and "Traceback" not in err


def test_nan_in_xprobe_layout_names_the_split_file_and_its_line(tmp_path):
    d = tmp_path / "xp" / "en" / "past_present"
    d.mkdir(parents=True)
    for split in ("va", "te"):
        (d / f"{split}.txt").write_text(
            "".join(f"{split} sentence {i} .\t{'AB'[i % 2]}\n" for i in range(12))
        )
    arr = np.ones((24, 2), dtype=np.float32)
    arr[12 + 7, 0] = np.nan  # te.txt line 8 (rows count va.txt first, then te.txt)
    np.save(tmp_path / "e.npy", arr)
    enc = parse_encoder(f"npy:{tmp_path / 'e.npy'}")
    with pytest.raises(XProbeError, match=r"te\.txt, line 8: 'te sentence 7 \.'\) is NaN"):
        run_probe(enc, d.parent, tmp_path / "r.jsonl", _opts(tmp_path, classifiers=("lr",)))

"""What ``xprobe map`` and ``train-nli --frozen`` record about their teacher / frozen encoder stays
what it was while the spec travelled as a string (issue 31: it is parsed once, at the edge, into
an :class:`~xprobe.encoders.encoder_spec.EncoderSpec`).

The digests below were computed on the code BEFORE that change (main at c6d3d64), from real tiny
runs; the folder of the test is replaced by ``<TMP>`` so the text does not depend on it. A change
here changes what every mapped checkpoint says about its teacher: it must be deliberate."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from xprobe.cli import main

torch = pytest.importorskip("torch")

# sha256 of the canonical JSON text (sorted keys, <TMP> for the folder) of each recorded part
EXPECTED = {
    "map": {
        "teacher": "<TMP>/teacher",
        "config.json extra": "a4431b10b1746b784dd055246f78ef8dfaeed2228602bee9047a96593e616ad3",
        "mapping_report.json teacher": (
            "6724d30806056182c55576dd1db3f433e56ea0637554d53d45ace5ca99318bc9"
        ),
    },
    "head": {
        "encoder": "<TMP>/teacher[name=en-teacher]",
        "head.json": "87390d283d507eb26e18915603321f04a1a38da8e0199bae85f2d180aa66874e",
    },
}


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XPROBE_CACHE", str(tmp_path / "xprobe-cache"))


def _write_vec(path: Path, words: list[str], matrix: np.ndarray) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for w, row in zip(words, matrix, strict=True):
            f.write(w + " " + " ".join(f"{x:.5f}" for x in row) + "\n")


def _world(d: Path) -> None:
    """40 English words, their 'translations', 120 parallel pairs, NLI pairs, a teacher."""
    from xprobe.encoders.checkpoint import save_encoder
    from xprobe.encoders.neural import random_encoder
    from xprobe.encoders.vectors import load_vectors
    from xprobe.nli.train import build_classifier, save_classifier

    rng = np.random.default_rng(0)
    en = rng.normal(size=(40, 12))
    _write_vec(d / "en.vec", [f"e{i}" for i in range(40)], en)
    _write_vec(d / "xx.vec", [f"t{i}" for i in range(40)], en + 0.05 * rng.normal(size=en.shape))
    lines, labels = [], ("entailment", "neutral", "contradiction")
    for _ in range(120):
        ids = rng.integers(0, 40, size=rng.integers(3, 9))
        lines.append(" ".join(f"e{i}" for i in ids) + "\t" + " ".join(f"t{i}" for i in ids))
    (d / "par.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    nli = [f"{lines[i].split(chr(9))[0]}\t{lines[i + 1].split(chr(9))[0]}\t{labels[i % 3]}"
           for i in range(0, 60, 2)]  # fmt: skip
    (d / "nli.tsv").write_text("\n".join(nli) + "\n", encoding="utf-8")
    xnli = [f"{lines[i].split(chr(9))[1]}\t{lines[i + 1].split(chr(9))[1]}\t{labels[i % 3]}"
            for i in range(0, 60, 2)]  # fmt: skip
    (d / "xnli.tsv").write_text("\n".join(xnli) + "\n", encoding="utf-8")
    torch.manual_seed(0)
    enc = random_encoder("bilstm-max", load_vectors(d / "en.vec"), seed=0, hidden=8, layers=1)
    (d / "teacher").mkdir()
    save_encoder(d / "teacher", enc, files=save_classifier(d / "teacher", build_classifier(16, 8)))


def _canon(value, tmp: Path) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False).replace(str(tmp), "<TMP>")


def _sha(value, tmp: Path) -> str:
    return hashlib.sha256(_canon(value, tmp).encode("utf-8")).hexdigest()


def _map_args(d: Path, teacher: str, out: Path) -> list[str]:
    return ["-q", "map", "--teacher", teacher, "--vectors", str(d / "xx.vec"),
            "--teacher-vectors", str(d / "en.vec"), "--parallel-tsv", str(d / "par.tsv"),
            "--xnli-dev", str(d / "xnli.tsv"), "--target-lang", "de", "--out", str(out),
            "--heldout", "20", "--batch-size", "16", "--epochs", "1", "--keep-vocab", "0",
            "--device", "cpu"]  # fmt: skip


def test_map_and_frozen_head_record_their_encoder_as_before(tmp_path):
    _world(tmp_path)
    teacher = f"{tmp_path / 'teacher'}[name=en-teacher]"
    out = tmp_path / "student"
    assert main(_map_args(tmp_path, str(tmp_path / "teacher"), out)) == 0
    extra = json.loads((out / "config.json").read_text("utf-8"))["extra"]
    report = json.loads((out / "mapping_report.json").read_text("utf-8"))
    head = tmp_path / "head"
    assert main(["-q", "train-nli", "--frozen", teacher, "--train", str(tmp_path / "nli.tsv"),
                 "--dev", str(tmp_path / "nli.tsv"), "--out", str(head), "--tokenizer",
                 "whitespace", "--classifier-hidden", "8", "--epochs", "2", "--device", "cpu",
                 "--cache-dir", str(tmp_path / "cache")]) == 0  # fmt: skip
    meta = json.loads((head / "head.json").read_text("utf-8"))
    got = {
        "map": {
            "teacher": _canon(extra["teacher"], tmp_path).strip('"'),
            "config.json extra": _sha(extra, tmp_path),
            "mapping_report.json teacher": _sha(
                {k: report[k] for k in ("teacher", "teacher_id") if k in report}, tmp_path
            ),
        },
        "head": {
            "encoder": _canon(meta["encoder"], tmp_path).strip('"'),
            "head.json": _sha({k: v for k, v in meta.items() if k != "history"}, tmp_path),
        },
    }
    if torch.__version__.split("+")[0] == "2.13.0":  # the project's pin, the values' torch
        assert got == EXPECTED
    else:  # another torch's kernels round the trained numbers differently: the names still hold
        assert _names(got) == _names(EXPECTED)


def _names(values: dict) -> dict:
    return {"teacher": values["map"]["teacher"], "encoder": values["head"]["encoder"],
            "report": values["map"]["mapping_report.json teacher"]}  # fmt: skip


def test_a_named_teacher_is_mapped_and_its_student_pairs_with_that_name(tmp_path):
    """``--teacher DIR[name=NAME]``: its own NLI classifier stops the run (the spec is not taken
    for a folder), the student records the spec as given and pairs with the teacher's name."""
    from xprobe.encoders.encoder_spec import EncoderSpec

    _world(tmp_path)
    teacher = f"{tmp_path / 'teacher'}[name=en-teacher]"
    assert main(_map_args(tmp_path, teacher, tmp_path / "student")) == 0
    extra = json.loads((tmp_path / "student" / "config.json").read_text("utf-8"))["extra"]
    assert extra["teacher"] == teacher
    fields = EncoderSpec.parse(str(tmp_path / "student")).record_fields()
    assert fields == {"mapped_from": extra["teacher_id"], "teacher": "en-teacher"}

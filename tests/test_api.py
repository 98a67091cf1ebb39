"""xprobe.evaluate: probing from Python with a callable, an encoder object or a spec; the same
results file as the CLI; folders chosen by language."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import xprobe
from tests.toy_tasks import write_length_task
from xprobe.errors import XProbeError
from xprobe.probe.classifiers import TrainConfig
from xprobe.probe.records import read_records, validate_record

FAST = TrainConfig(max_epochs=30, patience=5, lr=1e-2)


def _folder(root: Path, lang: str, n: int = 40) -> Path:
    d = root / lang
    d.mkdir(parents=True)
    write_length_task(d / "sentence_length.txt", n, seed=len(lang))
    (d / "manifest.json").write_text(json.dumps({"language": lang, "tasks": {}}), "utf-8")
    return d


def words(sentences: list[str]) -> np.ndarray:
    return np.array([[len(s.split()), 1.0] for s in sentences], dtype=np.float32)


def test_callable_on_text_writes_and_returns_records(tmp_path: Path) -> None:
    data = _folder(tmp_path / "probing", "en")
    out = tmp_path / "r.jsonl"
    seen: list[str] = []

    def encode(sentences: list[str]) -> np.ndarray:
        seen.extend(sentences)
        return words(sentences)

    recs = xprobe.evaluate(encode, data, out=out, classifiers=["lr", "majority"], seeds=1,
                           device="cpu", cache_dir=tmp_path / "c", train=FAST)  # fmt: skip
    assert recs == read_records(out) and len(recs) == 4
    assert all(validate_record(r) == [] for r in recs)
    assert {r["encoder"] for r in recs} == {"encode", "baseline"}
    assert all(isinstance(s, str) and s.startswith("w") for s in seen)
    test = {r["classifier"]: r["value"] for r in recs if r["split"] == "test"}
    assert test["lr"] > 0.9 and test["lr"] > test["majority"]
    again = xprobe.evaluate(encode, data, out=out, classifiers=["lr", "majority"], seeds=1,
                            device="cpu", cache_dir=tmp_path / "c", train=FAST)  # fmt: skip
    assert again == recs  # already recorded: returned, nothing re-encoded or re-trained


def test_languages_pick_folders(tmp_path: Path) -> None:
    root = tmp_path / "probing"
    _folder(root, "en")
    _folder(root, "de")
    out = tmp_path / "r.jsonl"
    recs = xprobe.evaluate(words, root, out=out, languages=["de"], classifiers=["lr"], seeds=1,
                           device="cpu", cache_dir=tmp_path / "c", train=FAST)  # fmt: skip
    assert {r["language"] for r in recs} == {"de"} and recs[0]["encoder"] == "words"
    with pytest.raises(XProbeError, match="no probing folder for language"):
        xprobe.evaluate(words, root, out=out, languages=["fi"])


def test_a_spec_string_and_a_bad_object(tmp_path: Path) -> None:
    data = _folder(tmp_path / "probing", "en")
    recs = xprobe.evaluate(None, {"xx": data}, out=tmp_path / "r.jsonl",
                           classifiers=["majority"])  # fmt: skip
    assert {r["language"] for r in recs} == {"xx"} and recs[0]["encoder"] == "baseline"
    with pytest.raises(XProbeError, match="cannot probe a int"):
        xprobe.evaluate(3, data, out=tmp_path / "r2.jsonl", classifiers=["lr"])


def test_unknown_option_is_one_clear_error(tmp_path: Path) -> None:
    data = _folder(tmp_path / "probing", "en")
    with pytest.raises(XProbeError, match=r"unknown option.*max_trian; valid: .*max_train"):
        xprobe.evaluate(words, data, out=tmp_path / "r.jsonl", max_trian=10)

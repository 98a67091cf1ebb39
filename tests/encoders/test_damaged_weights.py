"""Issue 23: damaged or hostile transformer weights under ``hf:DIR`` are one error line that
names the file, says it is damaged or unsafe and must be replaced (exit 2), as ``encoder.pt``
and ``train_state.pt`` already are; never torch's advice to load it unsafely.

The model is a tiny BERT built from a config and saved with ``save_pretrained``."""

from __future__ import annotations

import os
import pathlib
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from xprobe.cli import main

MARKER = "payload-ran"


class Payload:
    """A pickle that creates a file when it is loaded: what a hostile checkpoint does."""

    def __init__(self, where: Path) -> None:
        self.where = where

    def __reduce__(self) -> tuple[Callable[..., object], tuple[object, ...]]:
        return (pathlib.Path.touch, (pathlib.Path(self.where),))


def truncate(model: Path) -> str:
    w = model / "model.safetensors"
    w.write_bytes(w.read_bytes()[:200])
    return "model.safetensors"


def random_bytes(model: Path) -> str:
    w = model / "model.safetensors"
    w.write_bytes(os.urandom(w.stat().st_size))
    return "model.safetensors"


def pickle_payload(model: Path) -> str:
    import torch

    (model / "model.safetensors").unlink()
    torch.save({"weights": Payload(model / MARKER)}, model / "pytorch_model.bin")
    return "pytorch_model.bin"


@pytest.mark.parametrize("damage", [truncate, random_bytes, pickle_payload],
                         ids=["truncated", "random-bytes", "pickle-payload"])  # fmt: skip
def test_damaged_weights_are_one_line(
    tiny_bert: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], damage
) -> None:
    model = tmp_path / "model"
    shutil.copytree(tiny_bert, model)
    name = damage(model)
    sentences = tmp_path / "s.txt"
    sentences.write_text("the cat sat on the mat .\n", encoding="utf-8")
    out = tmp_path / "e.npy"
    capsys.readouterr()
    rc = main(["encode", "--encoder", f"hf:{model}", str(sentences), "--out", str(out)])
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert rc == 2, err
    errors = [line for line in err if line.startswith("ERROR")]
    assert len(errors) == 1 and "Traceback" not in "\n".join(err), err
    line = errors[0]
    assert str(model / name) in line
    assert ("damaged" in line or "unsafe" in line) and "replace" in line, line
    for advice in ("weights_only", "likely succeed", "safe_globals", "trust"):
        assert advice not in line, line
    assert not (model / MARKER).exists()  # the payload never ran
    assert not out.exists()

"""A process that loads one model again (a study's worker probing language after language)
reuses the weights it loaded; a model whose files changed is loaded again."""

from __future__ import annotations

import shutil
from pathlib import Path

import xprobe.encoders.hfload as hfload
from xprobe.encoders.transformer import load_transformer


def test_second_load_reuses_the_model(tiny_bert: Path, tmp_path: Path, monkeypatch) -> None:
    calls: list[str] = []
    real = hfload.load_model

    def counted(kind, path, *a, **kw):
        calls.append(path)
        return real(kind, path, *a, **kw)

    monkeypatch.setattr(hfload, "load_model", counted)
    copy = tmp_path / "m"
    shutil.copytree(tiny_bert, copy)
    a = load_transformer(f"hf:{copy}", device="cpu")
    b = load_transformer(f"hf:{copy}[layers=1]", device="cpu")
    assert len(calls) == 1 and a.model is b.model
    assert a.base_id == b.base_id and b.layers == (1,)
    (copy / "config.json").write_text(
        (copy / "config.json").read_text().replace("{", '{"_edited": 1,', 1)
    )
    c = load_transformer(f"hf:{copy}", device="cpu")
    assert len(calls) == 2 and c.model is not a.model and c.base_id != a.base_id

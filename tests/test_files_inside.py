"""``xprobe.files.inside``: a path is resolved as the operating system would (relative to the
current folder), then proven to lie inside the root; a relative output folder works as an
absolute one does (the tutorial's ``export datasets ... --out export/xprobe-en``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from xprobe.errors import XProbeError
from xprobe.files import inside


def test_relative_root_and_path_resolve_from_the_current_folder(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "export" / ".tmp").mkdir(parents=True)
    got = inside(Path("export/.tmp"), Path("export/.tmp") / "bigram_shift")
    assert got == tmp_path / "export" / ".tmp" / "bigram_shift"


def test_a_path_outside_the_root_is_refused(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    with pytest.raises(XProbeError, match="outside the output folder"):
        inside("out", "out/../victim")
    with pytest.raises(XProbeError, match="outside the output folder"):
        inside(tmp_path / "out", tmp_path / "victim")
    assert inside(tmp_path / "out", tmp_path / "out") == tmp_path / "out"


def test_export_datasets_into_a_relative_folder(tmp_path, monkeypatch, fixtures) -> None:
    pytest.importorskip("datasets")
    from tests.export.test_export_datasets import _extract  # a real extract folder
    from xprobe.cli import main

    src = _extract(tmp_path / "probing" / "en", [fixtures / "tasks_en.conllu"])
    monkeypatch.chdir(tmp_path)
    assert main(["export", "datasets", str(src), "--out", "export/ds"]) == 0
    assert (tmp_path / "export" / "ds" / "README.md").exists()

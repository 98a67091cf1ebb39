"""Data folders: the checkout's when the package sits in one, else the wheel's copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from xprobe import languages, resources
from xprobe.cli import main


def test_checkout_folders_are_read_in_a_checkout() -> None:
    res = resources.data_dir("languages")
    assert res.origin == "checkout" and (res.path / "en.toml").is_file()
    assert res.path == Path(__file__).resolve().parents[2] / "languages"


def test_installed_package_reads_its_own_copy(tmp_path: Path, monkeypatch) -> None:
    site = tmp_path / "site-packages"  # no pyproject.toml: not a checkout
    (site / "xprobe" / "_data" / "mapping").mkdir(parents=True)
    monkeypatch.setattr(resources, "REPO_ROOT", site)
    monkeypatch.setattr(resources, "PACKAGE_DATA", site / "xprobe" / "_data")
    assert resources.data_dir("mapping") == resources.Resource(
        site / "xprobe" / "_data" / "mapping", "package"
    )
    assert resources.data_dir("languages").origin == "missing"
    with pytest.raises(ValueError, match="unknown data folder"):
        resources.data_dir("models")


def test_profile_sources_name_their_origin(tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / "xx.toml").write_text('code = "xx"\nname = "Extra"\n', encoding="utf-8")
    (tmp_path / "en.toml").write_text('code = "en"\nname = "Shadowing"\n', encoding="utf-8")
    monkeypatch.setenv("XPROBE_LANGUAGES", str(tmp_path))
    by_code = {s.code: s for s in languages.profile_sources()}
    assert by_code["xx"].origin == "$XPROBE_LANGUAGES"
    assert by_code["en"].path == tmp_path / "en.toml"  # the first in the search path wins
    assert by_code["de"].origin == "checkout"
    assert main(["languages"]) == 0
    out = capsys.readouterr().out
    assert "xx     Extra" in out and "Shadowing" in out and "mapping: 5 file(s)" in out

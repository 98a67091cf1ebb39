"""The wheel carries the data folders: built, installed into a fresh virtual environment outside
the checkout, it lists its own profiles and extracts (issue 21: ``known: none`` before)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from xprobe import __version__

REPO = Path(__file__).resolve().parents[2]


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{cmd}: {done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
          "-w", str(out), str(REPO)], cwd=out)  # fmt: skip
    (whl,) = out.glob("xprobe-*.whl")
    return whl


@pytest.mark.slow
def test_wheel_holds_every_data_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("languages", "mapping", "studies"):
        for p in (REPO / folder).rglob("*"):
            if p.is_file() and "__pycache__" not in p.parts:
                rel = p.relative_to(REPO).as_posix()
                assert f"xprobe/_data/{rel}" in names, rel


@pytest.mark.slow
def test_installed_wheel_extracts_with_its_own_profiles(
    wheel: Path, tmp_path: Path, fixtures: Path
) -> None:
    # no PYTHONPATH: the checkout (and its xprobe.egg-info) must stay invisible to pip and xprobe
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "XPROBE_LANGUAGES")}
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path)
    py = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
          "--force-reinstall", str(wheel)], cwd=tmp_path, env=env)  # fmt: skip
    # then the fresh environment sees this one's dependencies (torch...) but not its xprobe: the
    # folder is appended as a plain path, so its .pth files (an editable xprobe) stay unread
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                     cwd=tmp_path).strip())  # fmt: skip
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(fixtures / "tasks_en.conllu", work / "en.conllu")
    xprobe = str(venv / "bin" / "xprobe")

    assert _run([xprobe, "--version"], work, env).strip() == f"xprobe {__version__}"
    where = _run([str(py), "-c", "import xprobe; print(xprobe.__file__)"], work, env)
    assert Path(where).resolve().is_relative_to(venv.resolve())
    listing = _run([xprobe, "languages", "--paths"], work, env)
    en = next(line for line in listing.splitlines() if line.startswith("en "))
    assert Path(en.split()[-1]).resolve().is_relative_to(venv.resolve()), listing
    assert "package" in _run([xprobe, "languages"], work, env)
    _run([xprobe, "extract", "--lang", "en", "--out", "p", "--sizes", "4,1,1", "--allow-partial",
          "--tasks", "SentLen", "BShift", "en.conllu"], work, env)  # fmt: skip
    manifest = json.loads((work / "p" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["language"] == "en" and manifest["tasks"]["bigram_shift"]["lines"] > 0

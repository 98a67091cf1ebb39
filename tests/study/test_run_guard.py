"""``xprobe run``'s output folder: a file named as --out is one line, a dry run creates nothing,
and two runs on one --out never run at once (issue 28)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.study.test_study_file import VALID, folder  # noqa: F401  (a fixture)
from xprobe.cli import main
from xprobe.errors import XProbeError
from xprobe.study.lock import study_lock

HOLD = """
import sys, time
from pathlib import Path
from xprobe.study.lock import study_lock
with study_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(120)
"""


def _error_lines(err: str) -> list[str]:
    assert "Traceback" not in err, err
    return [ln for ln in err.splitlines() if ln.startswith("ERROR")]


def test_out_naming_a_file_is_one_line(folder: Path, capsys) -> None:  # noqa: F811
    (folder / "s.toml").write_text(VALID)
    (folder / "out").write_text("a file\n")
    for extra in ([], ["--dry-run"]):
        assert main(["run", str(folder / "s.toml"), "--out", str(folder / "out"), *extra]) == 2
        [line] = _error_lines(capsys.readouterr().err)
        assert f"{folder / 'out'}: exists and is not a folder" in line
    assert (folder / "out").read_text() == "a file\n"


def test_dry_run_creates_nothing(folder: Path, capsys) -> None:  # noqa: F811
    (folder / "s.toml").write_text(VALID)
    assert main(["run", str(folder / "s.toml"), "--out", str(folder / "out"), "--dry-run"]) == 0
    assert "to do  extract-en  (new)" in capsys.readouterr().out
    assert not (folder / "out").exists()


def _holder(out: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    p = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE,
                         text=True, env=env)  # fmt: skip
    assert p.stdout is not None and p.stdout.readline().strip() == "held"
    return p


def test_a_second_run_on_a_busy_out_is_refused(folder: Path, capsys) -> None:  # noqa: F811
    (folder / "s.toml").write_text(VALID)
    out = folder / "out"
    holder = _holder(out)  # another process holds the study's lock (a run in progress)
    try:
        assert main(["run", str(folder / "s.toml"), "--out", str(out)]) == 2
        [line] = _error_lines(capsys.readouterr().err)
        assert f"pid {holder.pid}" in line and str(out) in line, line
        assert not (out / ".study" / "steps").exists()  # no step started
        with pytest.raises(XProbeError, match=f"pid {holder.pid}"), study_lock(out):
            pass
    finally:
        holder.kill()
        holder.wait()


def test_a_dead_holders_lock_does_not_block(tmp_path: Path) -> None:
    out = tmp_path / "out"
    holder = _holder(out)
    os.kill(holder.pid, signal.SIGKILL)  # killed mid-run: its lock file stays behind
    holder.wait()
    assert (out / ".study" / "lock").exists()
    with study_lock(out):
        assert (out / ".study" / "lock").read_text().strip() == str(os.getpid())

"""A killed `xprobe run --jobs N` takes its step workers with it: a worker whose parent died
stops within a second or two instead of running its step to the end (observed: two workers of
a rehearsal killed with SIGTERM went on for minutes, computing and writing into the output
folder). The step leaves no done-marker, so the next run redoes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

RUN = """
import sys
from pathlib import Path
from xprobe.study import Step, make_plan
from xprobe.study.engine import run_plan
out = Path(sys.argv[1])
linger = "tests.study.helpers:linger"
steps = [Step(n, n, ("call", linger, {"out": str(out / n), "pid_file": str(out / (n + ".pid"))}),
              (str(out / n),)) for n in ("a", "b")]
try:
    run_plan(make_plan(steps, out), jobs=2)
except KeyboardInterrupt:
    sys.exit(130)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGINT, "ctrl-c"])
def test_the_step_workers_of_a_killed_run_stop(tmp_path: Path, sig: int | str) -> None:
    """SIGINT to the run (``kill -INT``), or to its whole process group (Ctrl-C in a terminal),
    stops it as promptly as SIGTERM: it used to wait for the running steps to end (35 s)."""
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", RUN, str(out)], env=env, cwd=REPO,
                            start_new_session=True)  # fmt: skip
    pids: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(pids) < 2 and time.monotonic() < deadline:
            pids = [int(p.read_text()) for p in out.glob("*.pid") if p.read_text()]
            time.sleep(0.1)
        assert len(pids) == 2, "the two steps did not start"
        if sig == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(sig)
        proc.wait(10)
        if sig in (signal.SIGINT, "ctrl-c"):
            assert proc.returncode == 130
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in pids if _alive(p)], "step workers outlived the killed run"
    finally:
        if proc.poll() is None:
            proc.kill()
        for p in pids:
            if _alive(p):
                os.kill(p, signal.SIGKILL)
    assert not (out / "a").exists() and not (out / "b").exists()
    assert not list(out.glob(".study/steps/*.json"))  # no step marked done: the next run redoes


def test_ctrl_c_says_what_became_of_the_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import xprobe.commands.run as run_command
    from xprobe.cli import main

    def interrupted(_args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(run_command, "run", interrupted)
    assert main(["run", "study.toml", "--out", "o"]) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [line] = [x for x in err.splitlines() if x.startswith("ERROR")]
    assert "interrupted (Ctrl-C), its work stopped" in line
    assert "rerun the same command to resume" in line

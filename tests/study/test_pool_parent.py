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
run_plan(make_plan(steps, out), jobs=2)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_the_step_workers_of_a_killed_run_stop(tmp_path: Path, sig: int) -> None:
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", RUN, str(out)], env=env, cwd=REPO)
    pids: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(pids) < 2 and time.monotonic() < deadline:
            pids = [int(p.read_text()) for p in out.glob("*.pid") if p.read_text()]
            time.sleep(0.1)
        assert len(pids) == 2, "the two steps did not start"
        proc.send_signal(sig)
        proc.wait(10)
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

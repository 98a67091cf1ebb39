"""A step's CPU seconds (user + system, its own and its finished child processes') are recorded
in its marker and said in its progress line, beside its wall seconds."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xprobe.study import Step, make_plan
from xprobe.study.engine import run_plan

SPIN = "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}: pass\n"


def burn(out: str, seconds: float) -> None:
    """Spend at least ``seconds`` of CPU here and as many in a child process, then write
    ``out``."""
    subprocess.run([sys.executable, "-c", SPIN.format(s=seconds)], check=True)
    t = time.process_time()
    while time.process_time() - t < seconds:
        pass
    Path(out).write_text("burnt")


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_steps_cpu_counts_its_children(tmp_path: Path, jobs: int, caplog) -> None:
    out = tmp_path / "out"
    fn = "tests.study.test_step_cpu:burn"
    steps = [  # two: with jobs=2 they run in worker processes
        Step(n, n, ("call", fn, {"out": str(out / n), "seconds": 0.3}), (str(out / n),))
        for n in "bc"
    ]
    with caplog.at_level(logging.INFO):
        run_plan(make_plan(steps, out), jobs=jobs)
    marker = json.loads((out / ".study" / "steps" / "b.json").read_text())
    assert marker["cpu_seconds"] >= 0.6  # 0.3 s here + 0.3 s in the child, at least
    line = next(r.getMessage() for r in caplog.records if "] b:" in r.getMessage())
    assert f"{marker['cpu_seconds']:.1f}s CPU" in line

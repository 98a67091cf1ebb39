"""Step actions for the synthetic plans of tests/study (``("call", "tests.study.helpers:...")``)."""

from __future__ import annotations

from pathlib import Path

from xprobe.errors import XProbeError


def write(out: str, text: str, inputs: list[str] = (), log: str = "", fail_if: str = "") -> None:
    """Write ``text`` after the content of ``inputs`` to ``out``; note the call in ``log``;
    raise when the file ``fail_if`` exists (a step that dies mid-way)."""
    if log:
        with open(log, "a") as f:
            f.write(Path(out).name + "\n")
    if fail_if and Path(fail_if).exists():
        Path(out).write_text("half written")  # what a killed step leaves behind
        raise XProbeError(f"step writing {Path(out).name} was killed")
    body = "".join(Path(p).read_text() for p in inputs) + text
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(body)


def meet(out: str, here: str, there: str, wait: float = 60.0) -> None:
    """Write the file ``here``, wait up to ``wait`` seconds for the other step to write
    ``there``, then write to ``out`` whether the two ran at the same time ("met") or not
    ("alone")."""
    import time

    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(here).write_text("here")
    deadline = time.monotonic() + wait
    while not Path(there).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    Path(out).write_text("met" if Path(there).exists() else "alone")


def linger(out: str, pid_file: str, seconds: float = 120.0) -> None:
    """Write this process's id to ``pid_file``, sleep ``seconds``, then write ``out``: a long
    step, to see what becomes of its worker when the run is killed."""
    import os
    import time

    Path(pid_file).write_text(str(os.getpid()))
    time.sleep(seconds)
    Path(out).write_text("lingered")


def threads_seen(out: str, here: str = "", there: str = "") -> None:
    """Write to ``out`` the torch threads this step was given; with ``here``/``there``, first
    wait for the other step as :func:`meet` does (two steps running at once)."""
    import torch

    if here:
        meet(out, here, there)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(str(torch.get_num_threads()))


def execute_noting_runtime(status, out: str, threads: int) -> tuple[str, float]:
    """The engine's ``execute``, after writing the runtime flags the pool handed this step to
    ``OUT/NAME.runtime``."""
    from xprobe.study.engine import execute

    Path(out).mkdir(parents=True, exist_ok=True)
    Path(out, status.step.name + ".runtime").write_text(" ".join(status.step.runtime))
    return execute(status, out, threads)

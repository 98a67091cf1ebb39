"""Run a plan's steps that are to do as a Dask graph, skipping what is done.

Local by default: up to ``jobs`` independent steps at once in worker processes
(:mod:`xprobe.study.pool`, the longest remaining chain first; ``jobs=0``: one per core), each
step's UDPipe processes and torch threads capped at its share of the cores so the machine is not
oversubscribed; ``jobs=1``: one step at a time in this process. ``scheduler="tcp://..."``
sends the steps to a Dask cluster whose workers see the same paths (:mod:`xprobe.study.cluster`).
Each step writes ``OUT/.study/steps/NAME.started`` (its fingerprint) before it runs and
``NAME.json`` (fingerprint, settings, inputs, wall and CPU seconds) atomically after it
finished: a killed run leaves no marker for the step it was in, so the next run redoes
(resumes) it; a step whose settings or inputs changed since it last started first has its old
outputs removed.
"""

from __future__ import annotations

import logging
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.files import inside, write_json
from xprobe.study.actions import run_action
from xprobe.study.estimate import Estimate
from xprobe.study.schema import cpu_count
from xprobe.study.state import (
    Plan,
    Step,
    StepStatus,
    marker_dir,
    outside_outputs,
    read_marker,
)

__all__ = ["execute", "local_jobs", "run_plan"]

SHARED = ("--workers", "--threads")  # runtime flags capped at a concurrent step's share of cores

log = logging.getLogger(__name__)


def _clean(status: StepStatus, out: Path) -> None:
    """Remove a step's old outputs unless they come from an interrupted run of the same step.

    Only what this step wrote before is removed: an output its marker names (a marker of an
    older version names none: then the step's outputs), that resolves (links and ``..``
    followed) strictly inside the study's folder; never the folder itself, nothing else."""
    name = status.step.name
    started = read_marker(out, name, "started")
    if started is not None and started.get("fingerprint") == status.fingerprint:
        return  # same work, interrupted: keep it so the stage resumes
    marks = [m for m in (started, read_marker(out, name)) if m is not None]
    if not marks:
        return  # the step never ran here: whatever is at its outputs, it did not write
    written = {o for m in marks for o in m.get("outputs", status.step.outputs)}
    root = out.resolve()
    for o in status.step.outputs:
        if o not in written:
            continue
        try:
            p = inside(root, o)
        except XProbeError:
            continue  # never remove anything outside the study's folder
        if p == root or root / ".study" in (p, *p.parents):
            continue
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()


def _check_outputs(step: Step, out: Path) -> None:
    """Every output of ``step`` (and its markers) lies inside ``out``; a download's, inside the
    download cache."""
    for o, root in outside_outputs(step, out):
        raise XProbeError(f"study step {step.name!r} would write {o}, outside {root}")
    inside(marker_dir(out), marker_dir(out) / f"{step.name}.started")


def execute(status: StepStatus, out: str, threads: int, *_deps: Any) -> tuple[str, float]:
    """Run one step (a Dask task): clean, mark started, run, mark done. Returns (name, seconds)."""
    out_p = Path(out)
    step = status.step
    done = read_marker(out_p, step.name)
    finished = done is not None and done.get("fingerprint") == status.fingerprint
    if finished and all(Path(o).exists() for o in step.outputs):  # (run again for its result:
        return step.name, float(done.get("seconds", 0.0))  # the Dask worker holding it was lost)
    marks = marker_dir(out_p)
    _check_outputs(step, out_p)
    marks.mkdir(parents=True, exist_ok=True)
    _clean(status, out_p)
    outputs = list(step.outputs)
    write_json(
        marks / f"{step.name}.started", {"fingerprint": status.fingerprint, "outputs": outputs}
    )
    _torch_threads(threads)
    t0, cpu0 = time.perf_counter(), cpu_seconds()
    run_action(step)
    seconds = round(time.perf_counter() - t0, 1)
    cpu = round(cpu_seconds() - cpu0, 1)
    missing = [o for o in step.outputs if not Path(o).exists()]
    if missing:
        raise XProbeError(f"study step {step.name!r} finished without writing {missing[0]}")
    write_json(
        marks / f"{step.name}.json",
        {"fingerprint": status.fingerprint, "settings": status.settings,
         "inputs": status.inputs, "seconds": seconds, "cpu_seconds": cpu, "outputs": outputs},
    )  # fmt: skip
    return step.name, seconds


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its child processes that ended (UDPipe
    workers, fastText's threads) so far."""
    import resource

    own, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _torch_threads(threads: int) -> None:
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency
        return
    torch.set_num_threads(max(1, threads))


class Progress:
    """Steps done of total, the running stage, its wall and CPU seconds, elapsed and estimated
    time left: one log line per step, and a tqdm bar when stderr is a terminal."""

    def __init__(self, plan: Plan) -> None:
        self.out = plan.out
        self.total, self.todo = len(plan.steps), len(plan.todo)
        self.done = self.total - self.todo
        self.finished = 0
        self.start = time.perf_counter()
        self.estimate = Estimate(plan.todo)
        self.bar = None
        if sys.stderr.isatty() and self.todo:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, initial=self.done, desc="study", unit="step")

    def started(self, name: str) -> None:
        self.estimate.started(name, time.perf_counter() - self.start)
        log.info("[%d/%d] %s ...", self.done + 1, self.total, name)
        if self.bar is not None:
            self.bar.set_postfix_str(name)

    def ended(self, name: str, seconds: float) -> None:
        self.done += 1
        self.finished += 1
        elapsed = time.perf_counter() - self.start
        cpu = (read_marker(self.out, name) or {}).get("cpu_seconds")  # written by execute
        self.estimate.finished(name, seconds, cpu)
        left = self.estimate.left(elapsed)
        log.info(
            "[%d/%d] %s: %.1fs%s; elapsed %s, about %s left", self.done, self.total, name,
            seconds, "" if cpu is None else f", {cpu:.1f}s CPU", _hms(elapsed), _hms(left),
        )  # fmt: skip
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _hms(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 3600}h{s // 60 % 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def local_jobs(jobs: int) -> int:
    """How many steps run at once locally: ``jobs``, or one per core when ``jobs`` is 0."""
    return jobs if jobs > 0 else cpu_count()


def share(status: StepStatus, jobs: int, cores: int) -> StepStatus:
    """``status`` with its step's ``--workers``/``--threads`` capped at ``cores // jobs`` (at
    least 1): ``jobs`` steps at once then use the cores once, not ``jobs`` times. These flags
    change how a step runs, never what it writes (they are not part of its fingerprint)."""
    cap = max(1, cores // max(1, jobs))
    runtime = list(status.step.runtime)
    for i, flag in enumerate(runtime[:-1]):
        if flag in SHARED and runtime[i + 1].isdigit():
            runtime[i + 1] = str(min(int(runtime[i + 1]), cap))
    return replace(status, step=replace(status.step, runtime=tuple(runtime)))


def _graph(plan: Plan, threads: int) -> tuple[dict[str, Any], list[str]]:
    todo = {s.step.name for s in plan.todo}
    graph: dict[str, Any] = {}
    for s in plan.todo:
        deps = [d for d in s.deps if d in todo]
        graph[s.step.name] = (execute, s, str(plan.out), threads, *deps)
    return graph, [s.step.name for s in plan.todo]


def run_plan(
    plan: Plan, jobs: int = 1, scheduler: str | None = None, threads: int = 1
) -> dict[str, float]:
    """Run the steps of ``plan`` that are to do; returns seconds per step run and ``total``.
    ``jobs``: steps at once on this machine (0: one per core; ignored with ``scheduler``)."""
    jobs = 1 if scheduler else min(local_jobs(jobs), max(1, len(plan.todo)))
    graph, keys = _graph(plan, threads)
    progress = Progress(plan)
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    try:
        if keys and scheduler:
            _distributed(plan, threads, scheduler, progress, timings)
        elif keys and jobs > 1:
            _side_by_side(plan, threads, jobs, progress, timings)
        elif keys:
            _local(graph, keys, progress, timings)
    finally:
        progress.close()
    timings["total"] = round(time.perf_counter() - t0, 1)
    return timings


def _local(graph: dict, keys: list[str], progress: Progress, timings: dict) -> None:
    import dask
    from dask.callbacks import Callback

    def pre(key: str, *_: Any) -> None:
        progress.started(key)

    def post(key: str, result: tuple[str, float], *_: Any) -> None:
        timings[result[0]] = result[1]
        progress.ended(*result)

    with Callback(pretask=pre, posttask=post):
        dask.get(graph, keys)


def _side_by_side(plan: Plan, threads: int, jobs: int, progress: Progress, timings: dict) -> None:
    from xprobe.study.pool import run_side_by_side

    cores = cpu_count()
    todo = [share(s, jobs, cores) for s in plan.todo]
    alone = ({s.step.name: share(s, 1, cores) for s in plan.todo},
             (str(plan.out), max(1, min(threads, cores))))  # fmt: skip
    threads = max(1, min(threads, cores // jobs))

    def ended(name: str, seconds: float) -> None:
        timings[name] = seconds
        progress.ended(name, seconds)

    args = (str(plan.out), threads)
    run_side_by_side(todo, execute, args, jobs, progress.started, ended, alone)


def _distributed(plan: Plan, threads: int, address: str, progress: Progress, timings: dict):
    from xprobe.study.cluster import run_on_cluster

    def ended(name: str, seconds: float) -> None:
        timings[name] = seconds
        progress.ended(name, seconds)

    run_on_cluster(plan, address, execute, threads, ended)

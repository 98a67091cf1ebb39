"""Independent steps side by side in local worker processes (``xprobe run --jobs N``).

The steps that are ready (every step they read from is finished) start as workers free up, the
one heading the longest remaining chain first: the chain's cost is summed from rough weights per
stage (extract and corpus parse, NLI training is long, vectors are quick), so the English and
German branches of a study both start early instead of one after the other; a step that starts
with nothing else running or ready gets every core. A failed step lets
the running ones finish (their outputs are kept for the next run), starts nothing new, and its
error is raised. Workers are spawned processes that log as the parent does and exit when it
dies (a killed run leaves no step running on); Ctrl-C (SIGINT) stops them at once too.
"""

from __future__ import annotations

import logging
import os
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from xprobe.study.state import StepStatus

__all__ = ["WEIGHTS", "priorities", "run_side_by_side"]

# rough relative cost of a step of each stage (the demo's timings), to order ready steps
WEIGHTS = {"sample": 2.0, "download": 1.0, "udpipe": 3.0, "corpus": 6.0, "extract": 6.0,
           "vectors": 1.0, "map-vectors": 0.5, "train-nli": 4.0, "map": 2.0, "probe": 2.0,
           "pairs": 0.5, "score": 1.0, "report": 0.5}  # fmt: skip


def priorities(todo: list[StepStatus]) -> dict[str, float]:
    """Per step, the weighted length of the longest chain of steps from it to the end (``todo``
    is in plan order: a step comes after every step it reads from)."""
    names = {s.step.name for s in todo}
    children: dict[str, list[str]] = defaultdict(list)
    for s in todo:
        for d in s.deps:
            if d in names:
                children[d].append(s.step.name)
    prio: dict[str, float] = {}
    for s in reversed(todo):
        rest = max((prio[c] for c in children[s.step.name]), default=0.0)
        prio[s.step.name] = WEIGHTS.get(s.step.stage, 1.0) + rest
    return prio


def run_side_by_side(
    todo: list[StepStatus],
    run: Callable[..., tuple[str, float]],
    args: tuple[Any, ...],
    jobs: int,
    started: Callable[[str], None],
    ended: Callable[[str, float], None],
    alone: tuple[dict[str, StepStatus], tuple[Any, ...]] | None = None,
) -> None:
    """Run ``run(status, *args)`` for every status of ``todo`` in up to ``jobs`` processes, each
    once the steps it reads from have ended; ``started``/``ended`` report progress.

    ``alone``: the status (by name) and arguments a step gets instead when it starts with no
    other step running or ready, e.g. every core: it then runs alone to its end, since a step
    becomes ready only when a running one ends."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    by_name = {s.step.name: s for s in todo}
    waiting = {n: {d for d in s.deps if d in by_name} for n, s in by_name.items()}
    prio = priorities(todo)
    running: dict[Any, str] = {}
    error: BaseException | None = None
    level = logging.getLogger().level
    context = multiprocessing.get_context("spawn")  # no fork of a process holding torch threads
    pool = ProcessPoolExecutor(jobs, context, _worker_init, (level, os.getpid()))
    try:
        while running or (waiting and error is None):
            ready = sorted((n for n, deps in waiting.items() if not deps), key=lambda n: -prio[n])
            for name in ready[: max(0, jobs - len(running))] if error is None else []:
                del waiting[name]
                started(name)
                status, step_args = by_name[name], args
                if alone is not None and not running and len(ready) == 1:
                    status, step_args = alone[0][name], alone[1]
                running[pool.submit(run, status, *step_args)] = name
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                name = running.pop(future)
                try:
                    _, seconds = future.result()
                except BaseException as e:  # raised below, once the running steps ended
                    error = error or e
                    continue
                ended(name, seconds)
                for deps in waiting.values():
                    deps.discard(name)
    except BaseException:  # Ctrl-C (or a failure here): stop now, as SIGTERM does, not after
        # the running steps end
        _stop(pool)
        raise
    pool.shutdown(wait=True)
    if error is not None:
        raise error


def _stop(pool: Any) -> None:
    """Stop the pool's workers now (their steps stay unmarked: the next run redoes them)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for w in workers:
        w.terminate()
    for w in workers:
        w.join(5)


def _worker_init(level: int, parent: int) -> None:
    """In each worker: log as the parent does, leave Ctrl-C to the parent (which stops the
    workers), and exit when the parent is gone (a killed run must not leave its steps running
    on, writing into its output folder)."""
    import signal

    from xprobe.cli import setup_logging
    from xprobe.corpus.parallel import exit_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent)
    setup_logging(verbose=int(0 < level <= logging.DEBUG), quiet=level >= logging.WARNING)

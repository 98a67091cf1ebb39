"""A study's steps on a Dask cluster (``xprobe run --scheduler tcp://host:8786``).

Before any step runs, every worker is asked (``Client.run``) for its version of xprobe and
whether it can read the study's folder and every existing input of the steps to do, at the same
paths as this machine: a worker that cannot, or runs another version, stops the run with one
line naming it. Each step is then one task (its key is the step's name) that depends on the
tasks of the steps it reads from. A step that wants a GPU (``train-nli``, ``map``, and ``probe``
of a neural encoder, with ``--device cuda``) asks for the ``GPU`` resource, so a cluster whose
GPU workers were started with ``--resources GPU=1`` sends those steps there and every other
step anywhere. A step that parses hands its shards to the same cluster
(:class:`xprobe.corpus.parallel.ClusterExecutor`): the round loop runs in the step, the shards on
the workers.

A worker that dies in the middle of a step: the scheduler runs the step again on another worker,
which resumes it (the step's ``.started`` marker has the same fingerprint, so its parsed shards
are kept). A step whose workers keep dying (Dask's ``allowed-failures``), or a cluster left with
no worker for :data:`NO_WORKER_SECONDS`, fails with the step's name; rerunning resumes.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.study.state import Plan, Step, marker_dir

__all__ = ["check_workers", "connect", "resources", "run_on_cluster", "wants_gpu", "worker_check"]

log = logging.getLogger(__name__)

CONNECT_SECONDS = 10  # how long a scheduler address may stay silent
NO_WORKER_SECONDS = 120  # how long the cluster may have no worker while steps are to do
PROBE_FILE = "cluster-check"
_ONE_STEP = threading.Lock()  # one step at a time in a worker process (see run_alone)


def connect(address: str, timeout: float | None = None) -> Any:
    """A client of the scheduler at ``address``; one line when it does not answer in time."""
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - a dependency
        raise XProbeError(
            "--scheduler needs Dask's distributed: pip install 'xprobe[cluster]'"
        ) from None
    seconds = CONNECT_SECONDS if timeout is None else timeout
    try:
        return Client(address, timeout=seconds)
    except (OSError, ValueError) as e:
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise XProbeError(
            f"--scheduler {address}: no Dask scheduler answered within {seconds:g}s ({why}); "
            "is `dask scheduler` running there, and is the address right?"
        ) from None


def wants_gpu(step: Step) -> bool:
    """Whether ``step`` runs on a GPU: the study file's reader decided it (a train-nli, map or
    neural-encoder probe step of a study whose ``device`` is ``cuda``)."""
    return step.gpu


def resources(step: Step) -> dict[str, float] | None:
    """The Dask resources a step's task asks for: one ``GPU`` for a GPU step, else none."""
    return {"GPU": 1} if wants_gpu(step) else None


def worker_check(paths: list[str], token_file: str) -> dict[str, Any]:
    """Run on each worker: its xprobe version, the first of ``paths`` it cannot read (None when
    it reads them all), and what it reads in ``token_file``."""
    import xprobe

    missing = None
    for p in paths:
        if not os.access(p, os.R_OK):
            missing = p
            break
    try:
        token = Path(token_file).read_text(encoding="utf-8")
    except OSError:
        token = None
    return {"version": xprobe.__version__, "missing": missing, "token": token}


def _paths(plan: Plan) -> list[str]:
    """The study's folder and every input of a step to do that exists here, sorted."""
    found = {str(plan.out.resolve())}
    for s in plan.todo:
        found.update(str(Path(p).resolve()) for p in s.inputs if Path(p).exists())
    return sorted(found)


def check_workers(client: Any, plan: Plan) -> None:
    """Every worker runs this xprobe's version and reads the study's folder (a file written
    here now) and existing inputs at the same paths; else one line naming the worker."""
    import xprobe

    workers = client.scheduler_info().get("workers", {})
    if not workers:
        raise XProbeError(f"the Dask cluster at {client.scheduler.address} has no worker")
    marks = marker_dir(plan.out)
    marks.mkdir(parents=True, exist_ok=True)
    token_file, token = marks.parent / PROBE_FILE, secrets.token_hex(8)
    token_file.write_text(token, encoding="utf-8")
    answers = client.run(worker_check, _paths(plan), str(token_file))
    for address, a in sorted(answers.items()):
        if a["version"] != xprobe.__version__:
            raise XProbeError(
                f"Dask worker {address} runs xprobe {a['version']}, this machine "
                f"{xprobe.__version__}: install the same version on every worker"
            )
        if a["missing"] is not None:
            raise XProbeError(
                f"Dask worker {address} cannot read {a['missing']}: the workers must see the "
                "study's inputs and output folder at the same paths (a shared file system)"
            )
        if a["token"] != token:
            raise XProbeError(
                f"Dask worker {address} cannot read {token_file} as written here: the workers "
                f"must see the output folder {plan.out} at the same path (a shared file system)"
            )
    _check_gpu(plan, workers)


def _check_gpu(plan: Plan, workers: dict[str, Any]) -> None:
    gpu = [s.step.name for s in plan.todo if wants_gpu(s.step)]
    if gpu and not any(w.get("resources", {}).get("GPU") for w in workers.values()):
        raise XProbeError(
            f'study step {gpu[0]!r} wants a GPU (device = "cuda") but no worker of the cluster '
            "offers one: start GPU workers with `dask worker ... --resources GPU=1`"
        )


def run_alone(run: Callable[..., Any], *args: Any) -> Any:
    """``run(*args)`` once no other step runs in this worker's process. A step that parses
    secedes from the worker's threads while its shards run, so the worker may take another
    step meanwhile; two steps in one process as threads would share what is not made for it
    (wikiextractor's and logging's module state, torch's thread count). The later one waits,
    seceded too, so the worker's thread stays free for shards."""
    if not _ONE_STEP.acquire(blocking=False):
        from distributed import rejoin, secede

        secede()
        _ONE_STEP.acquire()
        rejoin()
    try:
        return run(*args)
    finally:
        _ONE_STEP.release()


def submit_steps(client: Any, plan: Plan, run: Callable[..., Any], threads: int) -> dict[str, Any]:
    """One task per step to do, keyed by the step's name, after the tasks it reads from; a GPU
    step asks for the ``GPU`` resource."""
    futures: dict[str, Any] = {}
    for s in plan.todo:
        deps = [futures[d] for d in s.deps if d in futures]
        futures[s.step.name] = client.submit(
            run_alone, run, s, str(plan.out), threads, *deps,
            key=s.step.name, pure=False, resources=resources(s.step),
        )  # fmt: skip
    return futures


def run_on_cluster(
    plan: Plan,
    address: str,
    run: Callable[..., tuple[str, float]],
    threads: int,
    ended: Callable[[str, float], None],
) -> None:
    """Check the workers, run every step to do of ``plan`` on the cluster at ``address``
    (``run(status, out, threads, *deps)``), call ``ended(name, seconds)`` as each finishes."""
    client = connect(address)
    try:
        check_workers(client, plan)
        futures = submit_steps(client, plan, run, threads)
        _wait(client, futures, ended)
    finally:
        client.close()


def _wait(client: Any, futures: dict[str, Any], ended: Callable[[str, float], None]) -> None:
    from distributed import wait

    pending = dict(futures)
    alone_since: float | None = None
    while pending:
        try:
            done, _ = wait(list(pending.values()), timeout=5, return_when="FIRST_COMPLETED")
        except TimeoutError:
            done = set()
        for name in [n for n, f in pending.items() if f in done]:
            ended(*_result(name, pending.pop(name)))
        if done:
            continue
        if client.scheduler_info().get("workers"):
            alone_since = None
            continue
        alone_since = alone_since or time.monotonic()
        if time.monotonic() - alone_since >= NO_WORKER_SECONDS:
            raise XProbeError(
                f"study step {sorted(pending)[0]!r}: the Dask cluster has had no worker for "
                f"{NO_WORKER_SECONDS}s; start workers and rerun the same command (it resumes)"
            )


def _result(name: str, future: Any) -> tuple[str, float]:
    from distributed import KilledWorker

    try:
        return future.result()
    except KilledWorker as e:
        worker = getattr(e.last_worker, "address", e.last_worker)
        raise XProbeError(
            f"study step {name!r}: its Dask worker {worker} was lost "
            f"(workers that died running it: {e.allowed_failures + 1}); rerun the same command to "
            "resume: finished steps and parsed shards are kept"
        ) from None

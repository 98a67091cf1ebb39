"""Where shards are parsed: in-process, in N worker processes, or on a Dask cluster.

Every executor takes :class:`ParseJob` objects and returns futures of :class:`ParseResult`
(``.result()`` raises what the worker raised). Each worker process loads the UDPipe model once
(:func:`xprobe.corpus.udpipe.get_parser` caches it per process). The caller keeps results in
shard order, so the output never depends on which worker finished first.

* ``workers=0``: parse in the calling process (no parallelism; simplest to debug).
* ``workers=N``: ``N`` processes (``spawn``), while the calling process reads, segments,
  tokenises and filters the next shards. Workers ignore SIGINT (the calling process stops them:
  ``close(abort=True)`` terminates them) and exit by themselves within a second when the calling
  process dies, even by SIGKILL (a thread in each polls ``os.getppid()``).
* ``scheduler="local"``: a Dask ``LocalCluster`` with ``N`` single-threaded worker processes;
  ``scheduler="tcp://host:8786"``: an existing Dask cluster (the model path must exist on every
  worker machine; shards come back to the caller, which writes them).
* inside a Dask worker (a study step that ``xprobe run --scheduler`` sent there), whatever was
  asked: the shards go to the worker's own cluster (:class:`ClusterExecutor`). A Dask worker is a
  daemonic process and may not start a process pool; the step's thread leaves the worker's
  thread count while it waits (``secede``), so a single-threaded worker parses shards too.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from xprobe.errors import XProbeError

__all__ = ["Executor", "ParseJob", "ParseResult", "exit_with_parent", "make_executor", "parse_job"]

_WATCH_SECONDS = 0.5


@dataclass(frozen=True)
class ParseJob:
    """One shard to parse: token lists in order, numbered from ``first_id``."""

    index: int
    first_id: int
    sentences: Sequence[Sequence[str]]
    model_path: str
    mode: str
    # tag first and parse only what this passes (xprobe.corpus.tagonly); None: parse all
    select: Any = None


@dataclass(frozen=True)
class ParseResult:
    index: int
    conllu: str
    sentences: int
    words: int
    seconds: float
    # with ``select``: parsed_for (task files), tagged, parsed, passed (per task)
    detail: dict[str, Any] | None = None


def parse_job(job: ParseJob) -> ParseResult:
    """Parse one shard (runs in a worker; the model is loaded once per process)."""
    from xprobe.corpus.udpipe import get_parser

    t0 = time.perf_counter()
    parser = get_parser(job.model_path, job.mode)
    if job.select is not None:
        from xprobe.corpus.tagonly import tag_then_parse

        tasks = list(job.select.tasks)
        got = tag_then_parse(parser, job.sentences, job.first_id, job.select, tasks)
        detail = {"parsed_for": tasks, "tagged": got.tagged, "parsed": got.parsed}
        detail["passed"] = got.passed
        seconds = time.perf_counter() - t0
        return ParseResult(job.index, got.conllu, len(job.sentences), got.words, seconds, detail)
    conllu, words = parser.parse(job.sentences, job.first_id)
    return ParseResult(job.index, conllu, len(job.sentences), words, time.perf_counter() - t0)


class Executor(Protocol):
    workers: int
    description: str

    def submit(self, job: ParseJob) -> Any: ...

    def close(self, abort: bool = False) -> None: ...


class SerialExecutor:
    """Parse in the calling process."""

    workers = 1
    description = "in-process"

    def submit(self, job: ParseJob) -> cf.Future[ParseResult]:
        fut: cf.Future[ParseResult] = cf.Future()
        try:
            fut.set_result(parse_job(job))
        except BaseException as e:  # delivered through .result(), like the other executors
            fut.set_exception(e)
        return fut

    def close(self, abort: bool = False) -> None:
        pass


def _worker_init(parent: int) -> None:
    """In each worker: leave Ctrl-C to the parent (it stops the workers), and exit by itself
    when the parent dies (:func:`exit_with_parent`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent)


def exit_with_parent(parent: int) -> None:
    """In a worker process: exit (status 70) as soon as the process ``parent`` is gone, however
    it died (SIGKILL runs no handler of the parent's): a daemon thread polls ``os.getppid()``."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_WATCH_SECONDS)
        os._exit(70)

    threading.Thread(target=watch, name="xprobe-parent-watch", daemon=True).start()


class ProcessExecutor:
    """``workers`` spawned processes; each exits by itself if this process dies."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.description = f"{workers} processes"
        ctx = multiprocessing.get_context("spawn")
        self._pool = cf.ProcessPoolExecutor(
            max_workers=workers,
            mp_context=ctx,
            initializer=_worker_init,
            initargs=(os.getpid(),),
        )

    def submit(self, job: ParseJob) -> cf.Future[ParseResult]:
        return self._pool.submit(parse_job, job)

    def close(self, abort: bool = False) -> None:
        """Wait for the workers to finish; ``abort``: terminate them first (a stopped run)."""
        if abort:
            for proc in list(getattr(self._pool, "_processes", {}).values()):
                proc.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """A Dask cluster: ``"local"`` starts a LocalCluster, anything else is a scheduler address."""

    def __init__(self, scheduler: str, workers: int, processes: bool = True) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise XProbeError(
                "--scheduler needs Dask's distributed: pip install 'xprobe[cluster]'"
            ) from None
        self._cluster = None
        if scheduler == "local":
            self._cluster = LocalCluster(
                n_workers=max(1, workers),
                threads_per_worker=1,
                processes=processes,
                dashboard_address=None,
            )
            self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(scheduler, timeout=30)
            except OSError as e:
                raise XProbeError(f"cannot reach Dask scheduler {scheduler}: {e}") from None
        n = len(self._client.scheduler_info().get("workers", {}))
        self.workers = max(1, n)
        self.description = f"dask {scheduler} ({n} workers)"

    def submit(self, job: ParseJob) -> Any:
        return self._client.submit(parse_job, job, pure=False)

    def close(self, abort: bool = False) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def in_dask_worker() -> bool:
    """Whether this code runs in a task on a Dask worker (never in a process that has not
    imported ``distributed``: a Dask worker has; importing it to ask costs about 0.6 s)."""
    if "distributed" not in sys.modules:
        return False
    try:
        from distributed import get_worker
    except ImportError:  # pragma: no cover - a dependency
        return False
    try:
        get_worker()
    except ValueError:
        return False
    return True


class ClusterExecutor:
    """The cluster this Dask worker belongs to: every shard is a task on it. The calling task
    secedes from the worker's threads while it waits (and rejoins at :meth:`close`), so it holds
    no thread a shard could use; results come back here in shard order, as with a process pool."""

    def __init__(self) -> None:
        from distributed import get_client, secede

        self._client = get_client()
        secede()
        threads = self._client.nthreads()
        self.workers = max(1, sum(threads.values()))
        self.description = f"dask cluster ({len(threads)} workers)"

    def submit(self, job: ParseJob) -> Any:
        return self._client.submit(parse_job, job, pure=False)

    def close(self, abort: bool = False) -> None:
        from distributed import rejoin

        rejoin()


def make_executor(workers: int, scheduler: str | None = None) -> Executor:
    """The executor for ``--workers``/``--scheduler`` (see the module doc); in a task on a Dask
    worker, the worker's cluster unless ``workers`` is 0 (in this process)."""
    if workers > 0 and in_dask_worker():
        return ClusterExecutor()
    if scheduler:
        return DaskExecutor(scheduler, workers)
    if workers <= 0:
        return SerialExecutor()
    return ProcessExecutor(workers)

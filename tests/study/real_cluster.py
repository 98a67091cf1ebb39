"""A real Dask cluster on localhost for the tests: `dask scheduler` and `dask worker` processes
(each worker under its nanny, single-threaded, as a user starts them), sharing only the file
system with the test. The scheduler picks a free port and writes its address to a scheduler
file; every process runs in its own session, so stopping (or killing) one takes its children
with it, and :meth:`Cluster.stop` leaves no process behind, on failure too."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


class Cluster:
    """``with Cluster(tmp, workers=2) as c:`` -> ``c.address``; ``c.kill(name)`` kills one worker
    (nanny and worker process) with SIGKILL."""

    def __init__(
        self, folder: Path, workers: int = 2, env: dict[str, str] | None = None,
        worker_args: dict[int, list[str]] | None = None,
        worker_env: dict[int, dict[str, str]] | None = None,
    ) -> None:  # fmt: skip
        """``worker_args``/``worker_env``: more arguments and environment for worker k (1..n),
        e.g. ``{1: ["--resources", "GPU=1"]}``, ``{2: {"CUDA_VISIBLE_DEVICES": ""}}``."""
        self.folder = folder
        self.n = workers
        self.env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
        self.worker_args = worker_args or {}
        self.worker_env = worker_env or {}
        self.procs: dict[str, subprocess.Popen] = {}
        self.address = ""

    def __enter__(self) -> Cluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _spawn(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> None:
        log = open(self.folder / f"{name}.log", "wb")
        self.procs[name] = subprocess.Popen(
            argv, stdout=log, stderr=subprocess.STDOUT, env={**self.env, **(env or {})},
            start_new_session=True, cwd=self.folder,
        )  # fmt: skip
        log.close()

    def start(self, timeout: float = 90.0) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        sched = self.folder / "scheduler.json"
        dask = str(BIN / "dask")
        self._spawn("scheduler", [dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(sched)])  # fmt: skip
        deadline = time.monotonic() + timeout
        while not sched.exists():
            self._alive("scheduler")
            if time.monotonic() > deadline:
                raise TimeoutError("dask scheduler did not start")
            time.sleep(0.2)
        self.address = json.loads(sched.read_text())["address"]
        for k in range(1, self.n + 1):
            scratch = str(self.folder / f"w{k}")
            self._spawn(f"w{k}", [dask, "worker", "--scheduler-file", str(sched), "--nthreads",
                                  "1", "--name", f"w{k}", "--no-dashboard",
                                  "--local-directory", scratch, *self.worker_args.get(k, [])],
                        self.worker_env.get(k))  # fmt: skip
        self.wait_for_workers(self.n, deadline - time.monotonic())

    def _alive(self, name: str) -> None:
        if self.procs[name].poll() is not None:
            log = (self.folder / f"{name}.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"{name} exited {self.procs[name].returncode}:\n{log}")

    def workers(self) -> dict[str, str]:
        """Worker name -> address, as the scheduler sees them now."""
        from distributed import Client

        with Client(self.address, timeout=20) as c:
            info = c.scheduler_info()["workers"]
        return {w["name"]: a for a, w in info.items()}

    def wait_for_workers(self, n: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while len(self.workers()) < n:
            for k in range(1, self.n + 1):
                self._alive(f"w{k}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"fewer than {n} dask workers after {timeout:.0f}s")
            time.sleep(0.5)

    def processing(self) -> dict[str, list[str]]:
        """Worker name -> keys of the tasks it runs now."""
        from distributed import Client

        with Client(self.address, timeout=20) as c:
            names = {a: w["name"] for a, w in c.scheduler_info()["workers"].items()}
            return {names[a]: [str(k) for k in keys] for a, keys in c.processing().items()}

    def record_tasks(self) -> float:
        """Start the scheduler's task stream (it records from the first call); the time now."""
        from distributed import Client

        with Client(self.address, timeout=20) as c:
            c.get_task_stream()
        return time.time()

    def tasks_run(self, since: float) -> dict[str, set[str]]:
        """Worker name -> the keys of the tasks it finished since ``since`` (record_tasks)."""
        from distributed import Client

        with Client(self.address, timeout=20) as c:
            names = {a: w["name"] for a, w in c.scheduler_info()["workers"].items()}
            ran: dict[str, set[str]] = {}
            for t in c.get_task_stream(start=since):
                ran.setdefault(names.get(t["worker"], t["worker"]), set()).add(str(t["key"]))
        return ran

    def kill(self, name: str) -> None:
        """SIGKILL the worker ``name``: its nanny and worker process, no goodbye."""
        _signal_group(self.procs[name], signal.SIGKILL)
        self.procs[name].wait(10)

    def stop(self) -> None:
        """Stop every process (workers first), SIGKILL what is left after 10 s; none remains."""
        for name in sorted(self.procs, key=lambda n: n == "scheduler"):
            _signal_group(self.procs[name], signal.SIGTERM)
        deadline = time.monotonic() + 10
        for p in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(max(0.1, deadline - time.monotonic()))
        for p in self.procs.values():
            _signal_group(p, signal.SIGKILL)  # the group: a worker process its nanny left
            if p.poll() is None:
                p.wait(10)
        deadline = time.monotonic() + 10
        while self.leftovers() and time.monotonic() < deadline:
            time.sleep(0.1)  # a process killed a moment ago may still be exiting

    def leftovers(self) -> list[int]:
        """Processes of this cluster's sessions still running (none after :meth:`stop`)."""
        groups = {p.pid for p in self.procs.values()}
        alive = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # it ended while we looked
            if fields[0] != "Z" and int(fields[2]) in groups:  # state, ..., process group
                alive.append(int(stat.parent.name))
        return alive


def _signal_group(p: subprocess.Popen, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(p.pid, sig)


def die_or_write(out: str, text: str, flag: str) -> None:
    """A step action: SIGKILL the process it runs in (its Dask worker) while the file ``flag``
    exists, else write ``text`` to ``out``."""
    if Path(flag).exists():
        os.kill(os.getpid(), signal.SIGKILL)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(text)

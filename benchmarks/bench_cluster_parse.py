"""A study's parse step on a localhost Dask cluster of two single-threaded workers against one
local process.

The text is the rehearsal's (X-Probe's English probing sentences, wrapped into a MediaWiki dump
as ``bench_corpus.py`` and ``benchmarks/rehearsal/prepare.py`` do); the parse is what a study's
extract step runs for each round (:func:`xprobe.corpus.pipeline.run_corpus`):

1. **local**: in one process (``workers=0``: reading, tokenising and parsing one after another);
2. **cluster**: `dask scheduler` and two `dask worker --nthreads 1` processes on localhost; the
   same call runs as a task on one worker, as ``xprobe run --scheduler`` runs a step, and hands
   its shards to the cluster (:class:`xprobe.corpus.parallel.ClusterExecutor`).

Both write the same shards (checked, byte for byte). Reported: wall seconds, the speed-up, the
workers' time not spent parsing per shard task (``(wall x workers - parse seconds) / shards``:
scheduling, transfers, and waiting for the step's reader), and the round trip of an empty task.
The machine's load average is recorded before and after.

    .venv/bin/python benchmarks/bench_cluster_parse.py --sentences 8000 --shard-size 1000 \\
        --json benchmarks/bench_cluster_parse.json
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_corpus import SHARED, real_sentences, write_dump

from xprobe.corpus.filters import FilterConfig
from xprobe.corpus.pipeline import CorpusConfig, run_corpus

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def config(a: argparse.Namespace, dump: Path, out: Path, workers: int) -> CorpusConfig:
    return CorpusConfig(
        lang="en", out=out, inputs=(dump,), model=a.model, workers=workers,
        shard_size=a.shard_size, filters=FilterConfig(min_tokens=5, max_tokens=28),
        progress=False,
    )  # fmt: skip


def parse_step(cfg: CorpusConfig) -> dict:
    """The step, on a worker: its shards go to the cluster."""
    man = run_corpus(cfg)
    return {"executor": man["executor"], **man["timing"]}


def start_cluster(folder: Path, workers: int) -> tuple[str, list[subprocess.Popen]]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    sched = folder / "scheduler.json"

    def spawn(argv: list[str], name: str) -> subprocess.Popen:
        with open(folder / f"{name}.log", "wb") as log:
            return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env,
                                    start_new_session=True)  # fmt: skip

    procs = [spawn([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                    "--no-dashboard", "--scheduler-file", str(sched)], "scheduler")]  # fmt: skip
    while not sched.exists():
        time.sleep(0.2)
    for k in range(workers):
        procs.append(spawn([str(BIN / "dask"), "worker", "--scheduler-file", str(sched),
                            "--nthreads", "1", "--no-dashboard", "--local-directory",
                            str(folder / f"w{k}")], f"w{k}"))  # fmt: skip
    return json.loads(sched.read_text())["address"], procs


def stop_cluster(procs: list[subprocess.Popen]) -> None:
    for p in reversed(procs):
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
                p.wait(10)
                break
            except ProcessLookupError:
                break
            except subprocess.TimeoutExpired:
                continue


def shard_bytes(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("shard-*.conllu.gz"))}


def on_cluster(a: argparse.Namespace, dump: Path, tmp: Path) -> dict:
    from distributed import Client

    (tmp / "dask").mkdir()
    address, procs = start_cluster(tmp / "dask", a.workers)
    try:
        with Client(address, timeout=30) as client:
            while len(client.scheduler_info()["workers"]) < a.workers:
                time.sleep(0.5)
            t0 = time.perf_counter()
            for _ in range(a.empty_tasks):
                client.submit(abs, 1, pure=False).result()
            empty = (time.perf_counter() - t0) / a.empty_tasks
            cfg = config(a, dump, tmp / "cluster", workers=1)
            t0 = time.perf_counter()
            timing = client.submit(parse_step, cfg, pure=False).result()
            wall = time.perf_counter() - t0
    finally:
        stop_cluster(procs)
    return {"wall": wall, "empty_task_seconds": empty, **timing}


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sentences", type=int, default=8000, help="real sentences in the dump")
    ap.add_argument("--shard-size", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2, help="single-threaded dask workers")
    ap.add_argument("--empty-tasks", type=int, default=50, help="round trips timed")
    ap.add_argument("--model", type=Path, default=SHARED / "models" / "en-ewt.udpipe")
    ap.add_argument("--json", type=Path, help="write the figures here")
    a = ap.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench_cluster.") as name:
        tmp = Path(name)
        dump = tmp / "rehearsal-en.xml.bz2"
        write_dump(real_sentences(a.sentences), dump)
        t0 = time.perf_counter()
        local = run_corpus(config(a, dump, tmp / "local", workers=0))
        local_wall = time.perf_counter() - t0
        cluster = on_cluster(a, dump, tmp)
        same = shard_bytes(tmp / "local") == shard_bytes(tmp / "cluster")
        shards = len(shard_bytes(tmp / "local"))
    parse = cluster["parse_seconds_this_run"]
    result = {
        "sentences": local["counts"]["kept"],
        "shards": shards,
        "workers": a.workers,
        "local_seconds": round(local_wall, 2),
        "local_parse_seconds": local["timing"]["parse_seconds_this_run"],
        "cluster_seconds": round(cluster["wall"], 2),
        "cluster_parse_seconds": parse,
        "speedup": round(local_wall / cluster["wall"], 2),
        "idle_per_task_seconds": round((cluster["wall"] * a.workers - parse) / shards, 3),
        "empty_task_round_trip_ms": round(cluster["empty_task_seconds"] * 1000, 1),
        "same_shards": same,
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }
    for k, v in result.items():
        print(f"{k:28s} {v}")
    if a.json:
        a.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if not same:
        raise SystemExit("the cluster's shards differ from the local run's")


if __name__ == "__main__":
    main()

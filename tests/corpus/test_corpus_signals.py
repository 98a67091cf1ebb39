"""A real ``corpus --workers 2`` run stopped by SIGTERM, or its main process killed: no process of
the run is left, the stop says how to resume, and the resumed run is byte-identical."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO
from test_corpus import dump_text, shard_bytes, trained_model

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc"),
]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return trained_model(tmp_path_factory)


def children(pid: int) -> set[int]:
    """Live (not zombie) processes whose parent is ``pid``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            state, ppid = stat.rsplit(")", 1)[1].split()[:2]
            if int(ppid) == pid and state != "Z":
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_gone(pids: set[int], seconds: float) -> set[int]:
    """The pids still alive after ``seconds``; those are then killed (the test's own)."""
    deadline = time.time() + seconds
    while time.time() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    left = {p for p in pids if alive(p)}
    for p in left:
        os.kill(p, signal.SIGKILL)
    return left


def command(model: Path, src: Path, out: Path) -> list[str]:
    return [
        sys.executable, "-m", "xprobe", "corpus", "--lang", "en", "--model", str(model),
        "--shard-size", "3", "--workers", "2", "--no-progress", "--out", str(out), str(src),
    ]  # fmt: skip


def start_and_wait_for_workers(cmd: list[str], out: Path) -> tuple[subprocess.Popen[str], set[int]]:
    proc = subprocess.Popen(cmd, cwd=REPO, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    workers: set[int] = set()
    while time.time() < deadline and not (len(workers) >= 2 and (out / "manifest.json").exists()):
        workers |= children(proc.pid)  # the spawn start-up helper comes and goes; workers stay
        time.sleep(0.05)
    workers = {p for p in workers if alive(p)}
    assert proc.poll() is None and len(workers) >= 2, "the run ended before it could be stopped"
    return proc, workers


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path) -> tuple[Path, Path]:
    """The input dump and the shards of an uninterrupted run of it."""
    root = tmp_path_factory.mktemp("signals")
    src = root / "big.xml"
    src.write_text(dump_text(extra_pages=60), encoding="utf-8")
    full = root / "full"
    subprocess.run(command(tiny_model, src, full), check=True, cwd=REPO, capture_output=True)
    return src, full


def test_sigterm_stops_workers_and_resumes_identically(
    tiny_model: Path, source: tuple[Path, Path], tmp_path: Path
) -> None:
    src, full = source
    out = tmp_path / "out"
    cmd = command(tiny_model, src, out)
    proc, workers = start_and_wait_for_workers(cmd, out)
    proc.send_signal(signal.SIGTERM)  # to the main process only, as `kill PID` does
    assert wait_gone(workers, 15) == set()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    assert "resume with the same command" in err
    assert "Traceback" not in err
    subprocess.run(cmd, check=True, cwd=REPO, capture_output=True)
    assert shard_bytes(out) == shard_bytes(full)
    assert (out / "manifest.json").read_text().count('"complete": true') == 1


def test_workers_exit_when_the_main_process_is_killed(
    tiny_model: Path, source: tuple[Path, Path], tmp_path: Path
) -> None:
    src, full = source
    out = tmp_path / "out"
    cmd = command(tiny_model, src, out)
    proc, workers = start_and_wait_for_workers(cmd, out)
    proc.kill()  # SIGKILL: no handler runs; the workers must notice by themselves
    assert wait_gone(workers, 15) == set()
    proc.communicate(timeout=60)
    subprocess.run(cmd, check=True, cwd=REPO, capture_output=True)
    assert shard_bytes(out) == shard_bytes(full)

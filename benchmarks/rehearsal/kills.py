"""Kill a study at random moments, rerun it, and compare its results with an uninterrupted run.

    python benchmarks/rehearsal/kills.py --study studies/rehearsal.toml --reference DONE_DIR \
        --out KILLED_DIR --kills 3 --seed 1 [--set KEY=VALUE ...]

``DONE_DIR`` is the ``--out`` of an uninterrupted ``xprobe run`` of the same study with the same
``--set`` values. The run into ``KILLED_DIR`` is sent SIGKILL (its whole process group, parser
workers included) ``--kills`` times, each at a moment drawn uniformly from the first
``--window`` seconds of that attempt (seeded); then it is run to the end. The script compares
every probing file, every result record (timings aside: records have none) and the report's
tables, and prints what differs; exit 1 when anything does.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path


def attempt(argv: list[str], kill_after: float | None) -> int | None:
    """One run of ``argv`` in its own process group; SIGKILL after ``kill_after`` seconds."""
    proc = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.DEVNULL)
    try:
        proc.wait(timeout=kill_after)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return None
    return proc.returncode


def compared(a: Path, b: Path) -> list[str]:
    """Files under the outputs that matter whose bytes differ, or that one side lacks."""
    diffs = []
    for sub, pattern in (("probing", "*/*.txt"), ("results", "*.jsonl"), ("report", "*.csv")):
        left = {p.relative_to(a / sub) for p in (a / sub).glob(pattern)}
        right = {p.relative_to(b / sub) for p in (b / sub).glob(pattern)}
        diffs += [f"{sub}/{p}: only in one run" for p in sorted(left ^ right)]
        for p in sorted(left & right):
            if not filecmp.cmp(a / sub / p, b / sub / p, shallow=False):
                diffs.append(f"{sub}/{p}: differs")
    return diffs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ap.add_argument("--study", type=Path, required=True)
    ap.add_argument("--reference", type=Path, required=True, help="an uninterrupted run's --out")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("--window", type=float, default=120.0, help="seconds (default 120)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--set", action="append", default=[], dest="sets")
    a = ap.parse_args()
    argv = [sys.executable, "-m", "xprobe", "-q", "run", str(a.study), "--out", str(a.out)]
    for s in a.sets:
        argv += ["--set", s]
    rng = random.Random(a.seed)
    t0 = time.perf_counter()
    for k in range(a.kills):
        moment = rng.uniform(1.0, a.window)
        rc = attempt(argv, moment)
        what = f"killed at {moment:.1f}s" if rc is None else f"finished (rc {rc}) first"
        print(f"attempt {k + 1}: {what}", flush=True)
    rc = attempt(argv, None)
    print(f"final run: rc {rc}; {time.perf_counter() - t0:.0f}s in all", flush=True)
    diffs = compared(a.reference, a.out)
    for line in diffs:
        print(line)
    n = sum(1 for sub in ("probing", "results", "report") for _ in (a.out / sub).rglob("*.*"))
    print(f"{len(diffs)} difference(s) among {n} output files" if diffs else
          f"identical to the uninterrupted run ({n} output files compared or present)")  # fmt: skip
    return 1 if diffs or rc else 0


if __name__ == "__main__":
    sys.exit(main())

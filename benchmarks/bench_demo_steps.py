"""CPU seconds per step of ``xprobe demo``: this checkout against a commit from before the study
runner (c0a0b23, whose demo ran its stages in one process), both one step at a time.

Today's steps record their CPU (user + system, with their finished child processes) in
``OUT/.study/steps/NAME.json``; the old demo's stages are timed here the same way
(``resource.getrusage`` of the process and its children around each stage). Each demo runs in a
fresh process from an empty folder; the old one from a git worktree of the old commit, with this
checkout's venv. The table pairs today's ``extract-LANG`` (parse and extract in one step) with the
old ``corpus-LANG`` + ``extract-LANG``, and today's probe steps with the old ones by language.

Example (the figures in docs/benchmarks/demo.md)::

    git worktree add /tmp/old-demo c0a0b23
    python benchmarks/bench_demo_steps.py --old-tree /tmp/old-demo --work /tmp/demo-steps
    git worktree remove --force /tmp/old-demo
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

log = logging.getLogger("bench_demo_steps")

# the old demo with each stage's wall and CPU seconds written to OUT.cpu.json
OLD = """
import json, resource, sys, time
from pathlib import Path

def cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

if __name__ == "__main__":
    from xprobe.demo import runner
    from xprobe.cli import main
    seen, run = {}, runner.Demo.run
    def timed(self):
        def wrap(name, fn):
            def stage():
                c0, t0 = cpu(), time.perf_counter()
                fn()
                seen[name] = [round(time.perf_counter() - t0, 1), round(cpu() - c0, 1)]
            return stage
        self.stages = [(n, wrap(n, f)) for n, f in self.stages]
        return run(self)
    runner.Demo.run = timed
    code = main(["-q", "demo", "--out", sys.argv[1]])
    Path(sys.argv[1] + ".cpu.json").write_text(json.dumps(seen))
    sys.exit(code)
"""


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_new(out: Path) -> tuple[dict[str, list[float]], float]:
    c0 = children_cpu()
    cmd = [sys.executable, "-m", "xprobe", "-q", "demo", "--out", str(out), "--jobs", "1"]
    subprocess.run(cmd, check=True)
    steps = {}
    for p in sorted((out / ".study" / "steps").glob("*.json")):
        m = json.loads(p.read_text())
        steps[p.stem] = [m["seconds"], m["cpu_seconds"]]
    return steps, children_cpu() - c0


def run_old(tree: Path, out: Path) -> tuple[dict[str, list[float]], float]:
    script = out.parent / "old_demo_cpu.py"
    script.write_text(OLD)
    c0 = children_cpu()
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, str(script), str(out)], check=True, cwd=tree, env=env)
    return json.loads(Path(str(out) + ".cpu.json").read_text()), children_cpu() - c0


def pair(name: str) -> list[str]:
    """The old stages a step of today's demo stands for."""
    if name.startswith("extract-"):
        return ["corpus-" + name[8:], name]
    if name.startswith("train-nli"):
        return ["train-nli"]
    if name.startswith("map-vectors"):
        return ["map-vectors"]
    if name.startswith("map-"):
        return ["map"]
    if name.startswith("probe-"):
        lang, kind = name.split("-")[1], name.split("-", 2)[2]
        old = {"baselines": "baselines", "bov-fasttext": "bov", "bilstm-max": "nli"}[kind]
        return [f"probe-{lang}-{'mapped' if (lang, old) == ('de', 'nli') else old}"]
    return [name]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old-tree", type=Path, required=True, help="worktree of the old commit")
    ap.add_argument("--work", type=Path, required=True, help="folder for both demos (emptied)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args.work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    old, old_total = run_old(args.old_tree, args.work / "old")
    new, new_total = run_new(args.work / "new")
    rows = []
    for name, (_, cpu) in new.items():
        before = sum(old.get(o, [0, 0])[1] for o in pair(name))
        rows.append((name, "+".join(pair(name)), before, cpu))
    print("| step (today) | c0a0b23 stages | c0a0b23 CPU s | today CPU s | change |")
    print("|---|---|---:|---:|---:|")
    for name, olds, before, cpu in rows:
        print(f"| {name} | {olds} | {before:.1f} | {cpu:.1f} | {cpu - before:+.1f} |")
    b, a = sum(r[2] for r in rows), sum(r[3] for r in rows)
    print(f"| steps | | {b:.1f} | {a:.1f} | {a - b:+.1f} |")
    print(f"| process (with start-up) | | {old_total:.1f} | {new_total:.1f} | "
          f"{new_total - old_total:+.1f} |")  # fmt: skip
    log.info("both demos in %.0f s", time.perf_counter() - t0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""The ud study with a transformer at every layer against encoding its lines once (issue 42).

In one run: (1) ``xprobe run studies/ud.toml`` with the encoder at every layer (``--jobs`` as
the study's default: one step per core, one torch thread each), its wall time, and after each
step the time left it estimated against the time that was in fact left; then (2) every line of
the study's task files (``OUT/probing/CODE/*.txt``, repeats included) encoded once with the same
model, every layer in one forward pass, the same batch size (64) and one torch thread per
language, the languages spread over as many processes as the study ran steps at once. Prints
the ratio of (1) to (2) and the estimate's error; ``--json`` writes them.

Usage::

    scripts/ud-release-folder.sh ../shared/data/ud /tmp/udrel
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_ud_transformer.py --root /tmp/udrel \\
        --model "$MINILM" --out /tmp/bench-udt [--langs ga he zh ta --reference ga] \\
        [--set probe.options.hidden=50]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

log = logging.getLogger("bench_ud_transformer")
ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"\[(\d+)/(\d+)\] (\S+): [\d.]+s.*elapsed (\S+), about (\S+) left")


def _secs(hms: str) -> float:
    """``1m05s`` or ``1h02m`` -> seconds."""
    m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", hms)
    if not m:
        return float("nan")
    h, mi, s = (int(x or 0) for x in m.groups())
    return 3600 * h + 60 * mi + s


def run_study(args: argparse.Namespace) -> tuple[float, list[dict]]:
    """Wall seconds of the study and, per step ended, (elapsed, estimated left)."""
    out = Path(args.out) / "study"
    shutil.rmtree(out, ignore_errors=True)
    spec = f"hf:{args.model}[layers=all]"
    cmd = [sys.executable, "-m", "xprobe", "run", str(ROOT / "studies/ud.toml"), "--out",
           str(out), "--set", f"treebanks.root={args.root}",
           "--set", f'encoders.minilm.spec="{spec}"']  # fmt: skip
    if args.langs:
        cmd += ["--set", "treebanks.langs=" + json.dumps(args.langs)]
    if args.reference:
        cmd += ["--set", f'report.reference_lang="{args.reference}"']
    for kv in args.set or []:
        cmd += ["--set", kv]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    (Path(args.out) / "study.log").write_text(proc.stderr, encoding="utf-8")
    if proc.returncode:
        raise SystemExit(f"the study failed ({proc.returncode}): see {args.out}/study.log")
    points = []
    for m in LINE.finditer(proc.stderr):
        points.append({"step": m.group(3), "done": int(m.group(1)), "of": int(m.group(2)),
                       "elapsed": _secs(m.group(4)), "left": _secs(m.group(5))})  # fmt: skip
    return wall, points


def _encode(model: str, files: list[str]) -> tuple[int, float]:
    """Every line of ``files`` (one language) encoded at every layer, one thread."""
    import torch

    from xprobe.encoders.transformer import load_transformer

    torch.set_num_threads(1)
    enc = load_transformer(f"hf:{model}[layers=all]", device="cpu")
    lines = []
    for f in files:
        for row in Path(f).read_text(encoding="utf-8").splitlines():
            if row.strip():
                lines.append(row.split("\t")[-1].split(" "))
    lang = Path(files[0]).parent.name
    enc.set_language(lang)
    t0 = time.perf_counter()
    enc.encode_layers(lines)
    return len(lines), time.perf_counter() - t0


def encode_once(args: argparse.Namespace, jobs: int) -> tuple[float, int]:
    """Wall seconds to encode every line of the study's task files once; the lines."""
    probing = Path(args.out) / "study" / "probing"
    langs = sorted(p for p in probing.iterdir() if p.is_dir())
    work = [[str(f) for f in sorted(d.glob("*.txt"))] for d in langs]
    work = sorted((w for w in work if w), key=lambda w: -sum(Path(f).stat().st_size for f in w))
    import multiprocessing

    t0 = time.perf_counter()
    with ProcessPoolExecutor(jobs, multiprocessing.get_context("spawn")) as pool:
        done = list(pool.map(_encode, [args.model] * len(work), work))
    return time.perf_counter() - t0, sum(n for n, _ in done)


def _steps_cpu(out: Path) -> dict[str, float]:
    """Each step's CPU seconds from its marker (``OUT/.study/steps/NAME.json``)."""
    steps = sorted((out / ".study" / "steps").glob("*.json"))
    return {p.stem: json.loads(p.read_text(encoding="utf-8"))["cpu_seconds"] for p in steps}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", required=True, help="a UD release folder")
    ap.add_argument("--model", required=True, help="the transformer's folder")
    ap.add_argument("--out", required=True)
    ap.add_argument("--langs", nargs="*", default=None, help="default: every language")
    ap.add_argument("--reference", default=None, help="report.reference_lang (default en)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--set", action="append", metavar="KEY.PATH=VALUE",
                    help="another study override, as probe.options.hidden=50")  # fmt: skip
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    jobs = os.cpu_count() or 1
    load0 = os.getloadavg()[0]
    study, points = run_study(args)
    load1 = os.getloadavg()[0]
    enc, lines = encode_once(args, jobs)
    errors = [
        {**p, "actual_left": round(study - p["elapsed"], 1),
         "error": round(p["left"] / max(study - p["elapsed"], 1.0), 2)}
        for p in points
    ]  # fmt: skip
    res = {"study_s": round(study, 1), "encode_once_s": round(enc, 1), "lines": lines,
           "ratio": round(study / enc, 2), "load_at_start": [load0, load1],
           "sets": args.set or [], "study_cpu_s": _steps_cpu(Path(args.out) / "study"),
           "estimates": errors}  # fmt: skip
    for e in errors:
        log.info("after %-26s elapsed %6.0f s: estimated %6.0f s left, in fact %6.0f (x%.2f)",
                 e["step"], e["elapsed"], e["left"], e["actual_left"], e["error"])  # fmt: skip
    log.info("study %.1f s; every line of its task files (%d) encoded once %.1f s: %.2fx "
             "(load %.2f / %.2f at the starts)", study, lines, enc, study / enc, load0,
             load1)  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

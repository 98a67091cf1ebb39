"""Run a study: every stage a study file declares, as one resumable graph (docs/studies.md).

The study file (TOML) names the languages and their inputs, the task sizes, the NLI encoders to
train, the mapping pairs, the encoders to probe, the probe settings and the report. It is checked
whole before anything runs (one line per problem). A step is skipped when its outputs exist and
its settings and inputs are what they were when it finished; a changed setting reruns that step
and the steps that use its outputs. Interrupted runs resume: rerun the same command. One run at a
time per --out: a second one is refused, naming the running one's process id. --dry-run writes
nothing.

Examples:
  xprobe run studies/sample.toml --out sample-study
  xprobe run studies/sample.toml --out sample-study --dry-run
  xprobe run studies/xprobe-2019.toml --out work --scheduler tcp://scheduler:8786
  xprobe run studies/sample.toml --out s --set probe.seeds=3 --variant tiny
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "run a study file (all stages, resumable, on Dask): xprobe run STUDY.toml --out DIR"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("study", type=Path, metavar="STUDY.toml", help="the study file")
    parser.add_argument("--out", required=True, type=Path, metavar="DIR", help="output folder")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the plan (every step, done or to do, why; what it reads, with sizes, writes, "
        "the download cache included, and the task sizes)",
    )
    parser.add_argument(
        "--variant", metavar="NAME", help="merge the study's [variants.NAME] over it first"
    )
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY.PATH=VALUE",
        help="override one key, e.g. probe.seeds=3 or study.sizes=[1000,100,100] (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--jobs", type=int, default=0, metavar="N",
        help="independent steps run at once in local worker processes (default 0: one per "
        "core; each step's UDPipe processes and torch threads get its share of the cores; "
        "1: one step at a time in this process)",
    )  # fmt: skip
    parser.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="a Dask scheduler (tcp://host:8786): every step runs on its workers and the steps "
        "that parse spread their shards over them; the workers must see the same paths and run "
        "the same xprobe (checked first); GPU steps go to workers with --resources GPU=1",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from xprobe.errors import XProbeError
    from xprobe.study import load_study, make_plan, run_plan
    from xprobe.study.lock import study_lock
    from xprobe.study.schema import merge, parse_override

    if args.out.exists() and not args.out.is_dir():
        raise XProbeError(f"{args.out}: exists and is not a folder; choose another --out")
    overrides: dict = {}
    for text in args.set:
        overrides = merge(overrides, parse_override(text))
    study = load_study(args.study, args.out, args.variant, overrides, args.scheduler)
    if args.dry_run:  # creates nothing: not even the digest cache
        from xprobe.study.describe import describe

        plan = make_plan(study.steps, study.out, save_digests=False)
        sys.stdout.write("\n".join(describe(plan)) + "\n")
        return 0
    with study_lock(study.out):  # a second run on this --out is refused
        plan = make_plan(study.steps, study.out)
        timings = run_plan(plan, args.jobs, args.scheduler, study.data["study"]["threads"])
    ran = len(timings) - 1
    sys.stdout.write(
        f"study {study.data['study']['name'] or args.study.stem}: {ran} steps run, "
        f"{len(plan.steps) - ran} done before, {timings['total']:.0f}s; outputs in {study.out}\n"
    )
    report = study.out / "report" / "report.md"
    if report.exists():
        sys.stdout.write(f"report: {report}\n")
    return 0

"""Run the whole X-Probe pipeline on a generated bilingual sample (English, German), end to end.

Stages: generate the sample (xprobe sample) -> train small UDPipe models on its treebanks ->
corpus on its Wikipedia-style dumps -> extract all nine probing tasks per language -> fastText
vectors on its text -> train-nli an English BiLSTM-max on its NLI pairs -> map-vectors and map
the encoder to German on its parallel corpus -> probe English (native) and German (mapped), with
bag-of-vectors and the majority/length baselines -> report (tables and heatmaps relative to
English). A summary at the end says where everything is.

The demo is the study studies/sample.toml: `xprobe demo --out DIR` is `xprobe run
studies/sample.toml --out DIR` (--size tiny: with --variant tiny) plus a summary. Progress is
logged step by step; independent steps run at once, one per core (--jobs). Rerunning the same
command resumes: steps whose outputs, settings and inputs are unchanged (DIR/.study/) are
skipped. --size small takes under 2 minutes on 2 idle CPU cores; tiny is for tests. The report
is DIR/report/report.md and, one page to open in a browser, DIR/report/report.html.

Example:
  xprobe demo --out demo-out
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "run the whole pipeline on a generated en/de sample, end to end, in minutes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from xprobe.demo.run import SIZES

    parser.add_argument(
        "--out", type=Path, default=Path("demo-out"), help="output folder (default demo-out)"
    )
    parser.add_argument(
        "--size",
        choices=sorted(SIZES),
        default="small",
        help="small (default): 10,000 sentences per language, 500/100/100 per task, about two "
        "minutes on 2 cores; tiny: 8,000 sentences, 400/100/100, for tests",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the sample and all stages (1)")
    parser.add_argument(
        "--workers", type=int, default=2, help="parallel UDPipe parsing processes (default 2)"
    )
    parser.add_argument(
        "--jobs", type=int, default=0, metavar="N",
        help="steps run at once (default 0: one per core; each gets its share of the cores; "
        "1: one at a time)",
    )  # fmt: skip


def _print_summary(info: dict) -> None:
    w = sys.stdout.write
    w("\nX-Probe demo finished")
    if "total" in info["timings"]:
        w(f" in {info['timings']['total']:.0f}s")
    w(f". Outputs in {info['out']}/:\n")
    w(f"  probing sets   {info['probing']['en']}/, {info['probing']['de']}/ (nine tasks each)\n")
    w(f"  encoders       {info['models']['en']}/ (NLI-trained), {info['models']['de']}/ (mapped)\n")
    w(f"  results        {info['results']}\n")
    w(f"  report         {info['html']} (open it in a browser: the answer first)\n")
    w(f"                 {info['report']}/report.md (tables, heatmaps *.png)\n")
    table = info["test_accuracy"]
    tasks = sorted({t for row in table.values() for t in row})
    if tasks:
        w("\nTest accuracy (%):\n")
        w(f"  {'language:encoder:classifier':34s}" + "".join(f"{t[:9]:>10s}" for t in tasks) + "\n")
        for key in sorted(table):
            row = table[key]
            cells = "".join(f"{100 * row[t]:10.1f}" if t in row else f"{'-':>10s}" for t in tasks)
            w(f"  {key[:34]:34s}{cells}\n")


def run(args: argparse.Namespace) -> int:
    from xprobe.demo.run import run_demo

    info = run_demo(args.out, args.size, args.seed, args.workers, args.jobs)
    _print_summary(info)
    return 0

"""Build a leaderboard page from the results of many encoders and studies.

  xprobe leaderboard RESULTS... --out leaderboard.html

RESULTS are xprobe result records (R.jsonl, or folders searched for *.jsonl: a study's
OUT/results) and mteb results (results/<model>/<revision>/<task>.json, as mteb.evaluate and
xprobe export results write them). The page is one self-contained HTML file (no network, no
server): models x languages x tasks, each cell the test accuracy with its 95 % interval or n/a
with its reason; sort by any column; filter by language, task, layer and model kind; ranks on
the shown cells with how often each holds when the cells' items are resampled.

Examples:
  xprobe leaderboard ud-out/results --out leaderboard.html
  xprobe leaderboard ud-out/results other-study/results mteb-results --out board.html
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from xprobe.commands.argtypes import positive

HELP = "a self-contained leaderboard page from result records and mteb results"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULTS",
                        help="records (.jsonl), folders of them, or mteb results")  # fmt: skip
    parser.add_argument("--out", required=True, type=Path, metavar="FILE.html",
                        help="the page to write")  # fmt: skip
    parser.add_argument("--title", default="xprobe leaderboard", help="the page's title")
    parser.add_argument("--resamples", type=positive, default=200, metavar="N",
                        help="bootstrap draws for the ranks' stability (default: 200)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from xprobe.export.leaderboard import write_leaderboard

    t0 = time.perf_counter()
    n = write_leaderboard(args.results, args.out, args.title, args.resamples)
    print(
        f"{args.out}: {n['models']} models, {n['languages']} languages, {n['tasks']} tasks, "
        f"{n['cells']} cells; {n['bytes'] / 1e6:.2f} MB in {time.perf_counter() - t0:.1f} s"
    )
    return 0

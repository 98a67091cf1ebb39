"""Tables and heatmaps from probe records.

Records are averaged over seeds only: runs that differ in anything else (--max-train, --grid,
protocol, layer, data) get separate cells or tables (a setting that differs is stated under
the heading). Every test accuracy comes with a 95% bootstrap interval (test items resampled,
seeds combined) and every table with an n_test row. report.md opens with the answer: one
sentence per comparison ("de - en (sample, mlp): 1 of 18 differences significant (Holm,
alpha = 0.05); 12 cells at chance."), then the figure, then the tables; "How to read" after.

Writes into DIR: per dataset/classifier/language a task x encoder table (Markdown + CSV, like
X-Probe's Table 4) and a baseline block per language; per task the mean and std across languages
and encoders (Table 1); PNG heatmaps of each language minus the reference language per encoder
pair (a mapped encoder pairs with the encoder it was mapped from, others by name; differences
not significant after Holm's correction, or at chance, are grey; Figure 4) and of two datasets
of the reference language against each other (Figure 2; datasets are the records' "dataset" field);
with --xnli, Spearman correlations between probing and XNLI accuracy (Figure 3); with several
(classifier, --max-train) settings over >= 3 encoders, the stability of encoder rankings per
language and dataset (Eger et al. 2020, stability.md); and report.md with everything.
With --html, also report.html: the same report as one self-contained page (figures embedded,
tables sortable by clicking a heading).

Examples:
  xprobe report results/*.jsonl --out report/
  xprobe report results/all.jsonl --out report/ --reference-lang en --xnli xnli.tsv
  xprobe report results/*.jsonl --out report/ --html
  xprobe report results/all.jsonl --out report/ --coverage coverage/coverage.json --html
  xprobe report results/all.jsonl --out report/ --pairs results/pairs.jsonl
"""

from __future__ import annotations

import argparse

HELP = "tables (Markdown/CSV) and heatmaps (PNG) from probe result records"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", nargs="+", metavar="RESULTS.jsonl", help="probe record files")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument(
        "--reference-lang",
        help="language the heatmaps are relative to (default: en); must be a language of the "
        "records",
    )
    p.add_argument(
        "--xnli",
        metavar="FILE",
        help="XNLI accuracies: JSON {lang: {encoder: acc}} or TSV/CSV rows "
        "language, encoder, accuracy",
    )
    p.add_argument(
        "--html",
        action="store_true",
        help="also write DIR/report.html: the whole report as one self-contained page "
        "(figures embedded, sortable tables; opens offline in any browser)",
    )
    p.add_argument(
        "--pairs",
        metavar="SCORES.jsonl",
        help="minimal-pair scores (`xprobe score`): a section sets each language model's "
        "preference beside the probes' accuracy on the same items (encoded, and used?)",
    )
    p.add_argument(
        "--coverage",
        metavar="COVERAGE.json",
        help="open the report with this coverage of languages x tasks (written by the ud "
        "study's coverage step) and copy it beside the report as coverage.{json,md}",
    )
    p.add_argument(
        "--skip-bad-lines",
        action="store_true",
        help="drop unreadable record lines with a warning instead of failing",
    )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from xprobe.errors import XProbeError
    from xprobe.probe.records import read_records
    from xprobe.report.build import check_reference, write_report

    missing = [p for p in args.results if not Path(p).is_file()]
    if missing:
        raise XProbeError(f"results file not found: {missing[0]}")
    on_error = "skip" if args.skip_bad_lines else "raise"
    records = [r for path in args.results for r in read_records(path, on_error=on_error)]
    reference = args.reference_lang or "en"
    if args.reference_lang is not None:
        check_reference(records, reference, "--reference-lang")
    paths = write_report(records, args.out, reference, args.xnli, args.coverage, args.pairs)
    if args.html:
        from xprobe.report.html import write_html

        paths.append(write_html(args.out, paths))
    print(f"{len(paths)} files written to {args.out}")
    return 0

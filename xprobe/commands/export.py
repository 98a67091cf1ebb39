"""Export what xprobe built into the layouts researchers load elsewhere.

  xprobe export datasets PROBING_DIR --out OUT
      a Hugging Face datasets folder: one configuration per task, train/validation/test as
      parquet (sentence, label as a ClassLabel, provenance columns), a dataset card README.md
      made from manifest.json; datasets.load_dataset(OUT, "past_present") reads it, and so does
      xprobe probe --data OUT
  xprobe export results R.jsonl [R2.jsonl ...] --out OUT
      records.parquet and records.csv (one row per record, every field, intervals) and mteb's
      results layout OUT/results/<model>/<revision>/<task>.json

An existing OUT is replaced only when it holds an export of the same input; any other existing
folder is an error unless --force. Needs: pip install 'xprobe[export]'.

Examples:
  xprobe export datasets probing/en --out hf/xprobe-en
  xprobe export results results/en.jsonl results/de.jsonl --out exported
"""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "export probing sets (Hugging Face datasets) or results (tidy table, mteb layout)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
    d = sub.add_parser("datasets", help="a probing folder -> a Hugging Face datasets folder")
    d.add_argument("probing_dir", type=Path, metavar="PROBING_DIR", help="xprobe extract output")
    d.add_argument("--license", dest="license_id", metavar="ID",
                   help="licence of the source text for the card (default: from a LICENSE file "
                   "beside the first input, else 'unknown')")  # fmt: skip
    d.add_argument("--corpus-date", metavar="DATE", help="date of the corpus for the card")
    r = sub.add_parser("results", help="records -> tidy table (parquet, CSV) and mteb layout")
    r.add_argument("results", nargs="+", type=Path, metavar="R.jsonl", help="results files")
    for p in (d, r):
        p.add_argument("--out", required=True, type=Path, metavar="OUT", help="output folder")
        p.add_argument("--force", action="store_true", help="replace a different existing OUT")


def run(args: argparse.Namespace) -> int:
    if args.what == "datasets":
        from xprobe.export.datasets import export_datasets

        sizes = export_datasets(
            args.probing_dir, args.out, args.force, args.license_id, args.corpus_date
        )
        configs = sum(1 for s in sizes.values() if any(s.values()))
        rows = sum(sum(s.values()) for s in sizes.values())
        print(f"{args.out}: {configs} configuration(s), {rows} rows (of {len(sizes)} task(s))")
        return 0
    from xprobe.export.results import export_results

    n = export_results(args.results, args.out, args.force)
    print(
        f"{args.out}: {n['records']} records in records.parquet/.csv; mteb layout: "
        f"{n['task_files']} task file(s) for {n['models']} model folder(s)"
    )
    return 0

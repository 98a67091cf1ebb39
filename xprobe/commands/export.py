"""Export what xprobe built into the layouts researchers load elsewhere.

  xprobe export datasets PROBING_DIR --out OUT
      a Hugging Face datasets folder: one configuration per task, train/validation/test as
      parquet (sentence, label as a ClassLabel, provenance columns), a dataset card README.md
      made from manifest.json; datasets.load_dataset(OUT, "past_present") reads it, and so does
      xprobe probe --data OUT
  xprobe export results R.jsonl [R2.jsonl ...] --out OUT
      records.parquet and records.csv (one row per record, every field, intervals) and mteb's
      results layout OUT/results/<model>/<revision>/<task>.json
  xprobe export release PROBING_DIR [PROBING_DIR ...] --out OUT [--ud-version X.Y]
      a benchmark release: the probing folders of many languages (the ud study's
      OUT/probing/*) as one Hugging Face dataset repository, a configuration per task and
      language (Tense.en), a card with every treebank's licence and how each set was made,
      release.json and SHA256SUMS; the same folders give the same bytes
  xprobe export lm-eval PAIRS_DIR [PAIRS_DIR ...] --out OUT
      minimal pairs (`xprobe pairs`) as lm-evaluation-harness tasks: one per language and
      phenomenon, a group per language and one over all; `lm_eval --include_path OUT --tasks
      xprobe_pairs` runs them as they are

An existing OUT is replaced only when it holds an export of the same input; any other existing
folder is an error unless --force. Needs: pip install 'xprobe[export]'.

Examples:
  xprobe export datasets probing/en --out hf/xprobe-en
  xprobe export results results/en.jsonl results/de.jsonl --out exported
  xprobe export release ud-out/probing/* --out ud-release --profiles ud-out/profiles
  xprobe export lm-eval ud-out/pairs/* --out lm-eval-tasks
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
    rel = sub.add_parser(
        "release",
        help="probing folders of many languages -> a benchmark "
        "release (Hugging Face dataset repository, card, checksums)",
    )
    rel.add_argument(
        "probing_dirs",
        nargs="+",
        type=Path,
        metavar="PROBING_DIR",
        help="xprobe extract outputs, one per language (named by its manifest)",
    )
    rel.add_argument(
        "--profiles",
        type=Path,
        metavar="DIR",
        help="drafted profiles (DIR/CODE.toml, the ud study's OUT/profiles): used "
        "where present, else the shipped profile",
    )
    rel.add_argument(
        "--ud-version",
        metavar="X.Y",
        help="the UD release's version for the card (default: from a folder "
        "named ud-treebanks-vX.Y in the inputs' paths, else 'not recorded')",
    )
    rel.add_argument("--name", default="xprobe-ud", help="the release's name (release.json)")
    lm = sub.add_parser("lm-eval", help="minimal pairs -> lm-evaluation-harness tasks")
    lm.add_argument("pairs_dirs", nargs="+", type=Path, metavar="PAIRS_DIR",
                    help="xprobe pairs outputs, one per language")  # fmt: skip
    for p in (d, r, rel, lm):
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
    if args.what == "release":
        return _release(args)
    if args.what == "lm-eval":
        from xprobe.export.lm_eval import export_lm_eval

        info = export_lm_eval(args.pairs_dirs, args.out, args.force)
        tasks = sum(len(t) for t in info["tasks"].values())
        print(f"{args.out}: {tasks} task(s) in {len(info['tasks'])} language(s); run: lm_eval "
              f"--include_path {args.out} --tasks xprobe_pairs --model hf --model_args "
              "pretrained=MODEL")  # fmt: skip
        return 0
    from xprobe.export.results import export_results

    n = export_results(args.results, args.out, args.force)
    print(
        f"{args.out}: {n['records']} records in records.parquet/.csv; mteb layout: "
        f"{n['task_files']} task file(s) for {n['models']} model folder(s)"
    )
    return 0


def _release(args: argparse.Namespace) -> int:
    from xprobe.errors import XProbeError
    from xprobe.export.release import build_release

    folders: dict[str, Path] = {}
    for d in args.probing_dirs:
        code = _language_of(d)
        if code in folders:
            raise XProbeError(f"{d} and {folders[code]}: both hold language {code!r}")
        folders[code] = d
    info = build_release(folders, args.out, profiles=args.profiles, ud_version=args.ud_version,
                         name=args.name, force=args.force)  # fmt: skip
    cells = [c for lang in info["languages"] for c in lang["tasks"].values()]
    filled = sum(1 for c in cells if c["applicable"])
    print(
        f"{args.out}: {len(info['languages'])} language(s), {filled} configuration(s), "
        f"{len(cells) - filled} n/a; release id (sha256 of SHA256SUMS) {info['id'][:12]}"
    )
    return 0


def _language_of(d: Path) -> str:
    """The language of a probing folder: its manifest's ``language``."""
    from xprobe.export.datasets import read_extraction

    return str(read_extraction(d)[0].get("language") or d.name)

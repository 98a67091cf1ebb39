"""Score minimal pairs with language models: which side does each prefer?

A causal model gives each side its summed log-probability (the first token conditioned on the
tokenizer's BOS, else EOS token, as lm-evaluation-harness does); a masked model its
pseudo-log-likelihood (each token masked in turn). Four normalisations side by side: sum, per
token, per character, per byte. Controls: a word-bigram model cross-fitted over five folds of
gold sentences (what surface statistics give) and the length baseline (the shorter side). Every
pair is scored; a tie counts half. Sentences are scored
once per model (shared sentences too) and cached by the model's identity and the sentence's
SHA-256 (--cache-dir), so a rerun or another pairs folder costs nothing for what was scored.

Writes the records to --out (JSON lines; a record per scorer, phenomenon and normalisation:
value, n, ties, and per pair the verdict and the margin); records already there for the same
scorer are kept, so a stopped run resumes. Prints accuracy under `sum` per phenomenon.

Examples:
  xprobe score pairs/en --model hf:models/gpt2 --out scores/en.jsonl
  xprobe score pairs/* --model hf:models/gpt2 --model hf:models/bert --kind auto --out s.jsonl
  xprobe score pairs/en --out controls.jsonl          # the controls alone
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "score minimal pairs with causal or masked language models, beside n-gram and length"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("pairs", nargs="+", type=Path, metavar="PAIRS_DIR",
                   help="`xprobe pairs` folders")  # fmt: skip
    p.add_argument("--model", action="append", default=[], metavar="SPEC",
                   help="a language model: hf:DIR or hf:HUB_NAME (repeat for several)")  # fmt: skip
    p.add_argument("--kind", choices=("auto", "causal", "masked"), default="auto",
                   help="causal (summed log-probability) or masked (pseudo-log-likelihood); "
                   "auto: from the model's config")  # fmt: skip
    p.add_argument("--out", type=Path, required=True, metavar="FILE.jsonl", help="records")
    p.add_argument("--no-controls", action="store_true", help="skip the bigram and length controls")
    p.add_argument("--batch-size", type=int, default=32, metavar="N")
    p.add_argument("--device", default="auto", help="cpu, cuda, cuda:N or auto")
    p.add_argument("--cache-dir", type=Path, metavar="DIR",
                   help="sentence-score cache (default: the download cache)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from xprobe.download import cache_dir
    from xprobe.errors import XProbeError
    from xprobe.files import atomic_write
    from xprobe.pairs.lm import load_lm
    from xprobe.pairs.score import score_folder
    from xprobe.report.pairs import read_pair_records

    if args.batch_size < 1:
        raise XProbeError(f"--batch-size must be at least 1, not {args.batch_size}")
    if args.out.is_dir():
        raise XProbeError(f"{args.out}: is a folder; --out names the records file")
    old = read_pair_records(args.out) if args.out.exists() else []
    records = {_key(r): r for r in old}  # a rerun replaces a scorer's records
    cache = args.cache_dir or cache_dir()
    for k, spec in enumerate(args.model or [None]):
        lm = None if spec is None else load_lm(spec, args.kind, args.device, args.batch_size, cache)
        for folder in args.pairs:
            for r in score_folder(folder, lm, controls=not args.no_controls and k == 0):
                records[_key(r)] = r
        if lm is not None:
            sys.stderr.write(f"{lm.identity}: {lm.scored} new sentences run through the model\n")
    with atomic_write(args.out) as f:
        for r in records.values():
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    for r in records.values():
        if r.get("normalisation") == "sum":
            sys.stdout.write(f"{r['language']}\t{r['phenomenon']}\t{r['scorer']}\t"
                             f"{100 * r['value']:.1f}\tn={r['n']}\n")  # fmt: skip
    return 0


def _key(r: dict) -> tuple:
    return (r.get("scorer_id", "n/a"), r["language"], r["phenomenon"], r.get("normalisation"))

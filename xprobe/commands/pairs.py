"""Minimal pairs from a probing folder: does a model *use* what its vectors encode?

Every perturbed line of BShift (I), SOMO (C) and CoordInv (I) against its original, the gold
sentence its provenance names; and agreement pairs: the main clause's agreeing verb (or its
finite auxiliary or copula) replaced by a form of the same lemma whose Number, Person or Gender
differs from the subject's, attested with exactly those features in the treebank itself. Pairs
keep the probing set's splits and items (agreement: the sentence's SubjNum split, else a seeded
draw); every pair is scored, the n-gram control cross-fitted over folds of gold sentences. A
phenomenon with fewer pairs than --min-pairs (97: a 95% half-width of at most 10 points) is n/a
with its counts, as is one the treebank does not annotate.

Writes DIR/PHENOMENON.tsv (split, good, bad, source, line, item, change) and DIR/manifest.json.
The probing folder needs provenance (extract --provenance, or --protocol cv:K).

Examples:
  xprobe pairs probing/en --out pairs/en
  xprobe pairs probing/xx --out pairs/xx --lang profiles/xx.toml
  xprobe score pairs/en --model hf:models/gpt2 --out scores/en.jsonl
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "minimal pairs (perturbations, agreement) from a probing folder's gold sentences"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("probing", type=Path, metavar="PROBING_DIR", help="a folder `xprobe extract` "
                   "wrote with provenance")  # fmt: skip
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="pairs folder")
    p.add_argument("--lang", metavar="CODE|FILE", help="the language's profile (default: the "
                   "folder's language); a drafted profile's file for a language xprobe has none "
                   "for")  # fmt: skip
    p.add_argument("--min-pairs", type=int, metavar="N", help="fewest pairs for a phenomenon "
                   "(default 97)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from xprobe.errors import XProbeError
    from xprobe.pairs import build_pairs

    if args.min_pairs is not None and args.min_pairs < 1:
        raise XProbeError(f"--min-pairs must be at least 1, not {args.min_pairs}")
    m = build_pairs(args.probing, args.out, args.lang, args.min_pairs)
    for name, e in m["phenomena"].items():
        if e.get("applicable", True) is False:
            line = f"{name}: n/a ({e['kind']}: {e['reason']})"
        else:
            splits = ", ".join(f"{k} {v}" for k, v in e["splits"].items())
            line = f"{name}: {e['pairs']} pairs ({splits})"
        sys.stdout.write(line + "\n")
    return 0

"""Generate the bilingual sample: aligned English and German sentences with gold UD annotation.

Writes, under --out: treebank/{en,de}-{train,dev}.conllu (gold UD, German multiword tokens),
wiki/{en,de}wiki-sample-pages-articles.xml.bz2 (MediaWiki dumps of generated articles),
text/{en,de}.txt (every sentence, tokenised), nli/snli_sample_{train,dev,test}.jsonl (English NLI
pairs, SNLI format), parallel/en-de.{en,de}, dictionary/en-de{,.train,.test}.txt (MUSE format),
xnli/{en,de}.{dev,test}.tsv (premise, hypothesis, label) and manifest.json.
The same seed and size give byte-identical files.

Example:
  xprobe sample --out sample --seed 1 --sentences 20000
  xprobe sample --out sample --sentences 12000 --treebank 1000 --workers 2
"""

from __future__ import annotations

import argparse
import logging
from dataclasses import replace
from pathlib import Path

from xprobe.errors import XProbeError

HELP = "generate the bilingual sample (treebanks, dumps, NLI, parallel, dictionary, XNLI)"

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, type=Path, help="output directory (created)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--sentences",
        type=int,
        default=20000,
        help="sentences in each language's dump; the other parts scale with it "
        "(default 20000: treebank 2000+200, parallel 5000, NLI 6000/600/600, XNLI 500/500)",
    )
    parser.add_argument(
        "--treebank",
        type=int,
        default=None,
        metavar="N",
        help="sentences in each language's training treebank, its dev set a tenth of them "
        "(default: scaled with --sentences)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="processes (default 1; 2 or more writes the dumps in a second process, about half "
        "the time; the files are the same)",
    )


def run(args: argparse.Namespace) -> int:
    from xprobe.sample import SampleSizes, generate_sample

    if args.sentences < 100:
        raise XProbeError(f"--sentences must be at least 100, got {args.sentences}")
    sizes = SampleSizes.scaled(args.sentences)
    if args.treebank is not None:
        if args.treebank < 10:
            raise XProbeError(f"--treebank must be at least 10, got {args.treebank}")
        sizes = replace(sizes, treebank_train=args.treebank, treebank_dev=args.treebank // 10)
    if args.workers < 1:
        raise XProbeError(f"--workers must be at least 1, got {args.workers}")
    manifest = generate_sample(args.out, args.seed, sizes, workers=args.workers)
    counts = manifest["counts"]
    print(
        f"sample in {args.out}: {counts['wiki']} dump sentences per language, treebank "
        f"{counts['treebank-train']}+{counts['treebank-dev']}, {counts['parallel']} parallel "
        f"pairs, {counts['nli-train']} NLI pairs, {counts['dictionary']} dictionary pairs, "
        f"{manifest['word_forms']['en']}/{manifest['word_forms']['de']} word forms (en/de)"
    )
    return 0

"""Map target-language word vectors into the English space (supervised, orthogonal).

VecMap's supervised recipe: both sides are length-normalised, mean-centred and length-normalised;
the orthogonal Procrustes solution over the dictionary pairs rotates the TARGET vectors onto the
English ones. The English vectors are left untouched, so a frozen English encoder keeps seeing its
own inputs; the mapped target vectors are written in the raw English space
(see xprobe.mapping.words). Precision@1 of English -> target word translation on held-out
dictionary words is printed for nearest neighbour and for CSLS (k = 10), and written to --report.

Example:
  xprobe map-vectors --src wiki.en.vec --tgt wiki.de.vec --dictionary muse/en-de.txt \\
      --out wiki.de.mapped.vec --report de-map.json --max-vocab 200000
"""

from __future__ import annotations

import argparse
import logging

HELP = "map target word vectors into the English space (orthogonal, MUSE dictionary); P@1"

log = logging.getLogger(__name__)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--src", required=True, help="English (source) vectors, .vec or .bin; unchanged")
    p.add_argument("--tgt", required=True, help="target-language vectors to map, .vec or .bin")
    p.add_argument(
        "--dictionary",
        required=True,
        help="MUSE dictionary 'en xx' per line (e.g. en-de.txt); split into train/test "
        "unless --test-dictionary is given",
    )
    p.add_argument("--out", required=True, help="mapped target vectors (.vec, written atomically)")
    p.add_argument(
        "--train-size",
        type=int,
        default=5000,
        help="train on the N most frequent source words of the dictionary found in both "
        "vocabularies (default 5000)",
    )
    p.add_argument(
        "--test-size",
        type=int,
        default=1500,
        help="test on the next N source words (default 1500)",
    )
    p.add_argument(
        "--test-dictionary",
        help="a separate MUSE test dictionary; then all of --dictionary trains",
    )
    p.add_argument("--report", help="write the evaluation report (JSON) here")
    p.add_argument(
        "--max-vocab",
        type=int,
        help="keep only the N most frequent words of each .vec (frequency-sorted files); "
        "the output then holds N target words",
    )
    p.add_argument("--csls-k", type=int, default=10, help="neighbourhood size of CSLS (default 10)")
    p.add_argument(
        "--normalized-output",
        action="store_true",
        help="write the mapped vectors in the normalised space instead of the raw English space",
    )
    p.add_argument("--lowercase", action="store_true", help="lower-case the words of both files")


def run(args: argparse.Namespace) -> int:
    from xprobe.encoders.vectors import load_vectors
    from xprobe.errors import XProbeError
    from xprobe.files import write_json
    from xprobe.mapping.words import map_vectors, read_dictionary, write_vectors

    if args.train_size < 1 or args.test_size < 0:
        raise XProbeError("--train-size must be >= 1 and --test-size >= 0")
    src = load_vectors(args.src, lowercase=args.lowercase, max_words=args.max_vocab)
    tgt = load_vectors(args.tgt, lowercase=args.lowercase, max_words=args.max_vocab)
    pairs = read_dictionary(args.dictionary)
    test = read_dictionary(args.test_dictionary) if args.test_dictionary else None
    result = map_vectors(
        src,
        tgt,
        pairs,
        train_size=args.train_size,
        test_size=args.test_size,
        test_pairs=test,
        k=args.csls_k,
        raw_output=not args.normalized_output,
    )
    write_vectors(args.out, result.mapped)
    report = {
        **result.report,
        "src": args.src,
        "tgt": args.tgt,
        "dictionary": args.dictionary,
        "test_dictionary": args.test_dictionary,
        "out": args.out,
    }
    if args.report:
        write_json(args.report, report)
    scores = (
        f"P@1 NN {100 * report['p_at_1_nn']:.1f}  CSLS {100 * report['p_at_1_csls']:.1f}  "
        f"({report['test_words']} test words"
        if report["test_words"]
        else "P@1 not measured (no test words"
    )
    print(f"{scores}, {report['train_pairs']} training pairs); wrote {args.out}")
    return 0

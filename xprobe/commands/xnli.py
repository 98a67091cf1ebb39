"""Evaluate an encoder with an NLI head on XNLI (any language), with a bootstrap 95% interval.

The head comes from `xprobe train-nli --frozen SPEC` (or is a `train-nli` model directory); it
reads [u, v, |u-v|, u*v] of the encoder's premise and hypothesis vectors. Evaluating an English
teacher with its own head on English XNLI, and its mapped student with the same head on German
XNLI, gives X-Probe's Table 3 comparison; the ratio of the two says how much the mapping keeps.

Files: the XTREME export (premise<TAB>hypothesis<TAB>label, one language per file, e.g.
test-de.tsv) or the official xnli.test.tsv (filtered on --lang). Sentences are Moses-tokenised in
--lang; vectors are cached. With --out, the result is added to a JSON list (one entry per
language, encoder, head and data file, replaced on a rerun) that `xprobe report --xnli` reads.

Example:
  xprobe xnli --encoder st:models/all-MiniLM-L6-v2 --head heads/minilm --data test-en.tsv \\
      --lang en --out results/xnli.json
  xprobe xnli --encoder models/de-minilm --head heads/minilm --data test-de.tsv --lang de \\
      --out results/xnli.json
"""

from __future__ import annotations

import argparse

from xprobe.commands.argtypes import device_name

HELP = "XNLI accuracy of an encoder with an NLI head, with a bootstrap 95% interval"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--encoder", required=True, help="encoder SPEC (as for probe)")
    p.add_argument("--head", required=True, help="NLI head directory (train-nli --frozen)")
    p.add_argument("--data", required=True, help="XNLI file (test-XX.tsv or xnli.test.tsv)")
    p.add_argument("--lang", required=True, help="language of --data (tokeniser; filter)")
    p.add_argument("--name", help="encoder name in the record (default: from the spec)")
    p.add_argument("--out", help="JSON list of results to add this one to")
    p.add_argument("--limit", type=int, help="use only the first N pairs")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (0)")
    p.add_argument(
        "--device", type=device_name, default="auto", help="auto, cpu or cuda[:N] (default auto)"
    )
    p.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    p.add_argument(
        "--cache-dir", help="sentence-vector cache (default: sentence-vectors/ in the cache)"
    )


def run(args: argparse.Namespace) -> int:
    import json

    from xprobe.encoders.encoder_spec import EncoderSpec
    from xprobe.mapping.xnli import XNLIEval, evaluate_xnli, write_xnli_record

    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    cfg = XNLIEval(
        encoder=EncoderSpec.parse(args.encoder),  # parsed once, here
        head=args.head,
        data=args.data,
        lang=args.lang,
        name=args.name,
        limit=args.limit,
        n_boot=args.bootstrap,
        seed=args.seed,
        device=args.device,
        cache_dir=args.cache_dir,
    )
    rec = evaluate_xnli(cfg)
    if args.out:
        write_xnli_record(args.out, rec)
    keys = ("encoder", "language", "n", "accuracy", "ci95", "majority_acc")
    print(json.dumps({k: rec[k] for k in keys}, sort_keys=True))
    return 0

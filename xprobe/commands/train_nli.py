"""Train an English sentence encoder on NLI, InferSent style (X-Probe section 5.1).

Premise and hypothesis are encoded by the same encoder over frozen word vectors; the features
[u, v, |u-v|, u*v] go into an MLP over entailment/neutral/contradiction. Adam, early stopping on
dev accuracy. The output directory holds the best encoder (config.json, encoder.pt, vocab.txt,
vectors.npy), the NLI classifier and the training state: use it as `--encoder DIR` for
`xprobe probe`/`xprobe encode` and as the frozen teacher of `xprobe map`.

Input layouts: SNLI/MultiNLI .jsonl(.gz), their .txt with a header, or plain
premise<TAB>hypothesis<TAB>label; pairs without a gold label are dropped.

With --frozen SPEC instead of --encoder, only an NLI head is trained, on a frozen encoder of any
spec (a checkpoint directory, bov:V.vec, hf:PATH, st:PATH, ...): sentence vectors are computed
once and cached, the classifier reads [u, v, |u-v|, u*v]; the output directory (head.json +
nli_classifier.*) is what `xprobe xnli --head` and `xprobe map --nli-head` read. Train it on
SNLI/MultiNLI or on the XNLI dev split of the source language.

Examples:
  xprobe train-nli --encoder bilstm-max --vectors en.vec \\
      --train snli_1.0_train.jsonl.gz --dev snli_1.0_dev.jsonl.gz --test snli_1.0_test.jsonl.gz \\
      --out models/en-bilstm-max
  xprobe train-nli --frozen st:models/all-MiniLM-L6-v2 --train snli_1.0_dev.jsonl.gz \\
      --dev xnli/dev-en.tsv --out heads/minilm
"""

from __future__ import annotations

import argparse
import json

from xprobe.commands.argtypes import device_name

HELP = "train a sentence encoder on NLI (InferSent style)"

SIZE_FLAGS = {
    "hidden": (int, "LSTM units per direction (bilstm/attn; default 512)"),
    "layers": (int, "LSTM layers (bilstm/attn; default 2)"),
    "dropout": (float, "dropout between LSTM layers (bilstm/attn; default 0.1)"),
    "attn_dim": (int, "attention MLP size (attn; default 150)"),
    "heads": (int, "attention heads (attn; default 60)"),
    "channels": (int, "filters per width (cnn; default 800)"),
    "proj_dim": (int, "output projection size (cnn; default 1024)"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from xprobe.encoders.neural import ARCHITECTURES

    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--encoder", choices=ARCHITECTURES, help="architecture to train")
    which.add_argument(
        "--frozen",
        metavar="SPEC",
        help="train only an NLI head on this frozen encoder (any --encoder SPEC of probe)",
    )
    parser.add_argument("--vectors", help="fastText word vectors, .vec or .bin (with --encoder)")
    parser.add_argument("--train", required=True, nargs="+", help="training pair file(s)")
    parser.add_argument("--dev", required=True, help="dev pair file (early stopping)")
    parser.add_argument("--test", help="test pair file: accuracy of the best model is reported")
    parser.add_argument("--out", required=True, help="output directory (the trained encoder)")
    parser.add_argument("--epochs", type=int, help="maximum epochs (default 10; head: 30)")
    parser.add_argument("--batch-size", type=int, default=64, help="pairs per step (default 64)")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (1e-3)")
    parser.add_argument(
        "--patience", type=int, help="stop after N epochs without a dev gain (2; head: 3)"
    )
    parser.add_argument("--max-train", type=int, help="use only the first N training pairs")
    for name, (kind, text) in SIZE_FLAGS.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=kind, help=text)
    parser.add_argument(
        "--classifier-hidden", type=int, default=512, help="NLI MLP hidden size (512)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for init and order (0)")
    parser.add_argument(
        "--device",
        type=device_name,
        default="auto",
        help="auto (CUDA when present), cpu, cuda or cuda:N",
    )
    parser.add_argument(
        "--threads",
        type=int,
        help="CPU threads for torch (default: torch's choice; 1 is much faster on a busy machine)",
    )
    parser.add_argument(
        "--resume", action="store_true", help="continue the run saved in --out after a crash"
    )
    parser.add_argument(
        "--lowercase", action="store_true", help="lower-case words before vector lookup"
    )
    parser.add_argument(
        "--tokenizer",
        choices=("moses", "whitespace"),
        default="moses",
        help="how sentences are split into words: Moses (sacremoses, default) or whitespace",
    )
    parser.add_argument("--lang", default="en", help="Moses tokenizer language (en)")
    parser.add_argument(
        "--cache-dir",
        help="sentence-vector cache of --frozen (default: sentence-vectors/ in the download cache)",
    )
    parser.add_argument(
        "--vocab-from",
        nargs="+",
        default=[],
        metavar="PATH",
        help="also store vectors for the words of these probing files or folders (SentEval "
        "split<TAB>label<TAB>sentence, X-Probe sentence<TAB>label, or one sentence per line), "
        "so the saved encoder covers them; the checkpoint otherwise keeps only the NLI "
        "vocabulary and skips other words (probe reports the coverage per task)",
    )


def _run_head(args: argparse.Namespace) -> int:
    from xprobe.encoders.encoder_spec import EncoderSpec
    from xprobe.errors import XProbeError
    from xprobe.nli.head import HeadConfig, train_head

    if args.vectors:
        raise XProbeError("--vectors belongs to --encoder; a --frozen encoder brings its own")
    cfg = HeadConfig(
        encoder=EncoderSpec.parse(args.frozen),  # the edge: parsed once, here
        train=list(args.train),
        dev=args.dev,
        out=args.out,
        test=args.test,
        lang=args.lang,
        tokenizer=args.tokenizer,
        epochs=args.epochs if args.epochs is not None else 30,
        batch_size=args.batch_size,
        lr=args.lr,
        patience=args.patience if args.patience is not None else 3,
        hidden=args.classifier_hidden,
        seed=args.seed,
        max_train=args.max_train,
        device=args.device,
        cache_dir=args.cache_dir,
        threads=args.threads,
    )
    summary = train_head(cfg)
    keys = ("best_dev_acc", "best_epoch", "test_acc", "pairs", "encoder_id")
    print(json.dumps({k: summary[k] for k in keys if k in summary}, sort_keys=True))
    return 0


def run(args: argparse.Namespace) -> int:
    from xprobe.errors import XProbeError
    from xprobe.nli.train import TrainConfig, train_nli

    if args.frozen:
        return _run_head(args)
    if not args.vectors:
        raise XProbeError("train-nli --encoder ARCH needs --vectors")

    sizes = {name: getattr(args, name) for name in SIZE_FLAGS if getattr(args, name) is not None}
    cfg = TrainConfig(
        arch=args.encoder,
        vectors=args.vectors,
        train=list(args.train),
        dev=args.dev,
        out=args.out,
        test=args.test,
        epochs=args.epochs if args.epochs is not None else 10,
        batch_size=args.batch_size,
        lr=args.lr,
        patience=args.patience if args.patience is not None else 2,
        max_train=args.max_train,
        sizes=sizes,
        classifier_hidden=args.classifier_hidden,
        seed=args.seed,
        device=args.device,
        resume=args.resume,
        lowercase=args.lowercase,
        tokenizer=args.tokenizer,
        lang=args.lang,
        threads=args.threads,
        vocab_from=list(args.vocab_from),
    )
    summary = train_nli(cfg)
    keys = ("best_dev_acc", "best_epoch", "epochs_run", "test_acc", "pairs")
    print(json.dumps({k: summary[k] for k in keys if k in summary}, sort_keys=True))
    return 0

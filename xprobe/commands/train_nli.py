"""Train an English sentence encoder on NLI, InferSent style (X-Probe section 5.1).

Premise and hypothesis are encoded by the same encoder over frozen word vectors; the features
[u, v, |u-v|, u*v] go into an MLP over entailment/neutral/contradiction. Adam, early stopping on
dev accuracy. The output directory holds the best encoder (config.json, encoder.pt, vocab.txt,
vectors.npy), the NLI classifier and the training state: use it as `--encoder DIR` for
`xprobe probe`/`xprobe encode` and as the frozen teacher of `xprobe map`.

Input layouts: SNLI/MultiNLI .jsonl(.gz), their .txt with a header, or plain
premise<TAB>hypothesis<TAB>label; pairs without a gold label are dropped.

Example:
  xprobe train-nli --encoder bilstm-max --vectors en.vec \\
      --train snli_1.0_train.jsonl.gz --dev snli_1.0_dev.jsonl.gz --test snli_1.0_test.jsonl.gz \\
      --out models/en-bilstm-max
"""

from __future__ import annotations

import argparse
import json

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

    parser.add_argument("--encoder", required=True, choices=ARCHITECTURES, help="architecture")
    parser.add_argument("--vectors", required=True, help="fastText word vectors, .vec or .bin")
    parser.add_argument("--train", required=True, nargs="+", help="training pair file(s)")
    parser.add_argument("--dev", required=True, help="dev pair file (early stopping)")
    parser.add_argument("--test", help="test pair file: accuracy of the best model is reported")
    parser.add_argument("--out", required=True, help="output directory (the trained encoder)")
    parser.add_argument("--epochs", type=int, default=10, help="maximum epochs (default 10)")
    parser.add_argument("--batch-size", type=int, default=64, help="pairs per step (default 64)")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (1e-3)")
    parser.add_argument(
        "--patience", type=int, default=2, help="stop after N epochs without a dev gain (2)"
    )
    parser.add_argument("--max-train", type=int, help="use only the first N training pairs")
    for name, (kind, text) in SIZE_FLAGS.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=kind, help=text)
    parser.add_argument(
        "--classifier-hidden", type=int, default=512, help="NLI MLP hidden size (512)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for init and order (0)")
    parser.add_argument(
        "--device", default="auto", help="auto (CUDA when present), cpu, cuda or cuda:N"
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
        "--vocab-from",
        nargs="+",
        default=[],
        metavar="FILE",
        help="also store vectors for the words of these tokenised text files (e.g. the probing "
        "sets), so the saved encoder covers them; the checkpoint otherwise keeps only the NLI "
        "vocabulary and skips other words",
    )


def run(args: argparse.Namespace) -> int:
    from xprobe.nli.train import TrainConfig, train_nli

    sizes = {name: getattr(args, name) for name in SIZE_FLAGS if getattr(args, name) is not None}
    cfg = TrainConfig(
        arch=args.encoder,
        vectors=args.vectors,
        train=list(args.train),
        dev=args.dev,
        out=args.out,
        test=args.test,
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        patience=args.patience,
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

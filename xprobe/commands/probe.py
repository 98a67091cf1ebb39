"""Probe a frozen sentence encoder on a folder of probing sets; append tidy records.

For each task: read the sets (SentEval files TASK.txt or X-Probe folders TASK/{tr,va,te}.txt),
encode each split through the embedding cache, train every grid point on the training split,
select on the validation split (lr solved to convergence, or --protocol senteval), and append
one record per (encoder, language, task, classifier, seed, split) to RESULTS.jsonl. Records
already present are skipped.
A set without a training split (X-Probe's released va/te) trains on va and splits te in halves
into validation and test (recorded in the record's "protocol"). Validation and test sentences
that also occur in training are removed before scoring (counted in "overlap_removed"); records
of encoders with word vectors carry "vocab_coverage" (a warning below 95% of tokens).

Encoder specs:
  bov:PATH.vec|.bin           mean of word vectors        pmeans:PATH   mean/min/max of vectors
  random:ARCH:PATH[:SEED]     untrained neural encoder    npy:FILE.npy  precomputed (file order)
  python:module:function      callable(list of token lists) -> array
  DIR                         a checkpoint from train-nli / map
  hf:PATH[OPTS]               a transformers model (directory or hub name), probed layer by
                              layer: OPTS = pooling=mean|cls|first|last, layers=all|N|A-B|N,M,
                              detok=auto|none|LANG, max_length=N, revision=REV (a hub model's
                              branch, tag or commit) (e.g. hf:xlm-r[cls,layers=0-6])
  st:PATH[OPTS]               a sentence-transformers model with its own pooling (layers=...)
  Any spec may end in [name=NAME] (or add name=NAME to its OPTS): the encoder's name in the
  records, as --name; e.g. bov:vectors/fi.vec[name=bov-fasttext].

Layer-wise encoders (hf:, st:) give one record per layer (its "layer" field; 0 = the embedding
layer); all layers come from one forward pass, are cached per layer, and every layer's
classifiers are trained together.

Examples:
  xprobe probe --encoder bov:vectors/en.vec --data probing/en --out results/en.jsonl
  xprobe probe --data probing/en --out results/en.jsonl --classifier majority length nb-unigram
  xprobe probe --encoder models/de-bilstm-max --data probing/de --out r.jsonl --seeds 3 --grid full
  xprobe probe --encoder "st:models/all-MiniLM-L6-v2" --data probing/en --out r.jsonl --threads 2
"""

from __future__ import annotations

import argparse
import logging
from collections import defaultdict

from xprobe.commands.argtypes import device_name, positive, size
from xprobe.protocol import DEFAULT_FOLDS, MAX_FOLDS, MIN_FOLDS, SPLITS_PROTOCOL

HELP = "probe an encoder on probing sets (MLP/LR with dev selection, baselines); append records"

log = logging.getLogger(__name__)


def folds(text: str) -> int:
    """A fold count for --cv: an integer from MIN_FOLDS to MAX_FOLDS."""
    try:
        k = int(text)
    except ValueError:
        k = 0
    if not MIN_FOLDS <= k <= MAX_FOLDS:
        raise argparse.ArgumentTypeError(
            f"expected a number of folds from {MIN_FOLDS} to {MAX_FOLDS}, got {text!r}"
        )
    return k


def add_arguments(p: argparse.ArgumentParser) -> None:
    from xprobe.probe.harness import CLASSIFIERS

    p.add_argument(
        "--encoder",
        metavar="SPEC",
        help="encoder spec (see above); not needed when only encoder-free baselines are requested",
    )
    p.add_argument("--data", required=True, metavar="DIR", help="folder of probing sets")
    p.add_argument("--out", required=True, metavar="RESULTS.jsonl", help="results file (appended)")
    p.add_argument(
        "--lang",
        help="language code for the records (default: manifest.json's "
        "'language'; required without a manifest, e.g. for the X-Probe release's folders)",
    )
    p.add_argument(
        "--layout",
        choices=("auto", "senteval", "hf", "xprobe"),
        default="auto",
        help="senteval: TASK.txt files; hf: an 'xprobe export datasets' folder (parquet); "
        "xprobe: TASK/{tr,va,te}.txt (default: auto)",
    )
    p.add_argument(
        "--tasks",
        nargs="+",
        metavar="TASK",
        help="tasks to probe, by short name (SentLen) or file stem (default: all)",
    )
    p.add_argument(
        "--classifier",
        nargs="+",
        choices=CLASSIFIERS,
        default=["mlp"],
        help="mlp (sigmoid hidden layer), lr, nb (Gaussian NB), rf (random forest) on "
        "embeddings; mdl-mlp / mdl-lr: the same probe plus its MDL online codelength (Voita & "
        "Titov 2020; about 2x the time of the plain probe); majority, length, nb-unigram, "
        "nb-bigram baselines need no "
        "encoder (default: mlp)",
    )
    p.add_argument(
        "--seeds",
        type=int,
        default=None,
        metavar="N",
        help="run seeds 0..N-1 (init, order, dropout, --max-train sample); default 1 (lr is "
        "solved to convergence: its seed only changes a --max-train sample)",
    )
    p.add_argument(
        "--grid",
        choices=("default", "senteval", "full", "none"),
        default="default",
        help="model selection grid on the validation split: default = L2 in "
        "1e-5..1e-1; senteval = 1e-5..1e-2 (SentEval's code); full = default x "
        "hidden {50,100,200} x dropout {0,.1,.2} (MLP); none = no L2",
    )
    p.add_argument(
        "--hidden",
        type=int,
        default=150,
        help="MLP hidden units outside the full grid (X-Probe: 150)",
    )
    p.add_argument(
        "--max-train",
        type=int,
        metavar="N",
        help="class-balanced subsample of at most N training sentences",
    )
    p.add_argument(
        "--max-dev",
        type=int,
        metavar="N",
        help="at most N validation sentences (a seeded sample, the same for every seed and "
        "encoder); only those are encoded",
    )
    p.add_argument(
        "--cv",
        type=folds,
        nargs="?",
        const=DEFAULT_FOLDS,
        metavar="K",
        help=f"cross-validation (protocol cv:K; K {MIN_FOLDS}..{MAX_FOLDS}, default "
        f"{DEFAULT_FOLDS} when --cv is given alone): the tr, va and te lines pooled and dealt "
        "to K folds (a lexical key or a sentence in one fold only, classes stratified); each "
        "fold scored by a probe trained on the others but one and selected on that one, so "
        "every line is scored exactly once. Keyed tasks (Tense, SubjNum, ObjNum, SOMO) need "
        "their provenance file (extract --provenance). Default: the splits as written",
    )
    p.add_argument(
        "--max-test",
        type=int,
        metavar="N",
        help="at most N test sentences (as --max-dev)",
    )
    p.add_argument(
        "--layer-block",
        type=positive,
        metavar="N",
        help="probe a layer-wise encoder's layers N at a time, read from the embedding cache "
        "(memory: one block's features; the same records as all at once); default: all at "
        "once when every layer's features fit --memory-budget, else as many as fit",
    )
    p.add_argument(
        "--memory-budget",
        type=size,
        metavar="SIZE",
        help="memory the features of a task's layers may take at once (e.g. 8G; default: half "
        "of the memory available); more layers than fit are streamed in blocks",
    )
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        metavar="N",
        help="torch threads for encoding and training (default 1: on a busy machine torch's "
        "default of one per core ran a probe 16x slower, same accuracies; raise it on idle cores)",
    )
    p.add_argument(
        "--lowercase",
        action="store_true",
        help="bov:/pmeans:/random: look words up lower-cased (for lower-cased vector files; "
        "without it every capitalised word is missing from such a file)",
    )
    p.add_argument(
        "--cache-dtype",
        choices=("float32", "float16"),
        default="float32",
        help="how embeddings are stored in the cache (float16 halves the disk; see "
        "BENCHMARKS.md for its effect on accuracies)",
    )
    p.add_argument(
        "--device",
        type=device_name,
        default="auto",
        help="where to encode and train: auto (cuda when available), cpu, cuda or cuda:N",
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=128,
        metavar="N",
        help="sentences per encoder call (default 128)",
    )
    p.add_argument(
        "--train-batch",
        type=int,
        default=1024,
        metavar="N",
        help="classifier minibatch size (default 1024)",
    )
    p.add_argument(
        "--lr", type=float, default=1e-3, help="classifier Adam learning rate (default 1e-3)"
    )
    p.add_argument("--max-epochs", type=int, default=60, help="mlp: passes at most (default 60)")
    p.add_argument(
        "--patience",
        type=int,
        default=5,
        help="mlp: passes without a lower validation loss before a grid point stops, after at "
        "least 10 passes (default 5)",
    )
    p.add_argument(
        "--protocol",
        choices=("converged", "senteval"),
        default="converged",
        help="converged (default): lr solved to convergence by L-BFGS (scikit-learn's "
        "LogisticRegression with C = 1/(n*l2)), mlp stopped on validation loss; senteval: "
        "SentEval's exact protocol (raw inputs, Adam, batch 64, a validation accuracy check "
        "every 4 passes, tenacity 5), for comparisons with published numbers; "
        "--train-batch/--lr/--max-epochs/--patience are then SentEval's. See docs/probing.md",
    )
    p.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="embedding cache (default: embeddings/ in the download cache, i.e. "
        "$XPROBE_CACHE/embeddings, else $XDG_CACHE_HOME/xprobe/embeddings)",
    )
    p.add_argument(
        "--force", action="store_true", help="redo work already recorded (replaces those records)"
    )
    p.add_argument(
        "--control",
        action="store_true",
        help="also train each embedding probe on the task's control (Hewitt & Liang: labels "
        "a seeded function of the lexical key for Tense/SubjNum/ObjNum/SOMO when the data has "
        "provenance files, else shuffled labels); the test record gets control_value, and the "
        "report shows selectivity = accuracy - control accuracy. Costs one more fit per probe; "
        "add --force to redo probes already recorded without it",
    )
    p.add_argument(
        "--allow-one-class",
        action="store_true",
        help="probe a task whose test or validation split holds one class only (an error "
        "otherwise: accuracy there only says how often the probe predicts that class); the "
        "records carry one_class and the report flags those cells",
    )
    p.add_argument("--name", help="encoder name in the records (default: from the spec)")
    p.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="always show progress bars (default: only on a terminal)",
    )
    p.add_argument(
        "--no-progress", dest="progress", action="store_false", help="never show progress bars"
    )
    p.add_argument(
        "--dataset",
        help="dataset name in the records (default: manifest.json's dataset, which "
        "`xprobe extract --dataset` and a study record, else the data folder's parent folder "
        "name), e.g. to compare two English datasets",
    )


def run(args: argparse.Namespace) -> int:
    import sys

    from xprobe.encoders.encoder_spec import EncoderSpec
    from xprobe.probe import cache
    from xprobe.probe.classifiers import TrainConfig
    from xprobe.probe.harness import ProbeOptions, run_probe

    cache.SHOW_PROGRESS = args.progress

    opts = ProbeOptions(
        tasks=args.tasks,
        classifiers=tuple(dict.fromkeys(args.classifier)),
        seeds=args.seeds,
        grid=args.grid,
        hidden=args.hidden,
        max_train=args.max_train,
        batch_size=args.batch_size,
        cache_dir=args.cache_dir,
        force=args.force,
        name=args.name,
        dataset=args.dataset,
        layout=args.layout,
        language=args.lang,
        device=args.device,
        threads=args.threads,
        max_dev=args.max_dev,
        max_test=args.max_test,
        lowercase=args.lowercase,
        cache_dtype=args.cache_dtype,
        layer_block=args.layer_block,
        memory_budget=args.memory_budget,
        control=args.control,
        allow_one_class=args.allow_one_class,
        protocol=f"cv:{args.cv}" if args.cv else SPLITS_PROTOCOL,
        train=TrainConfig(
            batch_size=args.train_batch,
            lr=args.lr,
            max_epochs=args.max_epochs,
            patience=args.patience,
            protocol=args.protocol,
            progress=sys.stderr.isatty() if args.progress is None else args.progress,
        ),
    )
    encoder = EncoderSpec.parse(args.encoder) if args.encoder else None  # parsed once, here
    records = run_probe(encoder, args.data, args.out, opts)
    print(summary_table(records) if records else f"nothing to do: all recorded in {args.out}")
    return 0


def summary_table(records: list[dict]) -> str:
    """Mean (± std over seeds) test accuracy in %, rows tasks, columns classifiers."""
    import numpy as np

    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    na = {(r["task"], r["classifier"]) for r in records if "not_applicable" in r}
    records = [r for r in records if "not_applicable" not in r]  # a reason, no value
    for r in records:
        if r["split"] == "test":
            cells[(r["task"], r["classifier"])].append(100 * r["value"])
    tasks = list(dict.fromkeys([*(t for t, _ in cells), *(t for t, _ in sorted(na))]))
    clfs = list(dict.fromkeys([*(c for _, c in cells), *(c for _, c in sorted(na))]))
    if any(r.get("layer") is not None for r in records):
        return layer_summary(records)
    lines = ["task".ljust(12) + "".join(c.rjust(14) for c in clfs)]
    for t in tasks:
        row = t.ljust(12)
        for c in clfs:
            v = cells.get((t, c))
            txt = "" if not v else f"{np.mean(v):.1f}" + (f"±{np.std(v):.1f}" if len(v) > 1 else "")
            txt = "n/a" if (t, c) in na else txt
            row += txt.rjust(14)
        lines.append(row)
    return "\n".join(lines)


def layer_summary(records: list[dict]) -> str:
    """Mean test accuracy in %, rows tasks, columns layers (per classifier)."""
    import numpy as np

    cells: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    for r in records:
        if r["split"] == "test" and r.get("layer") is not None:
            cells[(r["classifier"], r["task"], r["layer"])].append(100 * r["value"])
    layers = sorted({k[2] for k in cells})
    out = []
    for clf in dict.fromkeys(k[0] for k in cells):
        out.append(f"{clf}: test accuracy (%) per layer")
        out.append("task".ljust(12) + "".join(f"L{x}".rjust(7) for x in layers))
        for task in dict.fromkeys(k[1] for k in cells if k[0] == clf):
            vals = [cells.get((clf, task, x)) for x in layers]
            row = "".join((f"{np.mean(v):.1f}" if v else "").rjust(7) for v in vals)
            out.append(task.ljust(12) + row)
    return "\n".join(out)

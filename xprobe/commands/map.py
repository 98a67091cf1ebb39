"""Map an English sentence encoder to another language (X-Probe section 5.2).

A student encoder (same architecture as the frozen English teacher from `xprobe train-nli`, random
initialisation, over the mapped target word vectors from `xprobe map-vectors`) learns to give a
target sentence the teacher's vector of its English translation, with the loss
||x - y||^2 - lambda (||x_c - y||^2 + ||x - y_c||^2) over in-batch contrastive sentences.
After each epoch it reports XNLI dev accuracy in the target language (the teacher's NLI classifier
on the student's vectors; the stopping rule, patience 2), the MSE to the teacher and translation
retrieval accuracy on held-out pairs. The output directory is an encoder for `xprobe probe`.

Settings come from a recipe (mapping/en-xx.toml via --pair, or --recipe FILE; data paths in it are
relative to --data-dir) and/or flags; a flag overrides the recipe. When the recipe's mapped vectors
do not exist yet but its [vectors] section names source, target and dictionary, the word vectors
are mapped first.

With --student, the teacher is any frozen encoder spec (st:PATH, hf:PATH, a train-nli directory,
bov:...) and the student is a transformer initialised from a directory (--student hf:PATH with its
own --pooling, or st:PATH for a whole sentence-transformers pipeline, e.g. the teacher itself;
--projection adds a layer to the teacher's size when the dimensions differ) or an X-Probe
architecture over --vectors (--student bilstm-max). One trainer,
one loss (--lambda 0 is Reimers & Gurevych's plain MSE). The teacher's vectors of the English
side are computed once, in the shared sentence-vector cache (--cache-dir), so a second run or
a second student encodes nothing; a student that cannot read the target text (mapped vectors of
another language, a tokenizer mapping most words to unknown) is refused before training. XNLI
dev accuracy with --nli-head (from `train-nli --frozen TEACHER`) and --xnli-dev is the stopping
rule, else held-out MSE. A run killed at any point continues with --resume to the same student.
A transformer student is saved as a sentence-transformers directory (probe it as st:OUT, or layer
by layer as hf:OUT); its xprobe_student.json names the teacher (fields teacher, teacher_id).

Examples:
  xprobe map --pair en-de                   # data from the `xprobe download` cache
  xprobe map --teacher st:models/minilm --student hf:models/minilm --parallel ep.en ep.de \
      --target-lang de --nli-head heads/minilm --xnli-dev xnli/dev-de.tsv --out models/de-minilm
  xprobe map --teacher models/en-bilstm-max --vectors de.mapped.vec --teacher-vectors en.vec \\
      --parallel ep.en ep.de --xnli-dev xnli/dev-de.tsv --target-lang de --out models/de-bilstm-max
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from xprobe.commands.argtypes import device_name

HELP = "map an English encoder to a target language on parallel text (XNLI early stopping)"

log = logging.getLogger(__name__)


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("recipe")
    g.add_argument("--pair", help="use the recipe mapping/PAIR.toml, e.g. en-de")
    g.add_argument("--recipe", help="use this recipe TOML file instead")
    g.add_argument(
        "--data-dir",
        help="root of the recipe's data paths "
        "(default: its data_dir, else the `xprobe download` cache)",
    )
    g = p.add_argument_group("inputs (override the recipe)")
    g.add_argument(
        "--teacher",
        help="frozen English encoder: a `train-nli` directory; with --student any encoder SPEC",
    )
    g.add_argument("--vectors", help="mapped target word vectors (.vec from `xprobe map-vectors`)")
    g.add_argument(
        "--teacher-vectors",
        help="the full English .vec the teacher was trained with (its words and values are "
        "checked), so the teacher knows the words of the corpus and not only its NLI vocabulary",
    )
    par = g.add_mutually_exclusive_group()
    par.add_argument(
        "--parallel", nargs=2, metavar=("SRC", "TGT"), help="aligned English/target files"
    )
    par.add_argument("--parallel-tsv", help="one 'english<TAB>target' file instead of --parallel")
    g.add_argument("--xnli-dev", help="XNLI dev file: official xnli.dev.tsv or premise/hyp/label")
    g.add_argument("--xnli-dev-en", help="English XNLI dev, to report the teacher's accuracy")
    g.add_argument(
        "--xnli-language", help="language kept from an official XNLI file (default: target)"
    )
    g.add_argument("--source-lang", help="source language code (default en)")
    g.add_argument("--target-lang", help="target language code (tokeniser, XNLI filter)")
    g.add_argument("--out", help="output encoder directory")
    g = p.add_argument_group("training (override the recipe)")
    g.add_argument(
        "--lambda", dest="lam", type=float, help="contrastive weight, 0 <= lambda < 0.5 (0.25)"
    )
    g.add_argument("--epochs", type=int, help="maximum epochs (default 10)")
    g.add_argument("--patience", type=int, help="stop after N epochs without XNLI gain (default 2)")
    g.add_argument("--batch-size", type=int, help="pairs per step (default 64; 32 with --student)")
    g.add_argument("--lr", type=float, help="Adam learning rate (0.001; 2e-5 for an hf: student)")
    g.add_argument("--seed", type=int, help="seed for initialisation, shuffling, negatives (1)")
    g.add_argument("--heldout", type=int, help="pairs held out for MSE and retrieval (1000)")
    g.add_argument("--max-pairs", type=int, help="use at most N filtered pairs (default all)")
    g.add_argument("--min-length", type=int, help="minimum tokens per side (1)")
    g.add_argument("--max-length", type=int, help="maximum tokens per side (50)")
    g.add_argument("--max-ratio", type=float, help="maximum length ratio of a pair (3.0)")
    g.add_argument(
        "--keep-vocab",
        type=int,
        help="also keep the N most frequent mapped words in the output encoder, beyond the "
        "corpus and XNLI words, so probing sentences find vectors (100000; 0 = none)",
    )
    g.add_argument("--max-xnli", type=int, help="use only the first N XNLI dev pairs")
    g = p.add_argument_group("distillation from any teacher (with --student)")
    g.add_argument(
        "--student",
        help="hf:PATH (transformer initialised from PATH, --pooling on top), st:PATH (a whole "
        "sentence-transformers pipeline, e.g. the st: teacher itself) or an architecture",
    )
    g.add_argument("--pooling", choices=("mean", "cls", "max"), help="transformer pooling (mean)")
    g.add_argument(
        "--projection",
        action="store_true",
        help="add a linear layer to the teacher's dimension when the student's differs",
    )
    g.add_argument("--nli-head", help="NLI head on the teacher (train-nli --frozen TEACHER)")
    g.add_argument(
        "--eval-every", type=int, help="evaluate and save state every N steps (default: epoch)"
    )
    g.add_argument(
        "--max-steps", type=int, help="stop after N steps (evaluated; default: --epochs decide)"
    )
    g.add_argument(
        "--length-batches",
        action=argparse.BooleanOptionalAction,
        help="batches of similar length, less padding (default: on for hf:/st: students)",
    )
    g.add_argument("--max-seq-length", type=int, help="transformer student's subword limit (128)")
    g.add_argument(
        "--lowercase",
        action="store_true",
        default=None,
        help="architecture student: look target words up lower-cased (vectors trained on "
        "lower-cased text; default: as the teacher's vectors, else cased)",
    )
    g.add_argument("--hidden", type=int, help="architecture student: LSTM units (teacher dim/2)")
    g.add_argument(
        "--cache-dir",
        help="teacher-vector cache (default: sentence-vectors/ in the download cache, shared "
        "with train-nli --frozen and xprobe xnli)",
    )
    g.add_argument(
        "--min-coverage",
        type=float,
        help="refuse a student that reads less than this share of the target tokens (0.5)",
    )
    p.add_argument(
        "--device", type=device_name, default="auto", help="auto, cpu or cuda[:N] (default auto)"
    )
    p.add_argument(
        "--threads",
        type=int,
        default=0,
        help="torch CPU threads (default: torch's choice; 1 is often faster on a busy machine)",
    )
    p.add_argument("--resume", action="store_true", help="continue the run saved in --out")


_FLAG_FIELDS = (
    "teacher", "student", "vectors", "teacher_vectors", "xnli_dev", "xnli_dev_en",
    "xnli_language", "source_lang", "target_lang", "out", "lam", "epochs", "patience",
    "batch_size", "lr", "seed", "heldout", "max_pairs", "min_length", "max_length", "max_ratio",
    "keep_vocab", "max_xnli", "min_coverage", "pooling", "nli_head", "eval_every",
    "max_seq_length", "cache_dir", "lowercase", "max_steps", "length_batches",
)  # fmt: skip


def _from_recipe(args: argparse.Namespace) -> dict[str, Any]:
    """MapConfig fields from the recipe (empty when none is given)."""
    from xprobe.mapping.recipes import load_recipe

    name = args.recipe or args.pair
    if not name:
        return {}
    r = load_recipe(name)
    at = lambda rel: r.path_of(rel, args.data_dir)  # noqa: E731
    fields: dict[str, Any] = {
        "teacher": r.teacher, "vectors": at(r.vectors.mapped),
        "teacher_vectors": at(r.vectors.source),
        "xnli_dev": at(r.stopping.xnli_dev), "xnli_dev_en": at(r.stopping.xnli_dev_en),
        "xnli_language": r.stopping.language, "source_lang": r.source_lang,
        "target_lang": r.target_lang, "out": r.out, "lam": r.training.lam,
        "epochs": r.training.epochs, "patience": r.stopping.patience,
        "batch_size": r.training.batch_size, "lr": r.training.lr, "seed": r.training.seed,
        "heldout": r.parallel.heldout, "max_pairs": r.parallel.max_pairs or None,
        "min_length": r.parallel.min_length, "max_length": r.parallel.max_length,
        "max_ratio": r.parallel.max_ratio, "max_vocab": r.vectors.max_vocab,
        "parallel_src": at(r.parallel.src), "parallel_tgt": at(r.parallel.tgt),
        "parallel_tsv": at(r.parallel.tsv), "recipe": r, "student": r.student,
        "pooling": r.pooling, "projection": r.projection or None,
        "nli_head": r.stopping.nli_head,
    }  # fmt: skip
    if r.student and r.stopping.metric == "heldout_mse":
        fields["xnli_dev"] = None  # held-out MSE stops the run
    return {k: v for k, v in fields.items() if v not in ("", None)}


def _map_words_first(recipe, data_dir: str | None, out: str, max_vocab: int) -> None:
    """Run map-vectors for a recipe whose mapped vectors are missing."""
    from xprobe.encoders.vectors import load_vectors
    from xprobe.errors import XProbeError
    from xprobe.files import write_json
    from xprobe.mapping.words import map_vectors, read_dictionary, write_vectors

    v = recipe.vectors
    if not (v.source and v.target and v.dictionary):
        raise XProbeError(f"{out}: mapped vectors not found, and the recipe cannot make them")
    at = lambda rel: recipe.path_of(rel, data_dir)  # noqa: E731
    log.info("mapped vectors %s missing: mapping %s first", out, at(v.target))
    src = load_vectors(at(v.source), max_words=max_vocab)
    tgt = load_vectors(at(v.target), max_words=max_vocab)
    test = read_dictionary(at(v.test_dictionary)) if v.test_dictionary else None
    result = map_vectors(src, tgt, read_dictionary(at(v.dictionary)), test_pairs=test)
    write_vectors(out, result.mapped)
    write_json(str(Path(out).with_suffix(".json")), result.report)


def _missing(fields: dict[str, Any]) -> list[str]:
    """The flags a run still needs: X-Probe's own form also needs --vectors and --xnli-dev."""
    need = ["teacher", "out", "target_lang"]
    if not fields.get("student"):
        need += ["vectors", "xnli_dev"]
    missing = [f"--{n.replace('_', '-')}" for n in need if n not in fields]
    if not ("parallel_src" in fields or "parallel_tsv" in fields):
        missing.append("--parallel")
    return missing


def _out_name(fields: dict[str, Any]) -> str:
    """Recipes write models/de-{arch}: one output per teacher architecture (or student)."""
    from xprobe.errors import XProbeError

    student = fields.get("student")
    if student:
        return fields["out"].replace("{arch}", getattr(student, "path", student).rpartition("/")[2])
    teacher = fields["teacher"]
    if not teacher.provenance.arch:
        raise XProbeError(f"--teacher {teacher.shown}: not an xprobe encoder checkpoint (an out "
                          "folder with {arch} is named after its architecture)")  # fmt: skip
    return fields["out"].replace("{arch}", teacher.provenance.arch)


def build_config(args: argparse.Namespace):
    """The MapConfig of the recipe overridden by the flags given (one for every form)."""
    from xprobe.errors import XProbeError
    from xprobe.mapping.config import MapConfig

    fields = _from_recipe(args)
    recipe, max_vocab = fields.pop("recipe", None), fields.pop("max_vocab", 200000)
    for name in _FLAG_FIELDS:
        if getattr(args, name, None) is not None:
            fields[name] = getattr(args, name)
    if args.parallel or args.parallel_tsv:
        for name in ("parallel_src", "parallel_tgt", "parallel_tsv"):
            fields.pop(name, None)
        if args.parallel:
            fields["parallel_src"], fields["parallel_tgt"] = args.parallel
        else:
            fields["parallel_tsv"] = args.parallel_tsv
    missing = _missing(fields)
    if missing:
        form = "map --student" if fields.get("student") else "map"
        raise XProbeError(
            f"{form} needs {', '.join(missing)} (from flags or a recipe: --pair en-xx)"
        )
    from xprobe.encoders.encoder_spec import EncoderSpec, student_spec

    fields["teacher"] = EncoderSpec.parse(fields["teacher"])  # the edge: parsed once, here
    if fields.get("student"):
        fields["student"] = student_spec(fields["student"])
    wants_vectors = not isinstance(fields.get("student"), EncoderSpec)
    vec = fields.get("vectors")
    if recipe is not None and wants_vectors and vec and not Path(vec).exists():
        _map_words_first(recipe, args.data_dir, fields["vectors"], max_vocab)
    if "{arch}" in fields["out"]:
        fields["out"] = _out_name(fields)
    if args.hidden is not None:
        fields["sizes"] = {"hidden": args.hidden}
    fields.update(device=args.device, resume=args.resume, threads=args.threads)
    fields["projection"] = bool(args.projection or fields.get("projection"))
    if recipe is not None:
        fields["extra"] = {"recipe": recipe.path}
    return MapConfig(**fields)


def run(args: argparse.Namespace) -> int:
    from xprobe.mapping.trainer import map_encoder

    cfg = build_config(args)
    summary = map_encoder(cfg)
    best = summary["best"]
    line = f"best at epoch {best['epoch']} (step {best['step']}): "
    if "xnli_acc" in best:
        line += f"XNLI {cfg.target_lang} dev acc {best['xnli_acc']:.4f}, "
    line += (
        f"held-out MSE {best['heldout_mse']:.5f}, retrieval xx->en {best['retrieval_xx_en']:.3f} "
        f"en->xx {best['retrieval_en_xx']:.3f}"
    )
    if "teacher_xnli_en_acc" in summary:
        line += f"; teacher XNLI en acc {summary['teacher_xnli_en_acc']:.4f}"
    print(f"{line}; {summary['speed']['steps_per_s']} steps/s; wrote {cfg.out}")
    return 0

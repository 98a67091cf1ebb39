"""Build the nine probing sets of a language from CoNLL-U parses, or check a built directory.

Two passes over the input: a frequency pass (word and bigram counts), then a selection pass that
offers every sentence of 5..28 surface tokens to every task. Writes DIR/<task>.txt in SentEval
format (split<TAB>label<TAB>sentence; tr, va, te in that order) and DIR/manifest.json (sizes,
parameters, input hashes, counts). Same inputs and seed give byte-identical files.

Selection: classes are balanced within each split (equal counts, a remainder to the first labels)
and within strata (TreeDepth: every depth class has the same count in each length bin); lexical
keys (Tense verb form, SubjNum/ObjNum noun form, SOMO replacement) occur in one split only; a
source sentence feeds at most one task and never appears twice in one, and tasks with the fewest
candidates pick first. The sample is a seeded random one, independent of corpus order; memory is
bounded by the sizes asked, not the corpus. A task that cannot be filled is an error listing per
split and class what was found; --allow-partial writes what there is, still balanced.

Examples:
  xprobe extract --lang en --out probing/en work/en/parsed/*.conllu.gz
  xprobe extract --lang de --out probing/de --tasks SentLen BShift --sizes 1000,100,100 de.conllu
  xprobe extract --lang en --out p --param tree_depth.min_depth=4 --allow-partial en.conllu
  xprobe extract --check probing/en
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from xprobe.errors import XProbeError

HELP = "build the probing sets (SentEval format) from CoNLL-U parses"

log = logging.getLogger(__name__)


def _sizes(text: str) -> tuple[int, int, int]:
    parts = text.split(",")
    try:
        values = tuple(int(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != 3 or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(
            f"expected TR,VA,TE (three non-negative integers), got {text!r}"
        )
    return values  # type: ignore[return-value]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "conllu",
        nargs="*",
        metavar="CONLLU",
        help="CoNLL-U input files, plain or .gz; '-' reads stdin (spooled to a "
        "temporary file in DIR, since two passes are needed)",
    )
    parser.add_argument("--lang", help="language profile: a code (en, de...) or a .toml path")
    parser.add_argument("--out", type=Path, metavar="DIR", help="output directory")
    parser.add_argument(
        "--tasks",
        nargs="+",
        metavar="T",
        help="tasks to build, by name (SentLen) or file (sentence_length); default: all. "
        "CoNLL-U files may come before or after it: an existing file here is read as input",
    )
    parser.add_argument(
        "--sizes",
        type=_sizes,
        default=(100_000, 10_000, 10_000),
        metavar="TR,VA,TE",
        help="sentences per split (default 100000,10000,10000)",
    )
    parser.add_argument(
        "--seed", type=int, default=1111, help="seed of every random choice (default 1111)"
    )
    parser.add_argument(
        "--allow-partial",
        action="store_true",
        help="write a task that cannot be filled with what was found (still "
        "balanced) and mark it partial, instead of failing",
    )
    parser.add_argument(
        "--no-exclusive",
        action="store_true",
        help="let one source sentence feed several tasks (default: at most one)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="TASK.NAME=VALUE",
        help="set a task parameter, overriding the profile's [tasks.<file>]; "
        "e.g. past_present.min_freq=50, or subj_number.min_per_million=5 for a window "
        "relative to corpus size (small corpora: docs/tasks.md); lists are "
        "comma-separated; repeatable",
    )
    parser.add_argument(
        "--on-error",
        choices=("raise", "skip"),
        default="raise",
        help="malformed sentence: stop with its file and line (raise, default) "
        "or skip it and count it in the manifest (skip)",
    )
    parser.add_argument(
        "--provenance",
        action="store_true",
        help="also write DIR/<task>.provenance.tsv, aligned with each task "
        "file: split, label, source file, line, sent_id, key",
    )
    _add_selection_arguments(parser)


def _add_selection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--min-tokens",
        type=int,
        default=None,
        metavar="N",
        help="shortest sentence used, in surface tokens (default: the profile's, else 5; "
        'a profile with length = "auto" derives it from the corpus, docs/languages.md)',
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        metavar="N",
        help="longest sentence used, in surface tokens (default: the profile's, else 28)",
    )
    parser.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="always show progress bars (default: only on a terminal)",
    )
    parser.add_argument(
        "--no-progress", dest="progress", action="store_false", help="never show progress bars"
    )
    parser.add_argument(
        "--check",
        type=Path,
        metavar="DIR",
        help="instead of extracting, validate the directory DIR "
        "(format, split order, balance, repeats, keys, manifest, empty or "
        "one-class splits, leftovers of a killed run); exit 1 on problems; "
        "splits below a useful size are printed as warnings",
    )


def parse_params(items: list[str]) -> dict[str, dict[str, str]]:
    """``["task.name=value", ...]`` -> ``{task: {name: value}}``."""
    out: dict[str, dict[str, str]] = {}
    for item in items:
        target, eq, value = item.partition("=")
        task, dot, name = target.partition(".")
        if not (eq and dot and task and name):
            raise XProbeError(
                f"--param {item!r}: expected TASK.NAME=VALUE, e.g. tree_depth.max_depth=8"
            )
        out.setdefault(task, {})[name] = value
    return out


def _take_files_from_tasks(args: argparse.Namespace) -> None:
    """``--tasks SentLen Tense corpus.conllu`` swallows the file: take it back as an input.

    An existing path in the task list is read as a CoNLL-U input (said in a log line); a
    path-like name that does not exist is an error, not an unknown task."""
    if not args.tasks:
        return
    tasks = []
    for name in args.tasks:
        if name == "-" or Path(name).exists():
            log.warning("%s given after --tasks is an existing file: read as a CoNLL-U input", name)
            args.conllu = [*args.conllu, name]
        elif "/" in name or name.endswith((".conllu", ".gz", ".txt")):
            raise XProbeError(
                f"--tasks {name}: no such file, and not a task name (put CoNLL-U files before "
                "--tasks, or after it once the file exists)"
            )
        else:
            tasks.append(name)
    args.tasks = tasks or None


def run(args: argparse.Namespace) -> int:
    if args.check is not None:
        from xprobe.extract.check import check_probing_dir, not_applicable

        warnings: list[str] = []
        problems = check_probing_dir(args.check, warnings)
        for file, reason in not_applicable(args.check).items():
            print(f"{file}: n/a ({reason})")
        for p in problems:
            print(p)
        for w in warnings:
            print(f"warning: {w}")
        if problems:
            log.error("%s: %d problem(s), %d warning(s)", args.check, len(problems), len(warnings))
            return 1
        if warnings:
            log.warning("%s: consistent, but %d warning(s)", args.check, len(warnings))
            return 0
        log.info("%s: ok", args.check)
        return 0
    _take_files_from_tasks(args)
    if not args.lang or args.out is None or not args.conllu:
        raise XProbeError(
            "extract needs --lang, --out and at least one CoNLL-U file (or --check DIR)"
        )
    from xprobe.extract.pipeline import ExtractConfig, extract

    config = ExtractConfig(
        lang=args.lang,
        out=args.out,
        inputs=list(args.conllu),
        tasks=args.tasks,
        sizes=args.sizes,
        seed=args.seed,
        allow_partial=args.allow_partial,
        exclusive=not args.no_exclusive,
        params=parse_params(args.param),
        on_error=args.on_error,
        provenance=args.provenance,
        min_tokens=args.min_tokens,
        max_tokens=args.max_tokens,
        progress=args.progress,
    )
    manifest = extract(config)
    partial = [t for t, e in manifest["tasks"].items() if e.get("partial")]
    na = {t: e["reason"] for t, e in manifest["tasks"].items() if e.get("applicable") is False}
    log.info(
        "wrote %d task file(s) to %s%s%s",
        len(manifest["tasks"]) - len(na),
        args.out,
        f"; partial: {', '.join(partial)}" if partial else "",
        f"; not applicable: {', '.join(na)}" if na else "",
    )
    return 0

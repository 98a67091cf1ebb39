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

--treebank (a gold treebank of some thousand sentences): every task takes all the lines its
balanced candidates fill, split --ratio (80,10,10), tasks share source sentences (never within a
task), sentences of any length from --min-tokens on are read (SentLen and TreeDepth keep their
maximum), and a task whose test split would hold fewer than --min-test (100) lines is n/a with
its counts (docs/tasks.md, "Small corpora"). `xprobe profile draft` prints this command. With
--protocol cv:K (what studies/ud.toml uses) every line will be scored once in K folds: no
--min-test, a task is n/a only below the cross-validation floor, provenance always written.

Examples:
  xprobe extract --lang en --out probing/en work/en/parsed/*.conllu.gz
  xprobe extract --lang de --out probing/de --tasks SentLen BShift --sizes 1000,100,100 de.conllu
  xprobe extract --lang en --out p --param tree_depth.min_depth=4 --allow-partial en.conllu
  xprobe extract --check probing/en
  xprobe extract --treebank --lang sv --out probing/sv sv_talbanken-ud-dev.conllu sv-test.conllu
  xprobe extract --treebank --protocol cv:10 --lang sv --out probing/sv sv_talbanken-ud-*.conllu
  xprobe extract --lang de --out probing/de --sizes 10000,1000,1000 --allow-partial \
      --from-text dewiki.xml.bz2 --parsed work/de/parsed --model de.udpipe --workers 2

--from-text parses a dump or text in rounds (into --parsed, resumable) until every task can be
filled or the input ends, then extracts once (docs/tasks.md, "Parsing in rounds"). Frequency
windows: --windows auto (default) gives them per million tokens on a corpus smaller than the one
the absolute counts were written for (windows_tokens), absolute counts from that size on.
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
        "--dataset", metavar="NAME",
        help="the dataset's name, recorded in manifest.json: `xprobe probe` on this folder "
        "records it (a study passes its [study] dataset)",
    )  # fmt: skip
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
    parser.add_argument(
        "--windows",
        choices=("auto", "absolute", "per-million"),
        default="auto",
        help="frequency windows of Tense, SubjNum, ObjNum, SOMO: absolute counts, per million "
        "tokens, or auto (default): per million on a corpus below the size the counts were "
        "written for (the task's windows_tokens), absolute from it on",
    )
    _add_selection_arguments(parser)
    _add_treebank_arguments(parser)
    _add_round_arguments(parser)


def _add_treebank_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("treebank mode (a small gold corpus)")
    group.add_argument(
        "--treebank",
        action="store_true",
        help="for a gold treebank: size every task from what the input can fill (all its "
        "balanced candidates, split in --ratio, at most --sizes per split); tasks share source "
        "sentences (never within a task); every sentence from --min-tokens on is read (the "
        "length-binned SentLen and TreeDepth keep their maximum); a task whose test split "
        "would fall below --min-test lines is n/a (the corpus is too small)",
    )
    group.add_argument(
        "--min-test",
        type=int,
        default=None,
        metavar="N",
        help="treebank mode under --protocol tr/va/te: fewest test lines a task may have "
        "(default 100); a task short of it at --ratio gets N test (and validation) lines while "
        "training keeps at least as many, else it is n/a",
    )
    group.add_argument(
        "--protocol",
        default="tr/va/te",
        metavar="P",
        help="treebank mode: how the folder will be probed. tr/va/te (default): the test split "
        "is scored, --min-test holds; cv:K (cv = cv:10): every line is scored once in K folds "
        "(xprobe probe --cv K), so a task keeps all its balanced lines and is n/a "
        "only below the cross-validation floor (97 lines, a 95%% interval of at most +/-10 "
        "points at 50%%, and K lines per class); implies --provenance (the folds read its keys)",
    )
    group.add_argument(
        "--ratio",
        type=_sizes,
        default=(80, 10, 10),
        metavar="TR,VA,TE",
        help="treebank mode: proportions of the splits (default 80,10,10)",
    )


def _add_round_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("parsing in rounds (instead of CONLLU inputs)")
    group.add_argument(
        "--from-text",
        nargs="+",
        metavar="INPUT",
        help="dumps (.xml[.bz2]), wikiextractor output or text, as 'xprobe corpus' reads them: "
        "parsed in rounds into --parsed until every task can be filled or the input ends",
    )
    group.add_argument("--parsed", type=Path, metavar="DIR", help="folder of the parsed shards")
    group.add_argument("--model", type=Path, metavar="FILE.udpipe", help="UDPipe 1 model")
    group.add_argument("--workers", type=int, default=1, metavar="N", help="parser processes (1)")
    group.add_argument(
        "--shard-size", type=int, default=10_000, metavar="N", help="sentences per shard (10000)"
    )
    group.add_argument(
        "--first-round", type=int, default=20_000, metavar="N", help="sentences parsed first"
    )
    group.add_argument(
        "--max-sentences", type=int, metavar="N", help="parse at most N sentences (default: all)"
    )
    group.add_argument(
        "--no-tag-filter",
        action="store_true",
        help="parse every sentence of every round (default: after the first round, tag first and "
        "parse only the sentences whose tags can make a candidate of a task still short)",
    )


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
        from xprobe.extract.check import check_probing_dir, not_applicable_kinds
        from xprobe.languages import na_text

        warnings: list[str] = []
        problems = check_probing_dir(args.check, warnings)
        for file, (reason, kind) in not_applicable_kinds(args.check).items():
            print(f"{file}: n/a ({na_text(reason, kind)})")
        for p in problems:
            print(p)
        for w in warnings:
            print(f"warning: {w}")
        for line in _yield_summary(args.check) + _protocol_lines(args.check):
            print(line)
        if problems:
            log.error("%s: %d problem(s), %d warning(s)", args.check, len(problems), len(warnings))
            return 1
        if warnings:
            log.warning("%s: consistent, but %d warning(s)", args.check, len(warnings))
            return 0
        log.info("%s: ok", args.check)
        return 0
    _take_files_from_tasks(args)
    if args.from_text and (args.conllu or args.parsed is None):
        raise XProbeError("--from-text takes no CoNLL-U inputs and needs --parsed DIR")
    if args.from_text and args.treebank:
        raise XProbeError("--treebank reads gold CoNLL-U files: it takes no --from-text")
    if not args.lang or args.out is None or not (args.conllu or args.from_text):
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
        windows=args.windows,
        treebank=args.treebank,
        min_test=_min_test(args),
        protocol=args.protocol,
        ratio=args.ratio,
        dataset=args.dataset,
    )
    if args.from_text:
        from xprobe.corpus.stopping import Stopped, stop_on_signals

        try:
            with stop_on_signals():
                manifest = _build_from_text(args, config)
        except Stopped as e:
            log.error("stopped by %s; the shards parsed so far are kept in %s: resume with the "
                      "same command", e, args.parsed)  # fmt: skip
            return e.exit_status
    else:
        manifest = extract(config)
    partial = [t for t, e in manifest["tasks"].items() if e.get("partial")]
    na = {t: e["reason"] for t, e in manifest["tasks"].items() if e.get("applicable") is False}
    if na and len(na) == len(manifest["tasks"]):
        log.warning("%s: no task file written: every task is n/a (see manifest.json)", args.out)
    log.info(
        "wrote %d task file(s) to %s%s%s",
        len(manifest["tasks"]) - len(na),
        args.out,
        f"; partial: {', '.join(partial)}" if partial else "",
        f"; not applicable: {', '.join(na)}" if na else "",
    )
    return 0


def _min_test(args: argparse.Namespace) -> int:
    """``--min-test`` (100 when not given); refused under ``--protocol cv:K``, whose floor is
    the cross-validation one."""
    from xprobe.protocol import parse_protocol

    if args.min_test is not None and parse_protocol(args.protocol).cv:
        raise XProbeError(
            f"--min-test is the test split's floor under --protocol tr/va/te; under "
            f"--protocol {args.protocol} every line is scored and the floor is the "
            "cross-validation one (xprobe.protocol.cv_floor): drop --min-test"
        )
    return 100 if args.min_test is None else args.min_test


def _protocol_lines(directory: Path) -> list[str]:
    """What ``extract --check`` says a cross-validated folder scores: every line of each task."""
    import json

    try:
        manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    from xprobe.extract.check import cv_folds

    folds = cv_folds(manifest)
    if folds is None:
        return []
    protocol, out = f"cv:{folds}", []
    for file, entry in sorted(manifest.get("tasks", {}).items()):
        if entry.get("applicable", True) is False:
            continue
        lines = sum((s or {}).get("total", 0) for s in entry.get("written", {}).values())
        out.append(
            f"{file}: {lines} lines scored under {protocol} (tr+va+te, each line once; the "
            "splits are the file format, not the test set)"
        )
    return out


def _yield_summary(directory: Path) -> list[str]:
    import json

    from xprobe.extract.yields import yield_lines

    try:
        manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return yield_lines(manifest, na=False)  # the n/a tasks are listed above, by file


def _corpus_window(args: argparse.Namespace) -> tuple[int, int]:
    """The corpus stage's token window: what extract will use (xprobe.extract.length)."""
    from xprobe.extract.length import corpus_window
    from xprobe.languages import load_profile

    p = load_profile(args.lang)
    window = (p.min_tokens, p.max_tokens)
    return corpus_window(p.length, window, (args.min_tokens, args.max_tokens))


def _build_from_text(args: argparse.Namespace, config: object) -> dict:
    from xprobe.corpus.filters import FilterConfig
    from xprobe.corpus.pipeline import CorpusConfig
    from xprobe.extract.rounds import Rounds, build_language

    window = _corpus_window(args)
    corpus = CorpusConfig(
        lang=args.lang,
        out=args.parsed,
        inputs=tuple(Path(p) for p in args.from_text),
        model=args.model,
        workers=args.workers,
        shard_size=args.shard_size,
        filters=FilterConfig(min_tokens=window[0], max_tokens=window[1]),
        progress=bool(args.progress),
    )
    rounds = Rounds(
        first=args.first_round, limit=args.max_sentences, tag_filter=not args.no_tag_filter
    )
    return build_language(corpus, config, rounds)  # type: ignore[arg-type]

"""Draft a language profile from a gold treebank, for a person to review.

`xprobe profile draft CONLLU... --code xx --out xx.toml` reads the treebank and writes a
commented profile: the Tense, Number, VerbForm and Aspect values used (with counts), the
relations marking subjects, objects and coordination, the quotes and sentence-final punctuation
found, the token-length distribution, the corpus size the frequency windows are scaled to, and
per task whether it can apply (the task's own rule run on the treebank) with the reason when it
cannot. The report is printed. An existing file is never overwritten without --force.

Example:
  xprobe profile draft ud/sv/sv_talbanken-ud-dev.conllu ud/sv/sv_talbanken-ud-test.conllu \
      --code sv --name Swedish --out languages/sv.toml
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from xprobe.errors import XProbeError

HELP = "draft a language profile (languages/xx.toml) from a gold UD treebank"

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("draft",), help="draft: write a profile")
    parser.add_argument("conllu", nargs="+", metavar="CONLLU", help="gold CoNLL-U files")
    parser.add_argument("--code", required=True, help="language code (the profile's name)")
    parser.add_argument("--name", default="", help="language name (default: the code)")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE", help="TOML to write")
    parser.add_argument("--force", action="store_true", help="overwrite an existing profile")
    parser.add_argument(
        "--allow-no-feats",
        action="store_true",
        help="draft a treebank that does not annotate FEATS (the Tense and Number tasks become "
        "n/a of kind annotation)",
    )


def run(args: argparse.Namespace) -> int:
    from xprobe.files import atomic_write
    from xprobe.profiles.draft import draft_profile

    if args.out.exists() and not args.force:
        raise XProbeError(f"{args.out}: exists; pass --force to overwrite it")
    from xprobe.files import input_file_problem

    for p in args.conllu:
        if (problem := input_file_problem(p)) is not None:
            raise XProbeError(f"{p}: {problem}")
    text, report = draft_profile(
        args.conllu, args.code, args.name, args.allow_no_feats, str(args.out)
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(args.out) as f:
        f.write(text)
    for line in report:
        print(line)
    log.info("wrote %s: review it before use", args.out)
    return 0

"""The ``xprobe`` command: a thin argparse front over the library.

Each subcommand lives in ``xprobe/commands/<name>.py`` and defines ``HELP`` (one line),
``add_arguments(parser)`` and ``run(args) -> int``. Command modules import heavy libraries
(torch, ufal.udpipe, fasttext...) inside ``run`` so that ``xprobe --help`` stays instant.
User errors (:class:`~xprobe.errors.XProbeError`) are printed as one line, exit status 2; so are
the errors of the place written to (:data:`WRITE_ERRORS`: a full disk, a file-size limit, a
read-only or forbidden folder), naming the path. Writes are atomic (:mod:`xprobe.files`), so what
such an error interrupts leaves the earlier outputs as they were.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import logging
import sys
from collections.abc import Sequence
from typing import TextIO

from xprobe import __version__
from xprobe.errors import XProbeError

# subcommand -> module under xprobe.commands, in the order of the pipeline
COMMANDS = (
    "download",
    "corpus",
    "profile",
    "extract",
    "train-nli",
    "encode",
    "map-vectors",
    "map",
    "xnli",
    "probe",
    "pairs",
    "score",
    "report",
    "sample",
    "demo",
    "run",
    "languages",
    "export",
    "leaderboard",
)

log = logging.getLogger("xprobe")

# errno of an OSError about the place written to -> what the one error line says
WRITE_ERRORS = {
    errno.ENOSPC: "disk full (no space left on the device)",
    errno.EDQUOT: "disk quota exceeded",
    errno.EFBIG: "file too large (past the file-size limit)",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOTDIR: "not a folder (a file is in the way)",
}


def write_error_line(e: OSError) -> str | None:
    """The one line for an OSError of :data:`WRITE_ERRORS`, naming the path; None for others."""
    what = WRITE_ERRORS.get(e.errno or 0)
    if what is None:
        return None
    where = e.filename if e.filename is not None else "(a file being written)"
    if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return (f"{where}: {what}; no half-written file was left in its place: make room (or "
                "raise the limit) and rerun")  # fmt: skip
    return f"{where}: {what}; choose another place (or fix its permissions) and rerun"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xprobe",
        description="Multilingual probing benchmarks for sentence encoders: "
        "build probing sets from UD parses, map encoders en->xx, probe and compare.",
    )
    parser.add_argument("--version", action="version", version=f"xprobe {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")
    parser.add_argument("-q", "--quiet", action="store_true", help="warnings and errors only")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"xprobe.commands.{name.replace('-', '_')}")
        except ModuleNotFoundError as e:
            if e.name != f"xprobe.commands.{name.replace('-', '_')}":
                raise
            continue
        p = sub.add_parser(
            name,
            help=module.HELP.replace("%", "%%"),  # argparse %-formats help; HELP is plain text
            description=(module.__doc__ or module.HELP).strip(),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        p.set_defaults(_run=module.run, _parser=p)
    return parser


class _StderrHandler(logging.StreamHandler):
    """Writes to ``sys.stderr`` as it is when a record is emitted, not as it was when logging was
    set up: a program (or a test) that swaps stderr and closes the old one loses nothing."""

    @property  # type: ignore[override]
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: object) -> None:
        pass  # always sys.stderr


def setup_logging(verbose: int = 0, quiet: bool = False) -> None:
    level = logging.WARNING if quiet else (logging.DEBUG if verbose else logging.INFO)
    logging.basicConfig(
        level=level,
        format="%(levelname)s %(name)s: %(message)s",
        handlers=[_StderrHandler()],
        force=True,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # said with the usage of the command they were given to, not the top level's
        getattr(args, "_parser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
    if not getattr(args, "_run", None):
        parser.print_help()
        return 1
    setup_logging(args.verbose, args.quiet)
    try:
        return int(args._run(args) or 0)
    except XProbeError as e:
        log.error("%s", e)
        return 2
    except OSError as e:
        line = write_error_line(e)
        if line is None:
            raise
        log.error("%s", line)
        return 2
    except KeyboardInterrupt:
        log.error("interrupted (Ctrl-C), its work stopped; what it finished is kept: rerun the "
                  "same command to resume")  # fmt: skip
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""What a step does: ``xprobe ARGV`` in-process, or one library call. The functions a study's
``("call", ...)`` actions name live here (the sample, UDPipe and fastText training, the report
over the merged results); the language steps' are in :mod:`xprobe.study.language`."""

from __future__ import annotations

import importlib
import importlib.util
import logging
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.study.state import Step

__all__ = ["merge_and_report", "run_action", "run_cli", "train_udpipe"]

log = logging.getLogger(__name__)

RESUMABLE = ("train-nli", "map")  # commands that continue a run with --resume


def run_cli(step: str, argv: list[str]) -> None:
    """``xprobe ARGV`` in this process; a missing command or a non-zero exit names the step."""
    from xprobe.cli import main

    module = f"xprobe.commands.{argv[0].replace('-', '_')}"
    if importlib.util.find_spec(module) is None:
        raise XProbeError(
            f"study step {step!r} needs `xprobe {argv[0]}` ({module.replace('.', '/')}.py), "
            "which is not installed in this checkout"
        )
    log.debug("xprobe %s", " ".join(argv))
    level = logging.getLogger().level  # main() sets logging up again: keep -q / -v as they are
    flags = ["-q"] if level >= logging.WARNING else ["-v"] if 0 < level <= logging.DEBUG else []
    code = main([*flags, *argv])
    if code:
        raise XProbeError(
            f"study step {step!r} failed (xprobe {argv[0]} exit {code}); fix the error above and "
            "rerun the same command: finished steps are kept"
        )


def run_action(step: Step) -> None:
    """Run ``step``'s action (see :class:`~xprobe.study.state.Step`)."""
    kind = step.action[0]
    if kind == "cli":
        for argv in step.action[1]:
            argv = [argv[0], *step.runtime, *argv[1:]]
            if argv[0] in RESUMABLE and step.resume and Path(step.resume).exists():
                argv.insert(1, "--resume")
            run_cli(step.name, argv)
    elif kind == "call":
        module, _, name = step.action[1].partition(":")
        fn = getattr(importlib.import_module(module), name)
        fn(**step.action[2])
    else:  # pragma: no cover - steps are built by xprobe.study.build
        raise XProbeError(f"study step {step.name!r}: unknown action {kind!r}")


def train_udpipe(train: list[str], out: str) -> None:
    """A UDPipe model trained on ``train`` (CoNLL-U), fast settings."""
    from xprobe.corpus.udpipe import train_model

    train_model([Path(t) for t in train], out, fast=True)


def train_vectors(text: str, out: str, dim: int, epochs: int, threads: int = 1) -> None:
    """fastText skipgram vectors (subwords on) trained on ``text``, written as .vec with a header,
    most frequent word first. One thread (the default) makes them the same on every run."""
    import fasttext

    from xprobe.files import atomic_write

    model = fasttext.train_unsupervised(
        text, model="skipgram", dim=dim, epoch=epochs, minCount=1, thread=threads,
        minn=3, maxn=5, verbose=0,
    )  # fmt: skip
    words = model.get_words()
    with atomic_write(out) as f:
        f.write(f"{len(words)} {dim}\n")
        for w in words:
            vec = model.get_word_vector(w)
            f.write(w + " " + " ".join(f"{x:.5f}" for x in vec) + "\n")


def merge_and_report(results: list[str], merged: str, argv: list[str]) -> None:
    """Concatenate the probe steps' result files (in plan order) into ``merged``, then run
    ``xprobe ARGV`` (the report over it)."""
    from xprobe.files import atomic_write

    Path(merged).parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(merged) as f:
        for path in results:
            if Path(path).exists():
                f.write(Path(path).read_text("utf-8"))
    run_cli("report", argv)


def call(fn: str, **kwargs: Any) -> tuple[str, str, dict[str, Any]]:
    """A ``("call", ...)`` action for a function of this module."""
    return ("call", f"{__name__}:{fn}", kwargs)

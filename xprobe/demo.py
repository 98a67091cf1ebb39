"""The whole X-Probe pipeline on the generated bilingual sample, in minutes: ``xprobe demo``.

Stages (each one CLI command or library call; outputs under ``out``)::

    sample        sample/                       generated en/de treebanks, dumps, NLI, parallel...
    udpipe-LANG   models/LANG.udpipe            UDPipe trained on the generated treebank
    corpus-LANG   corpus/LANG/                  `xprobe corpus` on the generated dump
    extract-LANG  probing/LANG/                 `xprobe extract`, all nine tasks
    vectors-LANG  vectors/LANG.vec              fastText skipgram on the generated text
    train-nli     models/en-bilstm-max/         `xprobe train-nli` (small BiLSTM-max)
    map-vectors   vectors/de.mapped.vec         `xprobe map-vectors` with the sample dictionary
    map           models/de-bilstm-max/         `xprobe map` on the parallel corpus
    probe-*       results/results.jsonl         `xprobe probe`: en native, de mapped, BoV, baselines
    report        report/                       `xprobe report`: tables and heatmaps

Resumable: a finished stage leaves ``.stages/<name>.done`` and is skipped on the next run (delete
the marker, or the folder, to redo it). Sizes come from :data:`SIZES` (``small``: the default,
under 5 minutes on 2 cores; ``tiny``: for the integration test).

Example::

    >>> run_demo(Path("demo-out"), size="tiny", seed=1)  # doctest: +SKIP
"""

from __future__ import annotations

import importlib.util
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError

__all__ = ["SIZES", "DemoSize", "run_demo", "summary"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DemoSize:
    """Everything the demo scales: sample size, probing set sizes, training budgets."""

    sentences: int  # sentences per language in the generated dumps
    probe_sizes: tuple[int, int, int]  # tr, va, te per task
    wc_first_rank: int
    wc_count: int
    vector_dim: int
    vector_epochs: int
    nli_epochs: int
    map_epochs: int
    treebank: int = 1000  # gold sentences UDPipe is trained on (dev: a tenth of it)
    hidden: int = 64
    params: dict[str, dict[str, Any]] = field(default_factory=dict)


_WINDOWS = {
    "past_present": {"min_freq": 2, "max_freq": 100000},
    "subj_number": {"min_freq": 2, "max_freq": 100000},
    "obj_number": {"min_freq": 2, "max_freq": 100000},
    "odd_man_out": {"min_freq": 5, "max_freq": 100000},
}

SIZES = {
    "small": DemoSize(12000, (600, 100, 100), 31, 20, 64, 5, 4, 4, 1000, params=_WINDOWS),
    "tiny": DemoSize(8000, (400, 100, 100), 21, 10, 48, 5, 5, 3, 600, 128, params=_WINDOWS),
}
LANGS = ("en", "de")
ENCODER = "bilstm-max"


class Demo:
    """Runs the stages in order, skipping finished ones, logging progress and timing."""

    def __init__(
        self, out: Path, size: str, seed: int, workers: int, torch_threads: int = 1
    ) -> None:
        if size not in SIZES:
            raise XProbeError(f"unknown demo size {size!r}; choose one of {', '.join(SIZES)}")
        self.out, self.size, self.seed, self.workers = Path(out), SIZES[size], seed, workers
        self.marks = self.out / ".stages"
        self.torch_threads = torch_threads
        self.timings: dict[str, float] = {}
        self.stages: list[tuple[str, Callable[[], None]]] = []

    def p(self, *parts: str) -> str:
        return str(self.out.joinpath(*parts))

    def cli(self, stage: str, argv: list[str]) -> None:
        """Run ``xprobe ARGV`` in this process; a missing command or a failure names the stage."""
        from xprobe.cli import main

        module = f"xprobe.commands.{argv[0].replace('-', '_')}"
        if importlib.util.find_spec(module) is None:
            raise XProbeError(
                f"demo stage {stage!r} needs `xprobe {argv[0]}` ({module.replace('.', '/')}.py), "
                "which is not installed in this checkout"
            )
        log.debug("xprobe %s", " ".join(argv))
        code = main(argv)
        if code:
            raise XProbeError(
                f"demo stage {stage!r} failed (xprobe {argv[0]} exit {code}); fix the error above "
                f"and rerun: finished stages are kept in {self.out}"
            )

    def run(self) -> dict[str, float]:
        self.marks.mkdir(parents=True, exist_ok=True)
        try:  # the demo's models are tiny: one torch thread is fastest and never oversubscribes
            import torch

            torch.set_num_threads(self.torch_threads)
        except ImportError:  # pragma: no cover - torch is a dependency
            pass
        start = time.perf_counter()
        for k, (name, fn) in enumerate(self.stages, 1):
            mark = self.marks / f"{name}.done"
            if mark.exists():
                log.info("[%d/%d] %s: done before, skipped", k, len(self.stages), name)
                continue
            log.info("[%d/%d] %s ...", k, len(self.stages), name)
            t0 = time.perf_counter()
            fn()
            self.timings[name] = round(time.perf_counter() - t0, 1)
            mark.write_text(json.dumps({"seconds": self.timings[name]}) + "\n")
            log.info(
                "[%d/%d] %s: %.1fs (total %.0fs)", k, len(self.stages), name,
                self.timings[name], time.perf_counter() - start,
            )  # fmt: skip
        self.timings["total"] = round(time.perf_counter() - start, 1)
        return self.timings


def _stages(d: Demo) -> None:
    from xprobe.demo_stages import add_stages

    add_stages(d)


def run_demo(out: Path, size: str = "small", seed: int = 1, workers: int = 2) -> dict[str, Any]:
    """Run (or resume) the demo under ``out``; returns the summary (paths, timings, scores)."""
    d = Demo(out, size, seed, workers)
    _stages(d)
    timings = d.run()
    return summary(d.out, timings)


def summary(out: Path, timings: dict[str, float]) -> dict[str, Any]:
    """Where the outputs are and the headline numbers (test accuracy per task and encoder)."""
    records = []
    results = out / "results" / "results.jsonl"
    if results.exists():
        for line in results.read_text("utf-8").splitlines():
            rec = json.loads(line)
            if rec.get("split") == "test":
                records.append(rec)
    table: dict[str, dict[str, float]] = {}
    for rec in records:
        key = f"{rec.get('language')}:{rec.get('encoder')}:{rec.get('classifier')}"
        table.setdefault(key, {})[rec["task"]] = rec["value"]
    return {
        "out": str(out),
        "probing": {lang: str(out / "probing" / lang) for lang in LANGS},
        "results": str(results),
        "report": str(out / "report"),
        "models": {lang: str(out / "models" / f"{lang}-{ENCODER}") for lang in LANGS},
        "timings": timings,
        "test_accuracy": table,
    }

"""The demo's sizes and its stage runner (:class:`Demo`): ordered stages, each skipped once its
``.stages/<name>.done`` marker exists. The stages themselves are in :mod:`xprobe.demo.stages`."""

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

__all__ = ["ENCODER", "LANGS", "SIZES", "Demo", "DemoSize"]

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

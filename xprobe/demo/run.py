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

import json
from pathlib import Path
from typing import Any

from xprobe.demo.runner import ENCODER, LANGS, Demo
from xprobe.demo.stages import add_stages

__all__ = ["run_demo", "summary"]


def run_demo(out: Path, size: str = "small", seed: int = 1, workers: int = 2) -> dict[str, Any]:
    """Run (or resume) the demo under ``out``; returns the summary (paths, timings, scores)."""
    d = Demo(out, size, seed, workers)
    add_stages(d)
    timings = d.run()
    return summary(d.out, timings)


def summary(out: Path, timings: dict[str, float]) -> dict[str, Any]:
    """Where the outputs are and the headline numbers (test accuracy per task and encoder)."""
    records = []
    results = out / "results" / "results.jsonl"
    if results.exists():
        for line in results.read_text("utf-8").splitlines():
            rec = json.loads(line)
            if rec.get("split") == "test" and "value" in rec:  # n/a records carry no value
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

"""The whole X-Probe pipeline on the generated bilingual sample, in minutes: ``xprobe demo``.

The demo is the study ``studies/sample.toml`` (see ``docs/studies.md``) run under ``out``: the
same steps, skip logic and progress as ``xprobe run studies/sample.toml --out OUT``. Its steps::

    sample        sample/                       generated en/de treebanks, dumps, NLI, parallel...
    udpipe-LANG   models/LANG.udpipe            UDPipe trained on the generated treebank
    corpus-LANG   corpus/LANG/                  `xprobe corpus` on the generated dump
    extract-LANG  probing/LANG/                 `xprobe extract`, all nine tasks
    vectors-LANG  vectors/LANG.vec              fastText skipgram on the generated text
    train-nli-*   models/en-bilstm-max/         `xprobe train-nli` (small BiLSTM-max)
    map-vectors-* vectors/de.mapped.vec         `xprobe map-vectors` with the sample dictionary
    map-*         models/de-bilstm-max/         `xprobe map` on the parallel corpus
    probe-*       results/LANG/*.jsonl          `xprobe probe`: en native, de mapped, BoV, baselines
    report        results/results.jsonl, report/  all records, `xprobe report --html`

Independent steps run at once, one per core (the English and German branches side by side).
Sizes: ``small`` (the file as it is, under 2 minutes on 2 idle cores) or ``tiny`` (its
``[variants.tiny]``, for the integration test).

Example::

    >>> run_demo(Path("demo-out"), size="tiny", seed=1)  # doctest: +SKIP
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.study import STUDIES_DIR, run_study

__all__ = ["ENCODER", "LANGS", "SIZES", "run_demo", "summary"]

SIZES = {"small": None, "tiny": "tiny"}  # demo size -> variant of studies/sample.toml
LANGS = ("en", "de")
ENCODER = "bilstm-max"


def run_demo(
    out: Path, size: str = "small", seed: int = 1, workers: int = 2, jobs: int = 0
) -> dict[str, Any]:
    """Run (or resume) the demo under ``out``; returns the summary (paths, timings, scores).
    ``jobs``: steps at once (0: one per core; the English and German branches are independent),
    each with its share of the ``workers`` UDPipe processes."""
    if size not in SIZES:
        raise XProbeError(f"unknown demo size {size!r}; choose one of {', '.join(SIZES)}")
    overrides = {"study": {"seed": seed, "workers": workers}}
    timings = run_study(STUDIES_DIR / "sample.toml", Path(out), SIZES[size], overrides, jobs)
    return summary(Path(out), timings)


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
        "html": str(out / "report" / "report.html"),
        "models": {lang: str(out / "models" / f"{lang}-{ENCODER}") for lang in LANGS},
        "timings": timings,
        "test_accuracy": table,
    }

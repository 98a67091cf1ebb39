"""The time a run's remaining steps will take, step by step: :class:`Estimate`.

A plain average of the steps done misleads when the steps differ: in a study of a UD release
the extractions and baselines come first and take seconds, the probes of a transformer come
last and take minutes each (issue 42: 11 of 18 steps done after 18 minutes, "about 2 minutes
left"). Here each step costs its **size** times its **kind's rate**:

* kind: the stage and the entry the step comes from (``probe`` of ``[encoders.minilm]`` is not
  ``probe`` of ``[probe] baselines``);
* size: for a probe step, the bytes of its probing folder's task files (the lines it encodes and
  trains on; read when the folder exists, else the mean of its kind's known sizes), for any
  other step 1;
* rate: seconds per unit of size measured on the steps of that kind that finished; before one
  has, a probe step of an encoder (any ``--encoder``: the spec is not read here, below the
  edge; a bag of vectors is over-estimated until its first step ends) gets
  :data:`ENCODER_SECONDS_PER_BYTE` CPU seconds (all-MiniLM-L6-v2 at every layer, five folds, one
  core of the project's machine) times the wall seconds per CPU second of the steps done (a
  busy machine's steps get a share of a core), any other kind the mean seconds of the steps
  done that are not an encoder's probes.

A running step's predicted seconds are less the seconds it has run (at least a tenth of them
stay). The seconds left are the predicted seconds of the steps not finished, times what the
run's wall time has been per step second so far (steps side by side overlap).

Example::

    est = Estimate(plan.todo)
    est.started("probe-de-minilm", at=10.0)
    est.finished("probe-de-minilm", 212.0, cpu=200.0)
    est.left(elapsed=300.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["ENCODER_SECONDS_PER_BYTE", "Estimate", "step_kind"]

# a neural encoder's probe step, before one has finished: CPU seconds per byte of its task files
# (German GSD, 595 kB of task files, 8 tasks: about 200 s of one core for all-MiniLM-L6-v2's 7
# layers, MLP probes under cv:5, each distinct line encoded once; docs/benchmarks/ud.md)
ENCODER_SECONDS_PER_BYTE = 3.4e-4


def step_kind(step: Any) -> str:
    """The stage and origin of a step (``probe [encoders.minilm]``)."""
    return f"{step.stage} {step.origin}".strip()


def _argv(step: Any) -> list[str]:
    action = step.action
    if action[0] == "cli" and action[1]:
        return list(action[1][0])
    return []


def _after(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv[:-1] else None


def _folder_bytes(folder: str) -> int | None:
    p = Path(folder)
    if not p.is_dir():
        return None
    return sum(f.stat().st_size for f in p.iterdir() if f.name.endswith(".txt") and f.is_file())


class Estimate:
    """Seconds left of the steps of ``todo`` (step statuses, or steps), updated as they end."""

    def __init__(self, todo: Sequence[Any]) -> None:
        self.steps = {s.name: s for s in (getattr(t, "step", t) for t in todo)}
        self.done: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.start: dict[str, float] = {}  # running steps: the run's elapsed seconds at start

    def started(self, name: str, at: float) -> None:
        self.start[name] = at

    def finished(self, name: str, seconds: float, cpu: float | None = None) -> None:
        self.done[name] = seconds
        self.start.pop(name, None)
        if cpu:
            self.cpu[name] = cpu

    def contention(self) -> float:
        """Wall seconds per CPU second of the steps done (at least 1)."""
        cpu = sum(self.cpu.values())
        wall = sum(self.done[n] for n in self.cpu)
        return max(1.0, wall / cpu) if cpu > 0 else 1.0

    def size(self, step: Any) -> float | None:
        """A probe step's task-file bytes (None until its folder exists); 1 otherwise."""
        argv = _argv(step)
        if step.stage != "probe" or "--data" not in argv:
            return 1.0
        n = _folder_bytes(_after(argv, "--data") or "")
        return None if n is None else float(max(n, 1))

    def _prior(self, step: Any) -> float | None:
        """CPU seconds per unit for a kind nothing of has finished: an encoder probe's
        calibrated rate, else None (the mean seconds of the quick steps done)."""
        encoder = _after(_argv(step), "--encoder")
        return ENCODER_SECONDS_PER_BYTE if step.stage == "probe" and encoder else None

    def predicted(self, elapsed: float = 0.0) -> dict[str, float]:
        """Per step not finished, its predicted seconds (a running one's, less the seconds it
        has run by ``elapsed``)."""
        sizes = {n: self.size(s) for n, s in self.steps.items()}
        kinds = {n: step_kind(s) for n, s in self.steps.items()}
        known: dict[str, list[float]] = {}
        for n, v in sizes.items():
            if v is not None:
                known.setdefault(kinds[n], []).append(v)
        mean_size = {k: sum(v) / len(v) for k, v in known.items()}
        for n, v in sizes.items():
            if v is None:
                sizes[n] = mean_size.get(kinds[n], 1.0)
        secs: dict[str, float] = {}
        units: dict[str, float] = {}
        for n, s in self.done.items():
            if n in self.steps:
                secs[kinds[n]] = secs.get(kinds[n], 0.0) + s
                units[kinds[n]] = units.get(kinds[n], 0.0) + float(sizes[n] or 1.0)
        cheap = [v for n, v in self.done.items() if n in self.steps
                 and self._prior(self.steps[n]) is None] or list(self.done.values())  # fmt: skip
        mean = sum(cheap) / len(cheap) if cheap else 0.0
        out = {}
        for n, step in self.steps.items():
            if n in self.done:
                continue
            k, size = kinds[n], float(sizes[n] or 1.0)
            if k in secs:
                out[n] = size * secs[k] / max(units[k], 1e-9)
            elif (rate := self._prior(step)) is not None:
                out[n] = size * rate * self.contention()
            else:
                out[n] = mean
            if n in self.start:
                out[n] = max(out[n] - (elapsed - self.start[n]), 0.1 * out[n])
        return out

    def left(self, elapsed: float) -> float:
        """Seconds left: the predicted seconds of the steps not finished, times the wall time
        the run has taken per step second so far (at most 1: steps side by side overlap)."""
        spent = sum(self.done.values()) + sum(elapsed - a for a in self.start.values())
        overlap = min(1.0, elapsed / spent) if spent > 0 else 1.0
        return sum(self.predicted(elapsed).values()) * overlap

"""The time a run's remaining steps will take, step by step: :class:`Estimate`.

A plain average of the steps done misleads when the steps differ: in a study of a UD release
the extractions and baselines come first and take seconds, the probes of a transformer come
last and take minutes each (issue 42: 11 of 18 steps done after 18 minutes, "about 2 minutes
left"). Here each step costs its **size** times its **kind's rate**:

* kind: the stage and the entry the step comes from (``probe`` of ``[encoders.minilm]`` is not
  ``probe`` of ``[probe] baselines``; ``extract`` of every ``[languages.*]`` is one kind);
* size, read from the step's argv (cheaply: file sizes, and the split column of task files):

  - a probe step: the lines it will encode and train on, as ``xprobe probe`` keeps them: per
    task file of its ``--data`` folder and split, at most ``--max-train``/``--max-dev``/
    ``--max-test`` lines (every line under ``--cv``); counted in bytes for a transformer or an
    encoder of unknown kind (its cost follows the word pieces: Cyrillic costs more per line),
    in lines for a word-level one (a checkpoint, a bag of vectors). Before the folder exists:
    the known sizes of its kind, else the quotas (``--sizes``, ``--tasks``) of the step that
    writes it, at :data:`BYTES_PER_LINE`;
  - an extraction or corpus step: the bytes of its inputs (the trailing paths of its argv, the
    dump after ``--from-text``), a plain file's counted at 1 / :data:`PLAIN_PER_COMPRESSED`;
  - any other step 1;
* rate: seconds per unit of size measured on the steps of that kind that finished; before one
  has, a prior of CPU seconds per unit of one core of the project's machine (the constants
  below say where each was measured), times the wall seconds per CPU second of the steps done
  (a busy machine's steps get a share of a core): an encoder probe by its encoder's kind
  (``Step.encoder_kind``, read from the spec where the study file is read: a transformer,
  a trained or random neural checkpoint, a bag of vectors), an extraction or corpus step that
  parses with a UDPipe ``--model`` by its input's bytes; any other kind (or a step with no
  size yet) the mean seconds of the steps done that have no prior.

What the priors cannot tell: a checkpoint's width (the rehearsal's BiLSTM-max has 256 hidden
units; X-Probe's 2,048 cost several times more per line), the probe protocol (``--cv``,
``--control``, ``--seeds``), and how early a parse in rounds stops (a dump bigger than its
quotas need is over-estimated). Each is right once the kind's first step has finished.

A running step's predicted seconds are less the seconds it has run (at least a tenth of them
stay). The seconds left are the predicted seconds of the steps not finished, times what the
run's wall time has been per step second so far (steps side by side overlap), and at least
the longest of them.

Example::

    est = Estimate(plan.todo)
    est.started("probe-de-minilm", at=10.0)
    est.finished("probe-de-minilm", 212.0, cpu=200.0)
    est.left(elapsed=300.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "BYTES_PER_LINE",
    "ENCODER_SECONDS_PER_BYTE",
    "LINE_PRIORS",
    "PARSE_SECONDS_PER_BYTE",
    "PLAIN_PER_COMPRESSED",
    "Estimate",
    "step_kind",
]

# The priors: CPU seconds of one core of the project's 2-core AMD EPYC. "The rehearsal": the
# 1/10-scale run of studies/rehearsal.toml of 2026-11-29, its steps' records
# (work/rehearsal/run/.study/steps/*.json, docs/benchmarks/rehearsal.md).

# a transformer's probe (``hf``, ``st``; and an encoder of unknown kind), per byte of the lines
# it encodes: all-MiniLM-L6-v2 at every layer in seven quiet steps, 1,437 s for 6.04 MB in all
# (1.7-3.9e-4 per step): the rehearsal's three (capped at 1,000/300/500 lines, control tasks;
# en 253 s for 1.30 MB kept, de 309 s / 1.39 MB, ru 582 s / 2.40 MB) and the ud study's four
# (cv:5; Irish 103 s / 260 kB, Hebrew 104 / 334, Chinese 76 / 290, Tamil 11 / 64: its quiet
# rerun in docs/benchmarks/ud.md). German GSD alone, under load, gave 3.4e-4.
ENCODER_SECONDS_PER_BYTE = 2.4e-4
# a word-level encoder's probe, per line: a neural checkpoint (trained, or ``random``) at the
# rehearsal's BiLSTM-max (hidden 256, control tasks; en 122 s for 69,512 lines, de 100 s /
# 62,813, ru 103 s / 62,138: 1.6-1.8e-3); a bag of vectors (``bov``, ``pmeans``, ``npy``) at the
# rehearsal's 100-d fastText bags (en 42.4 s, de 38.1, ru 42.9: 6.1-6.9e-4)
LINE_PRIORS = {"checkpoint": 1.8e-3, "random": 1.8e-3, "bov": 7e-4, "pmeans": 7e-4, "npy": 7e-4}
# a step that parses its input with UDPipe (``--model``), per byte of a compressed input: the
# rehearsal's three dumps, parsed whole in rounds (en 804 s for 3.51 MB of .xml.bz2, de 667 s
# / 3.81 MB, ru 621 s / 3.98 MB: 1.6-2.3e-4)
PARSE_SECONDS_PER_BYTE = 1.9e-4
# a plain input's bytes per byte compressed: the rehearsal's dumps, bzip2, 3.6 (en), 3.7 (de),
# 5.4 (ru)
PLAIN_PER_COMPRESSED = 4.0
COMPRESSED = (".bz2", ".gz", ".xz", ".zst")
# a task file's bytes per line, for a probe whose folder is not written yet: the rehearsal's
# 106 (en), 115 (de), 199 (ru)
BYTES_PER_LINE = 140
PARSE_STAGES = ("extract", "corpus")
PER_LANGUAGE = ("languages", "vectors")  # study tables keyed by language


def step_kind(step: Any) -> str:
    """The stage and origin of a step (``probe [encoders.minilm]``); an entry per language is
    one kind (``extract [languages]``, ``vectors [vectors]``)."""
    origin = step.origin
    for table in PER_LANGUAGE:
        if origin.startswith(f"[{table}."):
            origin = f"[{table}]"
    return f"{step.stage} {origin}".strip()


def _argv(step: Any) -> list[str]:
    action = step.action
    if action[0] == "cli" and action[1]:
        return list(action[1][0])
    return []


def _after(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv[:-1] else None


def _values(argv: list[str], flag: str) -> list[str]:
    """The values after ``flag`` up to the next flag."""
    if flag not in argv:
        return []
    rest = argv[argv.index(flag) + 1 :]
    return rest[: next((i for i, a in enumerate(rest) if a.startswith("-")), len(rest))]


def _by_line(step: Any) -> bool:
    return getattr(step, "encoder_kind", "") in LINE_PRIORS


@lru_cache(maxsize=4096)
def _splits(path: str, mtime_ns: int, nbytes: int) -> dict[str, tuple[int, int]]:
    """A task file's lines and bytes per split (its first column: tr, va, te)."""
    out: dict[str, tuple[int, int]] = {}
    with open(path, "rb") as f:
        for line in f:
            split = line[: line.find(b"\t")].decode("ascii", "replace")
            n, b = out.get(split, (0, 0))
            out[split] = (n + 1, b + len(line))
    return out


def _probe_size(folder: Path, caps: dict[str, int], by_line: bool) -> float | None:
    """The lines (or their bytes) of ``folder``'s task files kept under ``caps`` per split."""
    if not folder.is_dir():
        return None
    kept = 0.0
    for f in folder.iterdir():
        if f.name.endswith(".txt") and f.is_file():
            st = f.stat()
            for split, (n, b) in _splits(str(f), st.st_mtime_ns, st.st_size).items():
                keep = min(n, caps.get(split, n))
                kept += keep if by_line else b * keep / n
    return max(kept, 1.0)


def _input_bytes(paths: list[str]) -> float | None:
    """The bytes of ``paths`` (files, or folders of files; a plain file's at 1 /
    :data:`PLAIN_PER_COMPRESSED`): None when none is there yet, 1 when there are none."""
    found = [Path(a) for a in paths if Path(a).exists()]
    if not found:
        return None if paths else 1.0
    files = [f for p in found for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file()]
    n = sum(f.stat().st_size / (1 if f.suffix in COMPRESSED else PLAIN_PER_COMPRESSED)
            for f in files)  # fmt: skip
    return max(n, 1.0)


def _inputs(step: Any) -> list[str]:
    """An extraction's or corpus step's inputs: its arguments after the last flag (``--from-text
    DUMP...``, ``corpus``'s INPUT...), not its outputs (``--out DIR`` when last)."""
    argv = _argv(step)[1:]
    last = max((i for i, a in enumerate(argv) if a.startswith("-")), default=-1)
    return [a for a in argv[last + 1 :] if a not in step.outputs]


class Estimate:
    """Seconds left of the steps of ``todo`` (step statuses, or steps), updated as they end."""

    def __init__(self, todo: Sequence[Any]) -> None:
        self.steps = {s.name: s for s in (getattr(t, "step", t) for t in todo)}
        self.done: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.start: dict[str, float] = {}  # running steps: the run's elapsed seconds at start
        self.writer = {o: s for s in self.steps.values() for o in s.outputs}
        self.inputs: dict[str, float | None] = {}  # an extraction's input bytes, once read

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
        """A probe step's lines kept (or their bytes), an extraction's input bytes: None until
        they are there; 1 for any other step."""
        if step.stage in PARSE_STAGES:
            if self.inputs.get(step.name) is None:  # read once there: inputs do not change
                self.inputs[step.name] = _input_bytes(_inputs(step))
            return self.inputs[step.name]
        argv = _argv(step)
        if step.stage != "probe" or "--data" not in argv:
            return 1.0
        return _probe_size(Path(_after(argv, "--data") or ""), _caps(argv), _by_line(step))

    def planned(self, step: Any) -> float | None:
        """A probe step's size from the quotas (``--sizes``, ``--tasks``) of the step that
        writes its folder; None when no step of the plan says them."""
        argv = _argv(step)
        writer = self.writer.get(_after(argv, "--data") or "") if step.stage == "probe" else None
        quotas = _after(_argv(writer), "--sizes") if writer is not None else None
        if not quotas:
            return None
        from xprobe.tasks import TASKS

        tasks = len(_values(_argv(writer), "--tasks")) or len(TASKS)
        caps = _caps(argv)
        splits = zip(("tr", "va", "te"), map(int, quotas.split(",")), strict=False)
        lines = tasks * sum(min(n, caps.get(split, n)) for split, n in splits)
        return float(lines if _by_line(step) else lines * BYTES_PER_LINE)

    def _prior(self, step: Any) -> float | None:
        """CPU seconds per unit for a kind nothing of has finished (None: no prior)."""
        argv = _argv(step)
        if step.stage == "probe" and "--encoder" in argv:
            return LINE_PRIORS.get(getattr(step, "encoder_kind", ""), ENCODER_SECONDS_PER_BYTE)
        if step.stage in PARSE_STAGES and "--model" in argv:
            return PARSE_SECONDS_PER_BYTE
        return None

    def predicted(self, elapsed: float = 0.0) -> dict[str, float]:
        """Per step not finished, its predicted seconds (a running one's, less the seconds it
        has run by ``elapsed``)."""
        sizes = {n: self.size(s) for n, s in self.steps.items()}
        kinds = {n: step_kind(s) for n, s in self.steps.items()}
        known: dict[str, list[float]] = {}
        for n, v in sizes.items():
            if v is not None:
                known.setdefault(kinds[n], []).append(v)
        for n, v in sizes.items():
            if v is None and kinds[n] in known:
                sizes[n] = sum(known[kinds[n]]) / len(known[kinds[n]])
            elif v is None:
                sizes[n] = self.planned(self.steps[n])
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
            k, size = kinds[n], sizes[n]
            if k in secs:
                out[n] = float(size or 1.0) * secs[k] / max(units[k], 1e-9)
            elif size is not None and (rate := self._prior(step)) is not None:
                out[n] = size * rate * self.contention()
            else:
                out[n] = mean
            if n in self.start:
                out[n] = max(out[n] - (elapsed - self.start[n]), 0.1 * out[n])
        return out

    def left(self, elapsed: float) -> float:
        """Seconds left: the predicted seconds of the steps not finished, times the wall time
        the run has taken per step second so far (at most 1: steps side by side overlap), and
        at least the longest of them (which no overlap shortens)."""
        spent = sum(self.done.values()) + sum(elapsed - a for a in self.start.values())
        overlap = min(1.0, elapsed / spent) if spent > 0 else 1.0
        each = self.predicted(elapsed).values()
        return max(sum(each) * overlap, max(each, default=0.0))


def _caps(argv: list[str]) -> dict[str, int]:
    """The lines per split ``xprobe probe`` keeps (none under ``--cv``: every line is scored)."""
    if "--cv" in argv:
        return {}
    flags = {"tr": "--max-train", "va": "--max-dev", "te": "--max-test"}
    return {s: int(v) for s, f in flags.items() if (v := _after(argv, f)) is not None}

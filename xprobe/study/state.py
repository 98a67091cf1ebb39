"""Steps, their fingerprints and markers: what is done, what is to do, and why.

A :class:`Step` is one call of a stage (a CLI command run in-process, or a library function) with
the paths it writes (``outputs``). Its **fingerprint** hashes its settings (the action with the
output folder written as ``<OUT>``) and the digests of its inputs: for a path another step writes,
that step's fingerprint; for any other existing file or folder named in its arguments, the
SHA-256 of its content (cached in ``OUT/.study/digests.json`` by path, size and mtime, so a large
dump is read once). After a step finishes, ``OUT/.study/steps/NAME.json`` records the fingerprint,
written atomically; a later run skips the step while the fingerprint and the outputs are the same.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.files import inside, sha256_file, write_json

__all__ = [
    "Plan",
    "Step",
    "StepStatus",
    "bookkeeping_dir",
    "make_plan",
    "marker_dir",
    "outside_outputs",
    "read_marker",
]

_BOUNDARY = re.compile(r"[/\[\]:,]")


@dataclass(frozen=True)
class Step:
    """One unit of work. ``action`` is ``("cli", [argv, ...])`` (``xprobe ARGV`` in-process, in
    order) or ``("call", "module:function", {kwargs})``; ``resume`` names an output folder whose
    presence adds ``--resume`` to a CLI call; ``after`` adds dependencies that no path shows."""

    name: str
    stage: str
    action: tuple[Any, ...]
    outputs: tuple[str, ...]
    resume: str = ""
    after: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()  # further input files no argument names (a language profile)
    runtime: tuple[str, ...] = ()  # CLI flags that change how, not what (--workers): no setting
    origin: str = ""  # the study-file entry it comes from (``[nli.NAME]``), for error messages
    gpu: bool = False  # wants a GPU (decided where the study file is read): a cluster's GPU worker
    encoder_kind: str = ""  # a probe step's encoder (EncoderSpec.kind, decided where the study
    # file is read): what the time estimate's prior costs it at (xprobe.study.estimate)

    def strings(self) -> list[str]:
        """Every string in the action (arguments, keyword values), for finding inputs."""
        found: list[str] = []

        def walk(x: Any) -> None:
            if isinstance(x, str):
                found.append(x)
            elif isinstance(x, dict):
                for v in x.values():
                    walk(v)
            elif isinstance(x, list | tuple):
                for v in x:
                    walk(v)

        walk(self.action[1:])
        return found + list(self.reads)


@dataclass
class StepStatus:
    step: Step
    fingerprint: str
    deps: list[str]
    todo: bool
    reason: str  # done / new / settings changed / input changed: X / outputs missing: X
    inputs: dict[str, str] = field(default_factory=dict)
    settings: str = ""


@dataclass
class Plan:
    out: Path
    steps: list[StepStatus]

    @property
    def todo(self) -> list[StepStatus]:
        return [s for s in self.steps if s.todo]

    def lines(self) -> list[str]:
        """One line per step: ``[k/N] done|to do  NAME  (why)``."""
        n = len(self.steps)
        out = []
        for k, s in enumerate(self.steps, 1):
            state = "to do" if s.todo else "done "
            why = "" if not s.todo else f"  ({s.reason})"
            out.append(f"[{k}/{n}] {state}  {s.step.name}{why}")
        todo = len(self.todo)
        out.append(f"{todo} of {n} steps to do" if todo else f"nothing left to do ({n} steps done)")
        return out


def marker_dir(out: Path) -> Path:
    return Path(out) / ".study" / "steps"


def bookkeeping_dir(out: Path, create: bool = False) -> Path:
    """``OUT/.study``, where a run keeps its lock, step markers and digests, proven a real folder
    (made when ``create``) whose ``steps/``, where present, is real too. A symbolic link at
    either, which a study folder received from someone else may hold, would send those writes
    outside ``out``: it is an :class:`~xprobe.errors.XProbeError` naming it, as is a file."""
    folder = Path(out) / ".study"
    for p in (folder, marker_dir(out)):
        if p.is_symlink():
            raise XProbeError(
                f"{p}: is a symbolic link; a study keeps its bookkeeping (lock, step markers, "
                "digests) in a real folder inside --out: remove the link, or choose another --out"
            )
        if p.exists() and not p.is_dir():
            raise XProbeError(
                f"{p}: is not a folder; a study keeps its bookkeeping (lock, step markers, "
                "digests) there: remove it, or choose another --out"
            )
        if create and p == folder:
            p.mkdir(parents=True, exist_ok=True)
    return folder


def outside_outputs(step: Step, out: Path) -> list[tuple[str, Path]]:
    """``(output, root)`` for each output of ``step`` that does not resolve inside its root:
    ``out``, or the download cache for a download step. The study check reports them before
    anything runs; the engine refuses to run such a step."""
    from xprobe.download import cache_dir

    root = cache_dir() if step.stage == "download" else out
    bad = []
    for o in step.outputs:
        try:
            inside(root, o)
        except XProbeError:
            bad.append((o, root))
    return bad


def links_out(out: Path) -> None:
    """Refuse a study folder holding a symbolic link that leads out of it (to a file or a
    folder): a step, the embedding cache or the engine's cleaning would write or remove through
    it, outside ``--out``. xprobe itself makes no links, so any link is someone else's (a study
    folder received from another machine): an :class:`~xprobe.errors.XProbeError` naming it."""
    root = Path(out)
    if not root.is_dir():
        return
    base = root.resolve()
    found: list[tuple[Path, Path]] = []
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            p = Path(folder, name)
            if p.is_symlink():
                target = p.resolve()
                if target != base and base not in target.parents:
                    found.append((p, target))
    if found:
        (p, target), more = found[0], len(found) - 1
        also = f" ({more} more such link{'s' * (more > 1)})" if more else ""
        raise XProbeError(
            f"{p}: is a symbolic link to {target}, outside --out {base}{also}; a study writes "
            "and removes nothing through a link out of its folder: remove the link (to keep "
            "something elsewhere, name that path in the study file instead)"
        )


def read_marker(out: Path, name: str, kind: str = "json") -> dict[str, Any] | None:
    path = marker_dir(out) / f"{name}.{kind}"
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None


def _produced_by(text: str, producers: dict[str, str]) -> list[tuple[str, str]]:
    """(output path, step) pairs whose output path occurs in ``text`` as a whole path."""
    hits = []
    for path, step in producers.items():
        i = text.find(path)
        while i >= 0:
            end = i + len(path)
            if end == len(text) or _BOUNDARY.match(text, end):
                hits.append((path, step))
                break
            i = text.find(path, i + 1)
    return hits


def _candidate_paths(text: str) -> list[str]:
    """Paths a string may name: itself, and its ``kind:`` parts (``bov:/x.vec``, ``hf:/m[...]``)."""
    bare = re.sub(r"\[[^\]]*\]$", "", text)
    parts = {bare, *bare.split(":")}
    return sorted(p for p in parts if p and os.path.isabs(p))


class Digests:
    """SHA-256 of files and folders, cached by (path, size, mtime) in ``OUT/.study``."""

    def __init__(self, out: Path) -> None:
        self.path = Path(out) / ".study" / "digests.json"
        self.lock = threading.Lock()
        try:
            self.cache: dict[str, Any] = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            self.cache = {}
        self.changed = False

    def file(self, p: Path) -> str:
        st = p.stat()
        key, stamp = str(p), [st.st_size, st.st_mtime_ns]
        hit = self.cache.get(key)
        if hit and hit[0] == stamp:
            return hit[1]
        digest = sha256_file(p)
        with self.lock:
            self.cache[key] = [stamp, digest]
            self.changed = True
        return digest

    def of(self, path: str) -> str:
        p = Path(path)
        if p.is_file():
            return self.file(p)
        h = hashlib.sha256()
        for f in sorted(x for x in p.rglob("*") if x.is_file()):
            h.update(f"{f.relative_to(p)}\0{self.file(f)}\n".encode())
        return h.hexdigest()

    def save(self) -> None:
        if self.changed:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_json(self.path, self.cache)
            self.changed = False


def _settings(step: Step, out: Path) -> str:
    text = json.dumps([step.stage, list(step.action), sorted(step.after)], sort_keys=True)
    return hashlib.sha256(text.replace(str(out), "<OUT>").encode()).hexdigest()


def _inputs(
    step: Step, producers: dict[str, str], fps: dict[str, str], digests: Digests, out: Path
) -> tuple[dict[str, str], list[str]]:
    own = set(step.outputs)
    inputs: dict[str, str] = {}
    deps: list[str] = list(step.after)
    for text in step.strings():
        hits = [(p, s) for p, s in _produced_by(text, producers) if s != step.name]
        for path, name in hits:
            inputs[path.replace(str(out), "<OUT>")] = fps[name]
            deps.append(name)
        if hits or any(text == o or text.startswith(o + "/") for o in own):
            continue
        for path in _candidate_paths(text):
            inner = {s for o, s in producers.items() if o.startswith(path + os.sep)}
            if inner - {step.name}:  # a folder holding what other steps write (the cache root)
                deps += sorted(inner - {step.name})
                inputs.update({f"step:{s}": fps[s] for s in inner - {step.name}})
            # under OUT but written by no step: scratch (the embedding cache), not an input
            elif os.path.exists(path) and not path.startswith(str(out) + os.sep):
                inputs[path] = digests.of(path)
    for name in step.after:
        inputs[f"step:{name}"] = fps[name]
    return inputs, sorted(set(deps), key=deps.index)


def make_plan(steps: Iterable[Step], out: Path, save_digests: bool = True) -> Plan:
    """Fingerprint every step (in order: a step may only use the outputs of steps before it) and
    decide which are done and which are to do, with the reason; ``save_digests=False`` (a dry
    run) writes nothing, not even the digest cache."""
    out = Path(out)
    bookkeeping_dir(out)  # markers and digests read through a link would be someone else's
    links_out(out)
    digests = Digests(out)
    producers: dict[str, str] = {}
    fps: dict[str, str] = {}
    statuses: list[StepStatus] = []
    for step in steps:
        for dep in step.after:
            if dep not in fps:
                raise XProbeError(f"study step {step.name!r} comes after unknown step {dep!r}")
        settings = _settings(step, out)
        inputs, deps = _inputs(step, producers, fps, digests, out)
        fp = hashlib.sha256(json.dumps([settings, inputs], sort_keys=True).encode()).hexdigest()
        fps[step.name] = fp
        for o in step.outputs:
            producers[o] = step.name
        statuses.append(_status(step, fp, settings, inputs, deps, out))
    if save_digests:
        digests.save()
    return Plan(out, statuses)


def _status(
    step: Step, fp: str, settings: str, inputs: dict[str, str], deps: list[str], out: Path
) -> StepStatus:
    def status(todo: bool, reason: str) -> StepStatus:
        return StepStatus(step, fp, deps, todo, reason, inputs, settings)

    mark = read_marker(out, step.name)
    if mark is None:
        started = read_marker(out, step.name, "started")
        resumes = started is not None and started.get("fingerprint") == fp
        return status(True, "interrupted, resumes" if resumes else "new")
    if mark.get("fingerprint") != fp:
        if mark.get("settings") != settings:
            return status(True, "settings changed")
        old = mark.get("inputs", {})
        changed = sorted(k for k in set(old) | set(inputs) if old.get(k) != inputs.get(k))
        return status(True, f"input changed: {', '.join(changed[:3]) or '?'}")
    missing = [o for o in step.outputs if not os.path.exists(o)]
    if missing:
        return status(True, f"outputs missing: {missing[0].replace(str(out), '<OUT>')}")
    return status(False, "done")

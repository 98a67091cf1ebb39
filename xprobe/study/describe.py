"""What ``xprobe run --dry-run`` prints: each step's line of the plan (done or to do, why), then
what it reads (with each existing file's size), what it writes (the download cache included)
and the task sizes it asks for, so a plan can be checked before anything runs."""

from __future__ import annotations

from pathlib import Path

from xprobe.study.state import Plan, StepStatus

__all__ = ["describe", "human_size"]

SHOWN = 4  # paths listed per step and direction; the rest are counted


def human_size(n: int) -> str:
    """``1536`` -> ``1.5 KB`` (powers of 1024)."""
    size, unit = float(n), "B"
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size < 1024 or unit == "TB":
            break
        size /= 1024
    return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"


def _size(path: str) -> str:
    p = Path(path)
    if p.is_file():
        return human_size(p.stat().st_size)
    if p.is_dir():
        return human_size(sum(f.stat().st_size for f in p.rglob("*") if f.is_file()))
    return "not there yet"


def _paths(paths: list[str], out: Path, sizes: bool) -> str:
    shown = [p.replace(str(out), "OUT") + (f" ({_size(p)})" if sizes else "") for p in paths]
    more = f", and {len(shown) - SHOWN} more" if len(shown) > SHOWN else ""
    return ", ".join(shown[:SHOWN]) + more


def _details(s: StepStatus, out: Path) -> list[str]:
    reads = [k.replace("<OUT>", str(out)) for k in s.inputs if not k.startswith("step:")]
    lines = []
    if reads:
        lines.append(f"      reads   {_paths(reads, out, sizes=True)}")
    lines.append(f"      writes  {_paths(list(s.step.outputs), out, sizes=False)}")
    words = s.step.strings()
    if "--sizes" in words and words.index("--sizes") + 1 < len(words):
        lines.append(f"      sizes   {words[words.index('--sizes') + 1]} (tr,va,te per task)")
    return lines


def describe(plan: Plan) -> list[str]:
    """The plan's lines (:meth:`Plan.lines`), each step followed by its details; ``OUT`` is the
    output folder, other paths (inputs, the download cache) are written out."""
    lines = plan.lines()
    out: list[str] = []
    for line, status in zip(lines, plan.steps, strict=False):
        out += [line, *_details(status, Path(plan.out))]
    out.append(f"OUT = {plan.out}")
    return out + lines[len(plan.steps) :]

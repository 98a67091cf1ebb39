"""Frequency windows that follow the corpus: absolute counts, or bounds per million tokens.

The lexical tasks keep words whose corpus count lies in a window (Tense, SubjNum, ObjNum:
100..5,000; SOMO: 40..400). Those counts were written for a corpus of a given size, recorded as
data in the task's parameters: ``windows_tokens`` (default 20,000,000 surface tokens, a
Wikipedia sample of some million sentences). On a smaller corpus the same counts keep only the
handful of most frequent words, and the tasks starve; on a 1.5-million-word German Wikipedia
sample SubjNum filled 2,037 and ObjNum 1,096 lines of 12,000.

Three modes (``xprobe extract --windows``, ``ExtractConfig.windows``; the manifest records per
task the mode asked, the one used, why, and the counts):

* ``absolute``: ``min_freq``..``max_freq`` as given;
* ``per-million``: a bound per million surface tokens, turned into a count after the frequency
  pass (``min_freq = ceil(min_pm * tokens / 10**6)``, at least 1; ``max_freq = floor(max_pm *
  tokens / 10**6)``). ``min_per_million`` / ``max_per_million`` when > 0 (a profile's own
  values), else the absolute bound scaled to ``windows_tokens`` (100..5,000 at 20 million tokens
  is 5..250 per million): the same relative band of the vocabulary as the absolute window on a
  corpus of the size it was written for;
* ``auto`` (the default): ``per-million`` when the corpus has fewer tokens than
  ``windows_tokens``, ``absolute`` from that size on. The two agree at that size (for derived
  bounds), so the window changes smoothly with the corpus. On a corpus so small that the scaled
  window holds no count (SOMO's 2..20 per million below 50,000 tokens) auto keeps the absolute
  window and says so (a per-million window the parameters give is an error there, as with
  ``per-million``).

Example::

    >>> absolute_window(100_000_000, 1.0, 50.0)
    (100, 5000)
"""

from __future__ import annotations

import dataclasses
import logging
import math
from typing import Any

from xprobe.errors import XProbeError

__all__ = ["WINDOW_MODES", "absolute_window", "resolve_all_windows", "resolve_windows"]

WINDOW_MODES = ("auto", "absolute", "per-million")

log = logging.getLogger(__name__)


def absolute_window(tokens: int, min_pm: float, max_pm: float) -> tuple[int, int]:
    """The counts that ``min_pm``..``max_pm`` per million tokens mean in a corpus of ``tokens``."""
    low = max(1, math.ceil(min_pm * tokens / 1e6 - 1e-9))
    high = math.floor(max_pm * tokens / 1e6 + 1e-9)
    return low, high


def _per_million(params: Any) -> tuple[float, float, str]:
    """The per-million bounds: the profile's where > 0, else scaled from the absolute ones."""
    scale = 1e6 / params.windows_tokens
    min_pm = params.min_per_million or params.min_freq * scale
    max_pm = params.max_per_million or params.max_freq * scale
    given = [n for n, v in (("min", params.min_per_million), ("max", params.max_per_million)) if v]
    scaled = f"scaled from {params.min_freq}..{params.max_freq} at {params.windows_tokens} tokens"
    if len(given) == 2:
        source = "from the parameters"
    elif given:
        source = f"{given[0]} from the parameters, the other {scaled}"
    else:
        source = scaled
    return round(min_pm, 6), round(max_pm, 6), source


def _mode_used(params: Any, tokens: int, mode: str) -> tuple[str, str]:
    if mode != "auto":
        return mode, f"asked for ({mode})"
    if tokens < params.windows_tokens:
        return "per-million", (
            f"auto: the corpus has {tokens} tokens, fewer than the {params.windows_tokens} "
            "the absolute window was written for"
        )
    return "absolute", (
        f"auto: the corpus has {tokens} tokens, at least the {params.windows_tokens} "
        "the absolute window was written for"
    )


def resolve_windows(
    task: str, params: Any, tokens: int, mode: str = "auto"
) -> tuple[Any, dict[str, Any] | None]:
    """``params`` with ``min_freq``/``max_freq`` set for a corpus of ``tokens``, and what was
    used (None for a task without a frequency window). Raises when a bound is negative or the
    window holds no count in this corpus."""
    if not dataclasses.is_dataclass(params) or not hasattr(params, "min_per_million"):
        return params, None
    if mode not in WINDOW_MODES:
        raise XProbeError(f"windows must be one of {', '.join(WINDOW_MODES)}, not {mode!r}")
    min_pm, max_pm = params.min_per_million, params.max_per_million
    if min_pm < 0 or max_pm < 0 or params.windows_tokens < 1:
        raise XProbeError(
            f"{task}: min_per_million and max_per_million must be >= 0, windows_tokens >= 1"
        )
    used, why = _mode_used(params, tokens, mode)
    how: dict[str, Any] = {"mode": mode, "used": used, "why": why, "corpus_tokens": tokens}
    if used == "absolute":
        how["counts"] = [params.min_freq, params.max_freq]
        return params, how
    min_pm, max_pm, source = _per_million(params)
    low, high = absolute_window(tokens, min_pm, max_pm)
    if high < low and mode == "auto" and not (params.min_per_million or params.max_per_million):
        how.update(used="absolute", counts=[params.min_freq, params.max_freq])
        how["why"] = (
            f"auto: the scaled window {min_pm}..{max_pm} per million holds no count in "
            f"{tokens} tokens (counts {low}..{high}); the absolute window is kept"
        )
        log.warning("%s: %s", task, how["why"])
        return params, how
    if high < low:
        raise XProbeError(
            f"{task}: the frequency window {min_pm}..{max_pm} per million ({source}) is counts "
            f"{low}..{high} in this corpus of {tokens} tokens: empty; widen it, use a larger "
            "corpus or --windows absolute"
        )
    how.update(per_million=[min_pm, max_pm], per_million_from=source, counts=[low, high])
    return dataclasses.replace(params, min_freq=low, max_freq=high), how  # type: ignore[type-var]


def resolve_all_windows(
    specs: list[Any], params: dict[str, Any], tokens: int, mode: str
) -> dict[str, dict[str, Any]]:
    """Every task's window for this corpus (``params``, keyed by task file, changed in place);
    returns what was used, per task file that has a window."""
    used = {}
    for spec in specs:
        params[spec.file], how = resolve_windows(spec.name, params[spec.file], tokens, mode)
        if how is not None:
            used[spec.file] = how
    return used

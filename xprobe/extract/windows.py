"""Frequency windows relative to corpus size: ``min_per_million`` / ``max_per_million``.

The lexical tasks keep words whose corpus count lies in a window (Tense, SubjNum, ObjNum:
100..5,000; SOMO: 40..400). Those counts suit a Wikipedia-sized corpus; on a treebank of a few
hundred thousand tokens they keep only the handful of most frequent words, and the tasks starve.
A task's ``min_per_million`` / ``max_per_million`` (> 0) give a bound per million surface tokens
of the corpus instead; after the frequency pass it becomes a count (``min_freq =
ceil(min_per_million * tokens / 10**6)``, at least 1; ``max_freq = floor(max_per_million *
tokens / 10**6)``), which is what the task uses and the manifest records, beside the relative
values. With both at 0 (the default) the absolute window is used unchanged.

Example::

    >>> absolute_window(100_000_000, 1.0, 50.0)
    (100, 5000)
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from xprobe.errors import XProbeError

__all__ = ["absolute_window", "resolve_windows"]


def absolute_window(tokens: int, min_pm: float, max_pm: float) -> tuple[int, int]:
    """The counts that ``min_pm``..``max_pm`` per million tokens mean in a corpus of ``tokens``."""
    low = max(1, math.ceil(min_pm * tokens / 1e6 - 1e-9))
    high = math.floor(max_pm * tokens / 1e6 + 1e-9)
    return low, high


def resolve_windows(task: str, params: Any, tokens: int) -> Any:
    """``params`` with ``min_freq``/``max_freq`` set from the per-million bounds that are > 0
    (unchanged when the task has none or they are 0). Raises when a bound is negative or the
    window holds no count in this corpus."""
    if not dataclasses.is_dataclass(params) or not hasattr(params, "min_per_million"):
        return params
    min_pm, max_pm = params.min_per_million, params.max_per_million
    if min_pm < 0 or max_pm < 0:
        raise XProbeError(f"{task}: min_per_million and max_per_million must be >= 0")
    if not min_pm and not max_pm:
        return params
    low, high = absolute_window(tokens, min_pm or 0.0, max_pm or 0.0)
    low = low if min_pm else params.min_freq
    high = high if max_pm else params.max_freq
    if high < low:
        raise XProbeError(
            f"{task}: the frequency window {min_pm or params.min_freq}..{max_pm or params.max_freq}"
            f" (per million where set) is counts {low}..{high} in this corpus of {tokens} "
            "tokens: empty; widen it or use a larger corpus"
        )
    return dataclasses.replace(params, min_freq=low, max_freq=high)  # type: ignore[type-var]

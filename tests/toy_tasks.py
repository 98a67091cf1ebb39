"""A toy SentLen-like task file shared by probe, API and export tests: label ``long`` iff the
sentence has >= 5 tokens; words w0..w9; ``n`` training lines, ``n // 2`` validation and test."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_length_task(path: Path, n: int = 60, seed: int = 0) -> Path:
    g = np.random.default_rng(seed)
    lines = []
    for split, k in (("tr", n), ("va", n // 2), ("te", n // 2)):
        for _ in range(k):
            length = int(g.integers(2, 9))
            words = " ".join(f"w{int(i)}" for i in g.integers(0, 10, size=length))
            lines.append(f"{split}\t{'long' if length >= 5 else 'short'}\t{words}\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path

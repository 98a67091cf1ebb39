"""Loaded at start-up by every Python process whose path holds this folder (the tests put it on
PYTHONPATH, so spawned workers load it too): the top-level packages named in
XPROBE_REFUSE_IMPORTS (comma-separated) behave as if they were not installed. Every import
finder is wrapped so that it finds none of them: ``import NAME`` raises ModuleNotFoundError,
``importlib.util.find_spec(NAME)`` answers None and ``NAME`` never enters ``sys.modules``, as
for a package that is absent (torch and scikit-learn look for optional packages both ways)."""

from __future__ import annotations

import os
import sys
from typing import Any

REFUSED = frozenset(x for x in os.environ.get("XPROBE_REFUSE_IMPORTS", "").split(",") if x)


class WithoutExtras:
    """An import finder that finds what ``inner`` finds, except the refused packages."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name.partition(".")[0] in REFUSED:
            return None
        return self.inner.find_spec(name, path, target)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.inner, attr)


if REFUSED:
    sys.meta_path[:] = [WithoutExtras(f) for f in sys.meta_path]

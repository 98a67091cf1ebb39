"""Loaded at start-up by every Python process whose path holds this folder (the tests put it on
PYTHONPATH, so spawned workers load it too): the top-level packages named in
XPROBE_REFUSE_IMPORTS (comma-separated) cannot be imported, as if they were not installed."""

from __future__ import annotations

import os
import sys

REFUSED = frozenset(x for x in os.environ.get("XPROBE_REFUSE_IMPORTS", "").split(",") if x)


class RefuseExtras:
    """A meta path finder that says a refused package is not installed."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.split(".")[0] in REFUSED:
            raise ModuleNotFoundError(f"No module named {name!r} (refused by the test)", name=name)
        return None


if REFUSED:
    sys.meta_path.insert(0, RefuseExtras())

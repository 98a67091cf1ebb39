"""xprobe: multilingual probing benchmarks for sentence encoders.

``xprobe.evaluate(encoder, data, tasks, out)`` probes an encoder from Python (:mod:`xprobe.api`);
it is loaded on first use, so ``import xprobe`` and ``xprobe --help`` stay instant.
"""

from typing import Any

__version__ = "0.1.0"

REPO_ROOT_MARKERS = ("pyproject.toml", "languages")

__all__ = ["__version__", "evaluate"]


def __getattr__(name: str) -> Any:
    # by name (like cli.py's subcommands): the package root imports no stage
    if name == "evaluate":
        import importlib

        return importlib.import_module("xprobe.api").evaluate
    raise AttributeError(f"module 'xprobe' has no attribute {name!r}")

"""Argument types shared by the subcommands' parsers (argparse ``type=`` callables)."""

from __future__ import annotations

import argparse

__all__ = ["positive"]


def positive(text: str) -> int:
    """An integer of at least 1, or argparse's usage error naming the text given."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value

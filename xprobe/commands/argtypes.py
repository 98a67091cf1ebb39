"""Argument types shared by the subcommands' parsers (argparse ``type=`` callables)."""

from __future__ import annotations

import argparse

__all__ = ["positive", "size"]


def positive(text: str) -> int:
    """An integer of at least 1, or argparse's usage error naming the text given."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def size(text: str) -> int:
    """A positive size in bytes (``8G``, ``512M``, ``64K``, or a number), or argparse's usage
    error naming the text given."""
    from xprobe.probe.streaming import parse_size

    try:
        return parse_size(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a positive size such as 8G or 512M, got {text!r}"
        ) from None

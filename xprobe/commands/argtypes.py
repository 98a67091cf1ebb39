"""Argument types shared by the subcommands' parsers (argparse ``type=`` callables)."""

from __future__ import annotations

import argparse

__all__ = ["device_name", "positive", "size"]


def device_name(text: str) -> str:
    """``--device``: auto, cpu, cuda or cuda:N (:mod:`xprobe.encoders.device`), as given, or
    argparse's usage error, so a command (and a study's check of its steps) refuses any other
    name before anything runs; whether the machine has that GPU is checked when it is used."""
    from xprobe.encoders.device import DEVICE_NAMES, is_cuda

    if text in ("auto", "cpu") or is_cuda(text):
        return text
    raise argparse.ArgumentTypeError(f"{DEVICE_NAMES}, not {text!r}")


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

"""Sentence encoders. Every encoder implements :class:`xprobe.encoders.base.Encoder`."""

from xprobe.encoders.base import Encoder

__all__ = ["Encoder"]

"""Device names, one rule for every command: ``auto``, ``cpu``, ``cuda`` or ``cuda:N``."""

from __future__ import annotations

import re

from xprobe.errors import XProbeError

__all__ = ["DEVICE_NAMES", "is_cuda", "resolve_device"]

_CUDA = re.compile(r"cuda(:\d+)?")
DEVICE_NAMES = "must be auto, cpu, cuda or cuda:N"  # what a device name may be


def is_cuda(device: str) -> bool:
    """Whether ``device`` names a CUDA device (``cuda`` or ``cuda:N``)."""
    return _CUDA.fullmatch(device) is not None


def resolve_device(device: str = "auto") -> str:
    """``auto`` -> ``cuda`` when available, else ``cpu``; ``cuda[:N]`` without that GPU is an
    error, and so is any other name."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        return device
    if not is_cuda(device):
        raise XProbeError(f"--device {DEVICE_NAMES}, not {device!r}")
    if not torch.cuda.is_available():
        raise XProbeError(f"--device {device}: CUDA is not available on this machine")
    index = int(device.partition(":")[2] or 0)
    if index >= torch.cuda.device_count():
        raise XProbeError(
            f"--device {device}: this machine has {torch.cuda.device_count()} CUDA device(s)"
        )
    return device

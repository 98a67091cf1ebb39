"""Device names for the transformer encoders and the probe classifiers (auto|cpu|cuda)."""

from __future__ import annotations

from xprobe.errors import XProbeError

__all__ = ["resolve_device"]


def resolve_device(device: str) -> str:
    """``auto`` -> ``cuda`` when available, else ``cpu``; ``cuda`` without a GPU is an error."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise XProbeError("--device cuda: no CUDA device available")
    if device not in ("cpu", "cuda"):
        raise XProbeError(f"unknown device {device!r}; valid: auto, cpu, cuda")
    return device

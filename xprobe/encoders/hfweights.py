"""Which weights file of a local transformer directory is damaged or unsafe, in one line.

``from_pretrained`` fails on a damaged ``model.safetensors`` (truncated, random bytes) with
safetensors' own exception, and on a pickled ``pytorch_model.bin`` that holds more than
tensors with torch's weights-only refusal, whose message advises loading it unsafely. When a
local model does not load, :func:`weights_problem` checks each weights file safely (the
safetensors header and the extent of its tensors; a pickled file with ``torch.load(...,
weights_only=True)``, which never runs a payload) and names the first bad one, never with
advice to load it unsafely (:func:`xprobe.encoders.torchload.load_error_line`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from xprobe.encoders.torchload import load_error_line

__all__ = ["weights_problem"]

_PICKLED = (".bin", ".pt", ".pth")
_REPLACE = "replace it with an intact copy (download the model again or save it again)"


def weights_problem(directory: str | os.PathLike[str]) -> str | None:
    """One line naming the first damaged or unsafe weights file under ``directory``, or None
    when every weights file reads safely."""
    root = Path(directory)
    files = sorted(p for p in root.rglob("*.safetensors") if p.is_file())
    files += sorted(p for p in root.rglob("*") if p.suffix in _PICKLED and p.is_file())
    for p in files:
        why = _safetensors_problem(p) if p.suffix == ".safetensors" else _pickle_problem(p)
        if why is not None:
            return f"{p}: {why}"
    return None


def _safetensors_problem(path: Path) -> str | None:
    """Why a ``.safetensors`` file cannot be read (header, offsets, size), or None."""
    size = path.stat().st_size
    if size == 0:
        return f"damaged weights file (empty file, 0 bytes): {_REPLACE}"
    with open(path, "rb") as f:
        head = f.read(8)
        n = int.from_bytes(head, "little") if len(head) == 8 else -1
        if n < 2 or 8 + n > size:
            return (
                f"damaged weights file (not a safetensors file, or cut short: its header says "
                f"{n} bytes, the file has {size}): {_REPLACE}"
            )
        try:
            header = json.loads(f.read(n))
        except (UnicodeDecodeError, ValueError):
            return f"damaged weights file (its safetensors header is not JSON): {_REPLACE}"
    if not isinstance(header, dict):
        return f"damaged weights file (its safetensors header is not a table): {_REPLACE}"
    end = 0
    for name, info in header.items():
        offsets = info.get("data_offsets") if isinstance(info, dict) else None
        if name != "__metadata__" and (not isinstance(offsets, list) or len(offsets) != 2):
            return f"damaged weights file (tensor {name!r} has no data offsets): {_REPLACE}"
        if name != "__metadata__":
            end = max(end, int(offsets[1]))
    if 8 + n + end > size:
        return (
            f"damaged weights file (cut short: its tensors need {8 + n + end} bytes, the file "
            f"has {size}): {_REPLACE}"
        )
    return None


def _pickle_problem(path: Path) -> str | None:
    """Why a pickled weights file cannot be loaded safely, or None (weights only: a payload in
    it is refused, never run)."""
    import torch

    try:
        torch.load(path, map_location="cpu", weights_only=True, mmap=True)
    except Exception as e:
        why = load_error_line(e, path)
        if "Weights only load failed" in str(e):
            return f"unsafe weights file, not loaded ({why}): {_REPLACE}, preferably safetensors"
        return f"damaged weights file ({why}): {_REPLACE}"
    return None

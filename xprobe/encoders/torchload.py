"""One line for a failed ``torch.load``: what went wrong, never torch's advice to load unsafely.

``torch.load(weights_only=True)`` refuses a file that holds more than tensors and plain
containers with a multi-line message whose first paragraph suggests re-running with
``weights_only=False`` ("will likely succeed, but it can result in arbitrary code execution").
xprobe never does that; the user gets the part that says what was refused. An empty file gives
``EOFError('')``, which says nothing: it is named as an empty file.

Example::

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:
        raise XProbeError(f"{path}: unreadable training state ({load_error_line(e, path)})")
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["load_error_line"]

# sentences of torch's messages that advise loading unsafely or point to its documentation
_ADVICE = re.compile(
    r"weights_only|trusted source|arbitrary code|Re-running|Check the documentation|"
    r"you have two options|do those steps only|internal miniz error|If you are seeing this error|"
    r"This can happen if|safe_globals|allowlist|if you trust",
    re.IGNORECASE,
)
_MAX = 300


def load_error_line(e: BaseException, path: str | os.PathLike[str] | None = None) -> str:
    """A one-line description of ``e`` raised by ``torch.load`` (of ``path``, when given)."""
    if path is not None:
        p = Path(path)
        if p.is_file() and p.stat().st_size == 0:
            return "empty file (0 bytes)"
    text = " ".join(str(e).split())
    if isinstance(e, KeyError) and e.args:
        text = repr(e.args[0])
    sentences = [s for s in re.split(r"(?<=\.)\s+", text) if s and not _ADVICE.search(s)]
    refused = "Weights only load failed" in text
    text = " ".join(s for s in sentences if "Weights only load failed" not in s)
    if refused:
        text = "the file holds objects other than tensors, refused: " + (text or "no detail")
    if len(text) > _MAX:
        text = text[: _MAX - 3].rstrip() + "..."
    name = type(e).__name__
    if not text:
        return name
    return f"{name}: {text}" if isinstance(e, (KeyError, IndexError)) else text

"""Resumable training state for ``train-nli`` and ``map``, written atomically after every epoch.

One file holds the run's identity (the settings that must match to resume), each module's
weights under its own name, the optimizer, torch's RNG state and a progress dict.
:func:`restore_state` refuses a file made with other settings, naming the settings that differ,
and reports a file that cannot be read or does not fit the modules as an :class:`XProbeError`
naming the file, never as a traceback.

Example::

    save_state(out / "train_state.pt", cfg.identity(), {"encoder": enc, "classifier": clf},
               opt, {"epoch": 3})
    progress = restore_state(out / "train_state.pt", cfg.identity(),
                             {"encoder": enc, "classifier": clf}, opt, "training state")
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.files import atomic_write

__all__ = ["restore_state", "save_state"]

_RESERVED = ("identity", "optimizer", "rng", "progress")


def save_state(
    path: Path,
    identity: dict[str, Any],
    modules: dict[str, Any],
    opt: Any,
    progress: dict[str, Any],
) -> None:
    """Write the state atomically (a crash mid-write leaves the previous file)."""
    import torch

    if any(name in _RESERVED for name in modules):
        raise ValueError(f"module names may not be any of {_RESERVED}")
    state: dict[str, Any] = {"identity": identity}
    for name, module in modules.items():
        state[name] = {k: v.detach().cpu() for k, v in module.state_dict().items()}
    state.update(optimizer=opt.state_dict(), rng=torch.get_rng_state(), progress=progress)
    with atomic_write(path, "wb") as f:
        torch.save(state, f)


def restore_state(
    path: Path, identity: dict[str, Any], modules: dict[str, Any], opt: Any, what: str
) -> dict[str, Any]:
    """Load the state into ``modules`` and ``opt``, set torch's RNG; returns the progress dict.

    ``what`` names the file in errors (``training state``, ``mapping state``).
    """
    import torch

    from xprobe.encoders.torchload import load_error_line

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        saved = state["identity"]
    except Exception as e:
        raise XProbeError(f"{path}: unreadable {what} ({load_error_line(e, path)})") from None
    if saved != identity:
        changed = sorted(k for k, v in identity.items() if saved.get(k) != v)
        raise XProbeError(f"{path}: cannot resume, the run's settings differ: {changed}")
    try:
        for name, module in modules.items():
            module.load_state_dict(state[name])
        opt.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["rng"])
        return dict(state["progress"])
    except Exception as e:
        raise XProbeError(f"{path}: unreadable {what} ({load_error_line(e)})") from None

"""Leftovers of a killed ``xprobe extract`` in its output folder: find them, clean them.

A run writes every file through a temporary one beside it (``.<name>.<pid>.<random>.tmp``, see
:func:`xprobe.files.atomic_write`) and spools stdin to ``.stdin.<pid>.<random>.conllu``; both go
away when the run ends, even on an error, but not when the process is killed (SIGKILL, power
loss), and a stdin spool can be as large as the corpus. The next run into the folder removes
those whose process is gone (:func:`clean_leftovers`); ``xprobe extract --check`` lists them
all (:func:`find_leftovers`). A file whose name carries the id of a process still running is
another run at work and is left alone.

Example::

    >>> [str(p) for p in find_leftovers("probing/en")]  # doctest: +SKIP
    ['probing/en/.word_content.txt.4711.k2j3h4g5.tmp']
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from xprobe.leftovers import pid_alive, temp_file_owner

__all__ = ["clean_leftovers", "find_leftovers", "owner_alive"]

log = logging.getLogger(__name__)


def _is_leftover(name: str) -> bool:
    if not name.startswith("."):
        return False
    return name.endswith(".tmp") or (name.startswith(".stdin.") and name.endswith(".conllu"))


def _owner(name: str) -> int | None:
    """The process id in a leftover's name, or None (an older name without one)."""
    if not name.startswith(".stdin."):  # .<name>.<pid>.<random>.tmp (an atomic write's)
        return temp_file_owner(name)
    pid = name.split(".")[2]  # .stdin.<pid>.<random>.conllu
    return int(pid) if pid.isdigit() else None


def owner_alive(path: Path) -> bool:
    """Whether the process named in a leftover's name is still running (not this one)."""
    pid = _owner(path.name)
    return pid is not None and pid_alive(pid)


def find_leftovers(directory: str | os.PathLike[str]) -> list[Path]:
    """Temporary files of a run in ``directory`` (its top level), sorted by name."""
    d = Path(directory)
    if not d.is_dir():
        return []
    return sorted(p for p in d.iterdir() if _is_leftover(p.name) and p.is_file())


def clean_leftovers(directory: str | os.PathLike[str]) -> list[Path]:
    """Remove the leftovers of killed runs in ``directory``; returns what was removed."""
    removed = []
    for p in find_leftovers(directory):
        if owner_alive(p):
            log.warning("%s: left alone, process %s still runs", p, _owner(p.name))
            continue
        size = p.stat().st_size
        p.unlink(missing_ok=True)
        log.info("removed %s (%d bytes), left by a killed run", p, size)
        removed.append(p)
    return removed

"""What a killed run leaves behind, and who may remove it.

Every file xprobe writes goes through a temporary one beside it, ``.<name>.<pid>.<random>.tmp``
(:func:`xprobe.files.atomic_write`); an export is built in a temporary folder beside its
``--out``, ``.<out>.<pid>.<random>`` (:mod:`xprobe.export.target`). Both go away when the run
ends, even on an error, but not when the process is killed (SIGKILL, power loss), and they can
be large (a UDPipe release member of 226 MB). The next run of the same command removes those
whose process is gone; one whose process still runs is another run at work and is left alone.

Example::

    >>> clean_temp_files("ud-treebanks-v2.14", recursive=True)  # doctest: +SKIP
    [PosixPath('ud-treebanks-v2.14/UD_English-EWT/.en_ewt-ud-train.conllu.4711.k2j3h4g5.tmp')]
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from pathlib import Path

__all__ = ["clean_temp_files", "clean_temp_folders", "pid_alive", "temp_file_owner"]

log = logging.getLogger(__name__)

_TEMP_FILE = re.compile(r"^\..+\.(\d+)\.[a-z0-9_]+\.tmp$")
_RANDOM = r"[a-z0-9_]{8}"  # tempfile's random part


def temp_file_owner(name: str) -> int | None:
    """The process id in an atomic write's temporary file name, or None when it is not one."""
    m = _TEMP_FILE.match(name)
    return int(m.group(1)) if m else None


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (this process counts as gone: its own leftovers are old)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove(p: Path, pid: int) -> bool:
    if pid_alive(pid):
        log.warning("%s: left alone, process %d still runs", p, pid)
        return False
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p, ignore_errors=True)
    else:
        p.unlink(missing_ok=True)
    log.info("removed %s, left by a killed run (process %d)", p, pid)
    return True


def clean_temp_files(folder: str | os.PathLike[str], recursive: bool = False) -> list[Path]:
    """Remove the temporary files of killed atomic writes in ``folder`` (and its subfolders, not
    following links, when ``recursive``); returns what was removed."""
    root = Path(folder)
    if not root.is_dir():
        return []
    found: list[Path] = []
    walk = os.walk(root) if recursive else [(str(root), [], os.listdir(root))]
    for where, _dirs, files in walk:
        for name in files:
            pid = temp_file_owner(name)
            p = Path(where, name)
            if pid is not None and not p.is_symlink() and p.is_file() and _remove(p, pid):
                found.append(p)
    return sorted(found)


def clean_temp_folders(parent: str | os.PathLike[str], name: str) -> list[Path]:
    """Remove the temporary folders ``.<name>.<pid>.<random>`` (and their ``.old`` twins) that a
    killed run building ``parent/name`` left beside it; returns what was removed."""
    where = Path(parent)
    if not where.is_dir():
        return []
    pattern = re.compile(rf"^\.{re.escape(name)}\.(\d+)\.{_RANDOM}(\.old)?$")
    removed = []
    for p in sorted(where.iterdir()):
        m = pattern.match(p.name)
        if m and not p.is_symlink() and p.is_dir() and _remove(p, int(m.group(1))):
            removed.append(p)
    return removed

"""One run at a time on a study's folder: an exclusive, non-blocking ``flock`` on
``OUT/.study/lock``, held for the whole run.

A second ``xprobe run`` on the same ``--out`` is refused with one line naming the process that
holds the lock. The lock file records the holder's process id; the lock itself belongs to the
open file, so the operating system releases it when the holder exits, however it exits: a lock
file left by a killed run does not block the next one.

Example::

    with study_lock(out):
        run_plan(make_plan(study.steps, out))
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from xprobe.errors import XProbeError
from xprobe.study.state import bookkeeping_dir

__all__ = ["study_lock"]


@contextlib.contextmanager
def study_lock(out: Path) -> Iterator[None]:
    """Hold ``OUT/.study/lock`` for the block; an :class:`XProbeError` naming the holder's pid
    when another process holds it, or when the lock is a link or no regular file: it is opened
    without following links, so a lock planted as a link to a file outside ``out`` is never
    truncated."""
    path = bookkeeping_dir(out, create=True) / "lock"
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as e:
        kind = "a symbolic link" if path.is_symlink() else "not a regular file"
        raise XProbeError(
            f"{path}: is {kind} ({e.strerror}); a study's lock is a file xprobe writes inside "
            "--out: remove it, or choose another --out"
        ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise XProbeError(
                f"{path}: is not a regular file; a study's lock is a file xprobe writes inside "
                "--out: remove it, or choose another --out"
            )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "?"
            raise XProbeError(
                f"{out}: another xprobe run (pid {holder}) is using this folder; wait for it "
                "to finish, or choose another --out"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)  # releases the lock

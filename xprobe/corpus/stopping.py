"""Stop a long run cleanly on SIGTERM or SIGINT (what ``timeout``, systemd, Slurm and Ctrl-C send).

Inside :func:`stop_on_signals`, either signal raises :class:`Stopped` in the main thread, so that
the run unwinds through its ``finally`` blocks (worker processes are terminated, finished shards
and the manifest stay as they are) and the command can exit non-zero with a line saying how to
resume. The previous handlers are restored on exit.

Example::

    >>> with stop_on_signals():                                           # doctest: +SKIP
    ...     run_corpus(config)
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

__all__ = ["Stopped", "stop_on_signals"]


class Stopped(KeyboardInterrupt):
    """Stopped by ``signum``; a KeyboardInterrupt, so that no ``except Exception`` eats it."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)

    @property
    def exit_status(self) -> int:
        """128 + the signal number, the shell's convention (143 for SIGTERM, 130 for SIGINT)."""
        return 128 + self.signum


@contextlib.contextmanager
def stop_on_signals(signums: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT)) -> Iterator[None]:
    """Turn ``signums`` into :class:`Stopped` while the block runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Stopped(signum)

    previous = {s: signal.signal(s, handler) for s in signums}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)

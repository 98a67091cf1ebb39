"""A progress line at least once a minute while a probe runs: in a study a probe step can take
many minutes (a task's folds, a model's layers) while the study's own line says only that the
step started. :class:`Heartbeat` logs, every ``every`` seconds, what is done and what runs:
``probe bov (de): 3 of 18 (task, classifier, seed) done, 1 of 9 tasks; now SubjNum mlp seed 0,
layers 4 of 7 done``.

Example::

    with Heartbeat("probe bov (de)", units=18, tasks=9) as beat:
        for u in units:
            beat.start(f"{u.task} {u.classifier} seed {u.seed}", layers=7)
            ...
            beat.layers_done(4)
            beat.done(u.task)
"""

from __future__ import annotations

import logging
import threading
from typing import Any

__all__ = ["EVERY", "Heartbeat"]

log = logging.getLogger(__name__)

EVERY = 60.0  # seconds between two progress lines


class Heartbeat:
    """Counts what a probe has done; a daemon thread logs :meth:`status` every ``every`` s."""

    def __init__(self, label: str, units: int, tasks: int, every: float | None = None) -> None:
        self.label, self.units, self.tasks = label, units, tasks
        self.every = EVERY if every is None else every
        self.n_done, self.finished = 0, set()  # units done, tasks whose units are all done
        self.now, self.layers, self.n_layers = "", 0, 0
        self.part = ""  # within the unit: "folds 2 of 5 done"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, what: str, layers: int = 1) -> None:
        self.now, self.layers, self.n_layers, self.part = what, 0, layers, ""

    def layers_done(self, n: int) -> None:
        self.layers += n

    def done(self, task: str | None = None, last: bool = False) -> None:
        """One unit done (``last``: the last of ``task``'s)."""
        self.n_done += 1
        if last and task is not None:
            self.finished.add(task)

    def status(self) -> str:
        now = f"; now {self.now}" if self.now else ""
        if now and self.n_layers > 1:
            now += f", layers {self.layers} of {self.n_layers} done"
        if now and self.part:
            now += f", {self.part}"
        return (f"{self.label}: {self.n_done} of {self.units} (task, classifier, seed) done, "
                f"{len(self.finished)} of {self.tasks} tasks{now}")  # fmt: skip

    def _beat(self) -> None:
        while not self._stop.wait(self.every):
            log.info("%s", self.status())

    def __enter__(self) -> Heartbeat:
        self._thread = threading.Thread(target=self._beat, name="probe-heartbeat", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

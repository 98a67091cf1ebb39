"""Every line extract logs names its language: in a study of many languages side by side, a
warning such as ``coordination_inversion: not applicable to this corpus: ...`` must say whose.

:func:`naming_language` sets the language for the lines logged by ``xprobe.extract`` modules
while it is active (a context variable: one thread's extraction never names another's).

Example::

    with naming_language("ta"):
        log.warning("%s: not applicable", "odd_man_out")   # "ta: odd_man_out: not applicable"
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["naming_language"]

_LANGUAGE: ContextVar[str | None] = ContextVar("xprobe_extract_language", default=None)


class _Named(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        lang = _LANGUAGE.get()
        if lang and not getattr(record, "language_named", False):
            record.msg = f"{lang.replace('%', '%%')}: {record.msg}"
            record.language_named = True
        return True


_FILTER = _Named()


@contextmanager
def naming_language(code: str) -> Iterator[None]:
    """Prefix ``code: `` to every line the ``xprobe.extract`` loggers log meanwhile."""
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        mine = name.startswith("xprobe.extract") and isinstance(logger, logging.Logger)
        if mine and _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
    token = _LANGUAGE.set(code)
    try:
        yield
    finally:
        _LANGUAGE.reset(token)

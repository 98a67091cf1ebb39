"""Errors that reach the user as one clear line (the CLI prints them without a traceback)."""

from __future__ import annotations


class XProbeError(Exception):
    """A user-facing error: bad input, a missing file, an impossible request."""


class InputError(XProbeError):
    """Malformed input, located by file and line."""

    def __init__(self, source: str, line: int | None, message: str) -> None:
        self.source = source
        self.line = line
        self.message = message
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {message}")

    def __reduce__(self) -> tuple[type[InputError], tuple[str, int | None, str]]:
        # a worker process's error reaches the parent pickled: rebuilt from its parts (the
        # default, from the formatted message alone, fails and breaks the process pool)
        return (type(self), (self.source, self.line, self.message))

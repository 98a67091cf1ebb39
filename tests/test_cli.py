"""The command line's logging: records go to stderr as it is when they are emitted."""

from __future__ import annotations

import io
import logging
import sys

from xprobe.cli import setup_logging


def test_log_records_follow_a_swapped_stderr(monkeypatch) -> None:
    first = io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    setup_logging()
    logging.getLogger("xprobe.test").info("one")
    first.close()  # as pytest closes a test's captured stderr
    second = io.StringIO()
    monkeypatch.setattr(sys, "stderr", second)
    raised = []
    monkeypatch.setattr(logging, "raiseExceptions", True)
    monkeypatch.setattr(logging.Handler, "handleError", lambda self, rec: raised.append(rec))
    logging.getLogger("xprobe.test").warning("two")
    assert not raised  # a handler bound to the first stream would fail to write here
    assert second.getvalue() == "WARNING xprobe.test: two\n"


def test_top_level_help_lists_every_command(capsys) -> None:
    """A command's HELP may contain '%' ("95% interval"): argparse must not read it as a format."""
    import pytest

    from xprobe.cli import COMMANDS, main

    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert all(name in out for name in COMMANDS) and "95% interval" in out

"""The first commands a new user runs: ``xprobe --help``, ``-h``, a bare ``xprobe`` and every
subcommand's ``--help`` print their help instead of a traceback (issue 23: a ``%`` in one help
text made argparse fail). The subcommands come from ``COMMANDS``, so a new one is covered."""

from __future__ import annotations

import pytest

from xprobe.cli import COMMANDS, main


@pytest.mark.parametrize("argv", [["--help"], ["-h"]], ids=["--help", "-h"])
def test_top_level_help_lists_every_command(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out


def test_bare_xprobe_prints_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 1
    out = capsys.readouterr().out
    assert out.startswith("usage: xprobe") and all(name in out for name in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_subcommand_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main([command, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: xprobe {command}")


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_flag_prints_the_subcommands_usage(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``xprobe languages --foo`` printed the top-level usage (``usage: xprobe [-h] ...
    COMMAND``), which does not say what ``languages`` takes."""
    with pytest.raises(SystemExit) as e:
        main([command, "--no-such-flag"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: xprobe {command}"), err
    assert f"xprobe {command}: error:" in err and "Traceback" not in err

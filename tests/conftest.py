"""Shared test fixtures. Tests that need ../shared (real data) skip cleanly when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("XPROBE_SHARED", REPO.parent / "shared"))
FIXTURES = Path(__file__).resolve().parent / "data"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test when it is not there."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"real data not available: {p}")
    return p


@pytest.fixture
def shared() -> Path:
    """The ../shared folder (data, models); skips when absent."""
    return shared_path()


@pytest.fixture
def fixtures() -> Path:
    """tests/data: small hand-written fixtures."""
    return FIXTURES

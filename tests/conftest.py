"""Shared test fixtures. Tests that need ../shared (real data) skip cleanly when it is absent."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

# One BLAS/OpenMP thread per test process: on a busy 2-core machine torch's default of one thread
# per core makes small LSTM steps hundreds of times slower (threads wait on each other).
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

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


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread() -> None:
    """Tests that use torch run with one intra-op thread (see OMP_NUM_THREADS above)."""
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency
        return
    torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def _one_torch_thread_per_test(_one_torch_thread: None) -> Iterator[None]:
    """Each test starts with one torch thread and gets back the count it started with, even when
    it (e.g. a ``--threads N`` run in-process) changed it."""
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer BERT with a tiny vocabulary, saved with save_pretrained (tests/tiny_models.py)."""
    pytest.importorskip("transformers")
    from tests.tiny_models import build_tiny_bert

    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert") / "tiny-bert")


@pytest.fixture(scope="session")
def tiny_st(tiny_bert: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sentence-transformers model (mean pooling, Normalize) on top of ``tiny_bert``."""
    pytest.importorskip("sentence_transformers")
    from tests.tiny_models import build_tiny_st

    return build_tiny_st(tiny_bert, tmp_path_factory.mktemp("tiny-st") / "tiny-st")

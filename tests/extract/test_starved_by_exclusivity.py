"""Issue 23: a task left short because rarer tasks took its sentences first (exclusivity) says
so, names them, and says that ``--no-exclusive`` would fill it, instead of only "partial"."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.extract.handmade import short_and_long
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.tasks.base import Candidate, TaskSpec, Variant


@dataclass(frozen=True)
class NoParams:
    pass


def _picky(s, ctx, rng):
    """Sentences s0..s4 (short) and s8..s12 (long): ten of the sixteen."""
    i = int(s.comment("sent_id")[1:])
    if i % 8 >= 5:
        return None
    return Candidate((Variant("short" if len(s.tokens) < 13 else "long", s.tokens),))


PICKY = TaskSpec("Picky", "picky", ("short", "long"), NoParams, _picky)


def fixture(tmp_path: Path) -> Path:
    return short_and_long(tmp_path / "c.conllu")


def config(tmp_path: Path, out: str, exclusive: bool) -> ExtractConfig:
    return ExtractConfig(
        lang="en", out=tmp_path / out, inputs=[str(fixture(tmp_path))], tasks=["SentLen", PICKY],
        sizes=(6, 2, 2), allow_partial=True, exclusive=exclusive, progress=False,
        params={"SentLen": {"bins": (5, 13)}},
    )  # fmt: skip


def test_task_starved_by_rarer_tasks_says_no_exclusive_would_fill_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        m = extract(config(tmp_path, "x", exclusive=True))
    entry = m["tasks"]["sentence_length"]
    assert not m["tasks"]["picky"]["partial"]
    # SentLen keeps 1 validation line for 2 classes: not applicable to this run, and the reason
    # says that rarer tasks took its sentences and that --no-exclusive would fill it
    assert entry["applicable"] is False
    why = entry["reason"]
    assert "rarer" in why and "Picky" in why and "--no-exclusive would fill it" in why, why
    said = [r.message for r in caplog.records if r.message.startswith("en: SentLen: ")]
    assert said and all("--no-exclusive would fill it" in line for line in said), said
    # and it would: without exclusivity the task is filled
    full = extract(config(tmp_path, "y", exclusive=False))
    assert not full["tasks"]["sentence_length"]["partial"]
    assert json.loads((tmp_path / "x" / "manifest.json").read_text())["tasks"] == m["tasks"]

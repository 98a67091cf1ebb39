"""The selection passes run with the cyclic garbage collector paused, collecting the young
generation every ``_YOUNG_EVERY`` sentences (:func:`xprobe.extract.pipeline._collect_young`):
collecting often gives the same bytes, and extract leaves the collector as it found it (on,
nothing frozen)."""

from __future__ import annotations

import gc
from pathlib import Path

from tests.extract.test_extract import write_corpus
from xprobe.extract import pipeline
from xprobe.extract.pipeline import ExtractConfig, extract

TASKS = ["SentLen", "TreeDepth", "BShift", "WC"]


def _run(out: Path, corpus: Path) -> dict[str, bytes]:
    cfg = ExtractConfig(lang="en", out=out, inputs=[str(corpus)], tasks=TASKS,
                        sizes=(300, 40, 40), allow_partial=True, progress=False)  # fmt: skip
    extract(cfg)
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_collecting_often_gives_the_same_bytes(tmp_path: Path, monkeypatch) -> None:
    corpus = write_corpus(tmp_path / "c.conllu", 4000, seed=3)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    paused = _run(tmp_path / "paused", corpus)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    calls = []
    young = pipeline._collect_young

    def counted() -> None:
        calls.append(1)
        young()

    monkeypatch.setattr(pipeline, "_YOUNG_EVERY", 1000)
    monkeypatch.setattr(pipeline, "_collect_young", counted)
    often = _run(tmp_path / "often", corpus)
    assert len(calls) >= 2
    assert often == paused
    assert gc.isenabled() and gc.get_freeze_count() == 0

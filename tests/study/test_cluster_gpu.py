"""A study on CUDA through a real Dask cluster with one GPU worker and one CPU-only worker (slow;
skipped without a CUDA device): `dask worker --resources GPU=1` sees the GPU, the other worker
runs with `CUDA_VISIBLE_DEVICES=""`. The sample study with `device = "cuda"` finishes; every
step that wants the GPU ran on the GPU worker (on the other one `--device cuda` would stop it)
and the steps that do not want it may run on either, so their commands must not ask for CUDA (a
bag-of-vectors probe on the CPU worker used to stop with "--device cuda: no CUDA device
available"; tests/study/test_cluster.py checks those commands on any machine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from real_cluster import REPO, Cluster

pytestmark = pytest.mark.slow
torch = pytest.importorskip("torch")
distributed = pytest.importorskip("distributed")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)

GPU_STEPS = {"train-nli-en-bilstm-max", "map-de-bilstm-max", "probe-en-bilstm-max",
             "probe-de-bilstm-max"}  # fmt: skip


def test_a_cuda_study_sends_gpu_steps_to_the_gpu_worker_and_the_rest_anywhere(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    cluster = Cluster(tmp_path / "dask", workers=2, worker_args={1: ["--resources", "GPU=1"]},
                      worker_env={2: {"CUDA_VISIBLE_DEVICES": ""}})  # fmt: skip
    with cluster:
        since = cluster.record_tasks()
        argv = [sys.executable, "-m", "xprobe", "run", str(REPO / "studies" / "sample.toml"),
                "--out", str(out), "--scheduler", cluster.address,
                "--variant", "tiny", "--set", 'study.device="cuda"']  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        run = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=1500)
        assert run.returncode == 0, run.stderr[-4000:]
        ran = cluster.tasks_run(since)
    assert cluster.leftovers() == []
    steps = {k for keys in ran.values() for k in keys}
    assert steps >= GPU_STEPS
    assert ran["w1"] >= GPU_STEPS, ran
    assert ran.get("w2", set()) & steps - GPU_STEPS, f"nothing ran on the CPU-only worker: {ran}"
    for lang in ("en", "de"):
        records = [json.loads(x) for x in (out / "results" / lang / "bilstm-max.jsonl").open()]
        assert records and all(0.0 < r["value"] <= 1.0 for r in records)

"""MDL online code: far below uniform on a learnable task, about uniform on random labels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from xprobe.probe.mdl import block_ends, online_code

pytest.importorskip("torch")


def test_block_ends():
    assert block_ends(10000) == [10, 20, 40, 80, 160, 320, 625, 1250, 2500, 5000, 10000]
    assert block_ends(300)[:3] == [1, 2, 5] and block_ends(300)[-1] == 300


def _data(n, signal, seed=0):
    g = np.random.default_rng(seed)
    y = g.integers(0, 2, size=n)
    x = g.normal(size=(n, 4))
    if signal:
        x[:, 0] += 5 * y
    return x.astype(np.float32), y


def _code(signal):
    from xprobe.probe.classifiers import TrainConfig

    xtr, ytr = _data(1000, signal)
    xva, yva = _data(200, signal, seed=1)
    cfg = TrainConfig(max_epochs=60, lr=5e-2, device="cpu")
    # grid "default": a converged lr without L2 is unbounded on a separable prefix (2 items)
    return online_code(xtr, ytr, xva, yva, 2, kind="lr", seed=0, grid="default", config=cfg)


def test_learnable_task_compresses_random_labels_do_not():
    good, bad = _code(True), _code(False)
    assert good.uniform == pytest.approx(1000 * math.log2(2))
    assert good.compression > 3  # labels nearly free once a few examples are seen
    assert 0.85 < bad.compression < 1.1  # nothing to learn: about the uniform code
    assert sum(b for _, b in good.blocks) == pytest.approx(good.codelength)


def test_probe_mdl_classifier_records_the_code(tmp_path):
    from tests.report.test_report_stats import _Signal, _task
    from xprobe.probe.classifiers import TrainConfig
    from xprobe.probe.harness import ProbeOptions, run_probe
    from xprobe.report.build import write_report

    data = tmp_path / "d" / "xx"
    _task(data / "bigram_shift.txt")
    cfg = TrainConfig(max_epochs=20, lr=1e-2)
    opts = ProbeOptions(classifiers=("mdl-lr",), language="xx", device="cpu",
                        cache_dir=tmp_path / "c", train=cfg)  # fmt: skip
    [rec] = [r for r in run_probe(_Signal(0.5), data, tmp_path / "r.jsonl", opts)
             if r["split"] == "test"]  # fmt: skip
    assert rec["classifier"] == "mdl-lr" and rec["value"] > 0.8
    assert rec["mdl"]["compression"] > 1.3 and rec["mdl"]["uniform"] == 300.0
    write_report([rec], tmp_path / "rep")
    text = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert f"({rec['mdl']['compression']:.2f}×)" in text

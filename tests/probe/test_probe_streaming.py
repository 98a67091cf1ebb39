"""Layers streamed in blocks (``--layer-block``): the same records as every layer at once, with
never more than a block of layers' features handed to the probe."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.probe.test_probe_layers import make_probing_dir, opts
from xprobe.probe import context
from xprobe.probe.harness import run_probe
from xprobe.probe.streaming import joint_iterations, layer_blocks


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_layer_blocks() -> None:
    assert layer_blocks((0, 1, 2, 3, 4), 2) == [(0, 1), (2, 3), (4,)]
    assert layer_blocks((0, 1, 2), None) == [(0, 1, 2)]
    assert layer_blocks((0, 1, 2), 3) == [(0, 1, 2)]


def test_joint_count_is_the_largest_over_the_blocks() -> None:
    res = {0: (0.5, 0.4, {"l2": 1e-3, "iterations_joint": 7}, None),
           1: (0.6, 0.5, {"l2": 1e-2, "iterations_joint": 12}, None)}  # fmt: skip
    out = joint_iterations(res)
    assert [r[2]["iterations_joint"] for r in out.values()] == [12, 12]
    assert out[0][2]["l2"] == 1e-3


@pytest.mark.parametrize("classifier", ["lr", "mlp"])
def test_streamed_records_equal_all_at_once(tiny_bert: Path, tmp_path: Path, monkeypatch,
                                            classifier: str) -> None:  # fmt: skip
    data = make_probing_dir(tmp_path)
    spec = f"hf:{tiny_bert}"
    o = {"classifiers": (classifier,)}
    at_once = run_probe(spec, data, tmp_path / "all.jsonl", opts(tmp_path, **o))
    widths: list[int] = []
    real = context.train_select_layers

    def spy(xtr, *a, **kw):
        widths.append(len(xtr))
        return real(xtr, *a, **kw)

    monkeypatch.setattr(context, "train_select_layers", spy)
    for block in (1, 2):
        out = tmp_path / f"b{block}.jsonl"
        widths.clear()
        recs = run_probe(spec, data, out, opts(tmp_path, layer_block=block, **o))
        assert recs == at_once
        assert _lines(out) == _lines(tmp_path / "all.jsonl")
        assert max(widths) == block  # never more than a block of layers at once
    assert sorted({r["layer"] for r in at_once}) == [0, 1, 2]
    key = "iterations_joint" if classifier == "lr" else "epochs_joint"
    assert len({r["hyperparameters"][key] for r in at_once}) == 1


def test_layer_block_must_be_positive(tmp_path: Path, capsys) -> None:
    from xprobe.cli import main

    with pytest.raises(SystemExit) as e:
        main(["probe", "--encoder", "hf:x", "--data", str(tmp_path), "--out",
              str(tmp_path / "r.jsonl"), "--layer-block", "0"])  # fmt: skip
    assert e.value.code == 2
    assert "expected a positive integer, got '0'" in capsys.readouterr().err
    assert not (tmp_path / "r.jsonl").exists()


def test_joint_history_is_that_of_the_solve_of_every_layer() -> None:
    """A block keeps as many L-BFGS pairs as the all-at-once solve would (fewer for big
    problems): 33 layers of 4096-d, 5 grid points, binomial: 676k parameters, 18 pairs."""
    import torch

    from xprobe.probe.convex import fit_lr
    from xprobe.probe.streaming import joint_history

    assert joint_history([4096] * 33, 5, 2) == 18
    assert joint_history([4096], 5, 2) == 100
    g = np.random.default_rng(0)
    xs = [torch.from_numpy(g.normal(size=(30, 4)).astype(np.float32)) for _ in range(2)]
    y = torch.from_numpy(np.arange(30) % 3)
    fit = fit_lr(xs, y, None, [1e-2], 3, history=joint_history([4, 4], 1, 3))
    assert fit.converged

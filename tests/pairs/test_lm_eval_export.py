"""The lm-evaluation-harness export, run by the harness itself (installed from the registry):
`lm_eval --include_path DIR --tasks xprobe_pairs_en` on a tiny GPT-2 trained in the test gives,
item by item, the verdicts `xprobe score` gives under `sum`. A tie (both sides scored alike: the
same token ids, such as two unknown words) is a tie in both; the harness counts it as correct
(its arg-max takes the first choice), xprobe as half. Issue 40."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pairs.test_pairs_gold import built  # noqa: F401  (a fixture)
from tests.pairs.test_score import tiny_lm  # noqa: F401  (a fixture)
from xprobe.cli import main

LM_EVAL = "lm_eval==0.4.13"


def ensure_lm_eval() -> None:
    """Install lm-evaluation-harness from the registry when it is not there (as CI does)."""
    if importlib.util.find_spec("lm_eval") is None:
        done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", LM_EVAL],
                              capture_output=True, text=True)  # fmt: skip
        if done.returncode != 0:
            pytest.skip(f"cannot install {LM_EVAL}: {done.stderr.strip()[-300:]}")


@pytest.mark.slow
def test_lm_eval_runs_the_export_and_agrees_item_by_item(
    built: tuple[Path, Path, Path],  # noqa: F811
    tiny_lm: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    ensure_lm_eval()
    _, _, pairs = built
    tasks = tmp_path / "tasks"
    assert main(["export", "lm-eval", str(pairs), "--out", str(tasks)]) == 0
    scores = tmp_path / "scores.jsonl"
    argv = ["score", str(pairs), "--model", f"hf:{tiny_lm}", "--out", str(scores), "--no-controls",
            "--cache-dir", str(tmp_path / "cache")]  # fmt: skip
    assert main(argv) == 0
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "lm_eval", "--model", "hf", "--model_args",
         f"pretrained={tiny_lm},dtype=float32", "--include_path", str(tasks), "--tasks",
         "xprobe_pairs_en", "--device", "cpu", "--batch_size", "8", "--log_samples",
         "--output_path", str(tmp_path / "lm-eval-out")],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    records = [json.loads(x) for x in scores.read_text().splitlines()]
    ours = {r["phenomenon"]: r for r in records if r.get("normalisation") == "sum"}
    assert len(ours) >= 3
    for phenomenon, r in ours.items():
        [samples] = (tmp_path / "lm-eval-out").rglob(f"samples_xprobe_en_{phenomenon}_*.jsonl")
        rows = sorted((json.loads(x) for x in samples.read_text().splitlines()),
                      key=lambda x: x["doc_id"])  # fmt: skip
        assert len(rows) == r["n"]
        theirs_acc = 0.0
        for row, margin in zip(rows, r["margin"], strict=True):
            good, bad = (float(x[0]) for x in row["filtered_resps"])
            assert row["doc"]["good"] and row["acc"] == float(good >= bad)
            if margin == 0:
                assert abs(good - bad) < 1e-3, (phenomenon, row["doc"])  # a tie in both
            else:
                assert (good > bad) == (margin > 0), (phenomenon, row["doc"], good, bad, margin)
            theirs_acc += row["acc"]
        ties = r["ties"]
        assert theirs_acc / r["n"] == pytest.approx(r["value"] + 0.5 * ties / r["n"])

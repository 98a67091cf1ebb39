"""studies/sample.toml (the demo) end to end through `xprobe run` at the tiny size (slow): a
report; a rerun finds everything done; `--dry-run` says nothing is left; a run killed with
SIGKILL mid-way and rerun gives the same results as an uninterrupted run; a changed probe setting
reruns only the probe and report steps; two steps at once (the default on 2 cores) write the same
bytes as one at a time."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xprobe.cli import main
from xprobe.study import STUDIES_DIR, run_study

pytestmark = pytest.mark.slow
STUDY = STUDIES_DIR / "sample.toml"
REPO = Path(__file__).resolve().parents[2]


def argv(out: Path, *extra: str) -> list[str]:
    return ["run", str(STUDY), "--variant", "tiny", "--out", str(out), *extra]


def outputs(out: Path) -> dict[str, bytes]:
    """What a study produces for its users: probing sets, result records, report tables."""
    files = [*out.glob("probing/*/*.txt"), out / "results" / "results.jsonl",
             *out.glob("report/*.csv")]  # fmt: skip
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(files)}


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sample") / "run"
    assert main(argv(out, "--jobs", "1")) == 0
    return out


def manifests(out: Path) -> dict[str, object]:
    """The probing manifests without what differs between two identical runs: timings and the
    output folder's own path."""

    def strip(x: object) -> object:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if not k.endswith("seconds")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x.replace(str(out), "<OUT>") if isinstance(x, str) else x

    return {str(p.relative_to(out)): strip(json.loads(p.read_text("utf-8")))
            for p in sorted(out.glob("probing/*/manifest.json"))}  # fmt: skip


def test_two_steps_at_once_write_what_one_at_a_time_writes(finished: Path, tmp_path: Path):
    """The English and German branches run side by side (`--jobs 2`, each step on its share of
    the cores): the same task files, records, report tables and manifests, byte for byte."""
    out = tmp_path / "two"
    assert main(argv(out, "--jobs", "2")) == 0
    assert outputs(out) == outputs(finished)
    assert manifests(out) == manifests(finished) and manifests(out)


def test_sample_study_runs_to_a_report_and_a_rerun_finds_it_done(
    finished: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xprobe.tasks import TASKS

    assert (finished / "report" / "report.md").exists()
    for lang in ("en", "de"):
        files = {p.name for p in (finished / "probing" / lang).glob("*.txt")}
        assert files == {f"{spec.file}.txt" for spec in TASKS.values()}, lang
    records = (finished / "results" / "results.jsonl").read_text().splitlines()
    assert any('"language": "de"' in r and '"encoder": "bilstm-max"' in r for r in records)
    capsys.readouterr()
    assert main(argv(finished, "--dry-run")) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "nothing left to do (17 steps done)"
    before = outputs(finished)
    t0 = time.perf_counter()
    assert main(argv(finished)) == 0
    assert time.perf_counter() - t0 < 30
    assert "0 steps run, 17 done before" in capsys.readouterr().out
    assert outputs(finished) == before


def test_killed_midway_then_rerun_equals_an_uninterrupted_run(finished: Path, tmp_path: Path):
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "xprobe", "-q", *argv(out)], env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    marks = out / ".study" / "steps"
    try:  # kill it while it trains the NLI encoder, a step with its own checkpoints
        deadline = time.time() + 600
        while not (marks / "train-nli-en-bilstm-max.started").exists():
            assert proc.poll() is None and time.time() < deadline, "the run ended too early"
            time.sleep(0.2)
        time.sleep(3)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not (marks / "report.json").exists()
    assert main(argv(out)) == 0
    assert outputs(out) == outputs(finished)


def test_changed_probe_setting_reruns_only_probe_and_report(finished: Path, tmp_path: Path):
    out = tmp_path / "copy"
    shutil.copytree(finished, out)  # a moved study folder is still done
    timings = run_study(STUDY, out, "tiny", {"probe": {"seeds": 2}})
    ran = sorted(k for k in timings if k != "total")
    assert ran == sorted(["probe-en-bov-fasttext", "probe-en-bilstm-max",
                          "probe-de-bov-fasttext", "probe-de-bilstm-max", "report"])  # fmt: skip
    records = (out / "results" / "results.jsonl").read_text()
    assert '"seed": 1' in records  # the second seed is there
    assert (out / "probing" / "en").exists() and outputs(out) != outputs(finished)

"""The time left of a study's run: each step's size times its kind's rate, so quick steps done
first do not make the costly ones left look quick (issue 42: 11 of 18 steps done after 18
minutes, "about 2 minutes left")."""

from __future__ import annotations

from pathlib import Path

import pytest

from xprobe.study.estimate import ENCODER_SECONDS_PER_BYTE, Estimate
from xprobe.study.state import Step


def probe(name: str, folder: Path, encoder: str | None, origin: str) -> Step:
    argv = ["probe", "--data", str(folder), "--out", f"{folder}.jsonl"]
    argv += ["--encoder", encoder] if encoder else ["--classifier", "majority"]
    return Step(name, "probe", ("cli", [argv]), (f"{folder}.jsonl",), origin=origin)


def folder(root: Path, name: str, nbytes: int) -> Path:
    d = root / name
    d.mkdir()
    (d / "past_present.txt").write_bytes(b"x" * (nbytes // 2))
    (d / "subj_number.txt").write_bytes(b"x" * (nbytes - nbytes // 2))
    (d / "manifest.json").write_bytes(b"{}" * 1000)  # not a task file: not counted
    return d


def steps(root: Path) -> list[Step]:
    de, fr = folder(root, "de", 600_000), folder(root, "fr", 300_000)
    tb = [Step(f"treebank-{c}", "extract", ("call", "m:f", {}), (str(root / c),)) for c in "ab"]
    return [
        *tb,
        probe("probe-de-baselines", de, None, "[probe] baselines"),
        probe("probe-fr-baselines", fr, None, "[probe] baselines"),
        probe("probe-de-minilm", de, "hf:/models/minilm", "[encoders.minilm]"),
        probe("probe-fr-minilm", fr, "hf:/models/minilm", "[encoders.minilm]"),
        Step("report", "report", ("call", "m:f", {}), (str(root / "report"),)),
    ]


def test_quick_steps_first_do_not_hide_the_encoder_probes(tmp_path: Path) -> None:
    est = Estimate(steps(tmp_path))
    for name in ("treebank-a", "treebank-b", "probe-de-baselines", "probe-fr-baselines"):
        est.finished(name, 10.0)
    left = est.predicted()
    # no encoder probe has finished: the calibrated rate, by the bytes each one reads
    assert left["probe-de-minilm"] == pytest.approx(600_000 * ENCODER_SECONDS_PER_BYTE)
    assert left["probe-fr-minilm"] == pytest.approx(300_000 * ENCODER_SECONDS_PER_BYTE)
    assert left["report"] == pytest.approx(10.0)  # an unseen kind: the mean step
    # one at a time (elapsed = the steps' seconds): far more than 3 x the mean step
    assert est.left(elapsed=40.0) == pytest.approx(900_000 * ENCODER_SECONDS_PER_BYTE + 10)


def test_a_finished_step_sets_its_kinds_rate(tmp_path: Path) -> None:
    est = Estimate(steps(tmp_path))
    est.finished("probe-de-baselines", 4.0)
    est.finished("probe-de-minilm", 300.0)
    left = est.predicted()
    assert left["probe-fr-minilm"] == pytest.approx(150.0)  # half the bytes, half the time
    assert left["probe-fr-baselines"] == pytest.approx(2.0)  # its own kind's rate
    # two steps side by side: the run's wall time is half its step seconds, but not less than
    # the longest step left
    assert 0.5 * sum(left.values()) < left["probe-fr-minilm"]
    assert est.left(elapsed=152.0) == pytest.approx(left["probe-fr-minilm"])
    est.finished("probe-fr-minilm", 150.0)
    rest = est.predicted()
    assert est.left(elapsed=227.0) == pytest.approx(0.5 * sum(rest.values()))  # 454 s of steps


def test_a_folder_not_there_yet_takes_its_kinds_mean_size(tmp_path: Path) -> None:
    plan = steps(tmp_path)
    plan.append(probe("probe-es-minilm", tmp_path / "es", "hf:/m", "[encoders.minilm]"))
    est = Estimate(plan)
    est.finished("probe-de-minilm", 300.0)
    assert est.predicted()["probe-es-minilm"] == pytest.approx(225.0)  # (600k + 300k) / 2


def test_a_busy_machine_and_a_running_step(tmp_path: Path) -> None:
    est = Estimate(steps(tmp_path))
    est.finished("treebank-a", 8.0, cpu=1.0)  # a quarter of a core: 8 wall seconds per CPU s
    est.finished("treebank-b", 8.0, cpu=1.0)
    est.started("probe-de-minilm", at=16.0)
    prior = 600_000 * ENCODER_SECONDS_PER_BYTE * 8
    assert est.predicted(elapsed=16.0)["probe-de-minilm"] == pytest.approx(prior)
    ran = est.predicted(elapsed=116.0)["probe-de-minilm"]
    assert ran == pytest.approx(prior - 100.0)  # the seconds it has run are spent
    assert est.predicted(elapsed=1e9)["probe-de-minilm"] == pytest.approx(0.1 * prior)
    # a finished encoder probe does not make the quick kinds not seen yet look long
    est.finished("probe-de-minilm", 900.0, cpu=120.0)
    assert est.predicted()["report"] == pytest.approx(8.0)


def test_no_overlap_ends_the_run_before_its_longest_step_left(tmp_path: Path) -> None:
    """Steps side by side make the run's wall time less than its steps' seconds, but never less
    than the longest step left (the rehearsal: its last transformer probe ran alone for 8 of
    its 46 minutes, and the time left was halved)."""
    est = Estimate(steps(tmp_path))
    for name in ("treebank-a", "treebank-b", "probe-de-baselines", "probe-fr-baselines"):
        est.finished(name, 10.0)
    est.finished("probe-de-minilm", 300.0)
    # two at a time so far (170 s for 340 step seconds); left: probe-fr-minilm (150 s at
    # German's rate), then the report (10 s)
    assert est.left(elapsed=170.0) == pytest.approx(150.0)

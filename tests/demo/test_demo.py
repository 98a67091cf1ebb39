"""`xprobe demo`: stage bookkeeping (fast) and the whole pipeline at the tiny size (slow)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from xprobe.demo.run import run_demo
from xprobe.demo.runner import SIZES, Demo
from xprobe.errors import XProbeError


def test_finished_stages_are_skipped(tmp_path: Path) -> None:
    calls: list[str] = []
    for _ in range(2):
        d = Demo(tmp_path, "tiny", seed=1, workers=1)
        d.stages = [(n, lambda n=n: calls.append(n)) for n in ("a", "b")]
        d.run()
    assert calls == ["a", "b"]
    (tmp_path / ".stages" / "b.done").unlink()
    d.run()
    assert calls == ["a", "b", "b"]


def test_failing_stage_leaves_no_marker(tmp_path: Path) -> None:
    d = Demo(tmp_path, "tiny", seed=1, workers=1)

    def boom() -> None:
        raise XProbeError("broken")

    d.stages = [("ok", lambda: None), ("bad", boom)]
    with pytest.raises(XProbeError, match="broken"):
        d.run()
    assert (tmp_path / ".stages" / "ok.done").exists()
    assert not (tmp_path / ".stages" / "bad.done").exists()


def test_missing_command_names_the_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "xprobe.commands.map" else real(name, *a),
    )
    d = Demo(tmp_path, "tiny", seed=1, workers=1)
    with pytest.raises(XProbeError, match=r"demo stage 'map' needs `xprobe map`"):
        d.cli("map", ["map", "--help"])


def test_unknown_size_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(XProbeError, match="unknown demo size 'huge'"):
        Demo(tmp_path, "huge", seed=1, workers=1)
    assert set(SIZES) == {"small", "tiny"}


@pytest.mark.slow
def test_demo_end_to_end_tiny(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from xprobe.cli import main
    from xprobe.tasks import TASKS

    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--size", "tiny"]) == 0
    printed = capsys.readouterr().out
    assert "X-Probe demo finished" in printed and str(out / "report") in printed
    for lang in ("en", "de"):
        files = {p.name for p in (out / "probing" / lang).glob("*.txt")}
        assert files == {f"{spec.file}.txt" for spec in TASKS.values()}, lang
    records = [json.loads(x) for x in (out / "results" / "results.jsonl").read_text().splitlines()]
    test = defaultdict(dict)
    for r in records:
        if r["split"] == "test":
            test[(r["language"], r["encoder"], r["classifier"])][r["task"]] = r["value"]
    for lang in ("en", "de"):
        for enc in ("bilstm-max", "bov-fasttext"):
            assert set(test[(lang, enc, "mlp")]) == set(TASKS), (lang, enc)
    majority = test[("en", "baseline", "majority")]
    trained = test[("en", "bilstm-max", "mlp")]
    for task in ("SentLen", "WC", "Tense", "SubjNum"):
        assert trained[task] > majority[task], (task, trained[task], majority[task])
    report = out / "report"
    assert list(report.glob("*.md")) and list(report.glob("*.csv"))
    pngs = list(report.rglob("*.png"))
    assert pngs and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    # a second run resumes: every stage is skipped and the results stay as they are
    before = (out / "results" / "results.jsonl").read_bytes()
    info = run_demo(out, size="tiny")
    assert info["timings"]["total"] < 30
    assert (out / "results" / "results.jsonl").read_bytes() == before

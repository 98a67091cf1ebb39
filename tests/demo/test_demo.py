"""`xprobe demo`: the sample study's shortcut (fast) and the whole pipeline at the tiny size
(slow). The skip and resume logic it relies on is tested in tests/study/."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from xprobe.demo.run import SIZES, run_demo
from xprobe.errors import XProbeError


def test_unknown_size_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(XProbeError, match="unknown demo size 'huge'"):
        run_demo(tmp_path, "huge", seed=1, workers=1)
    assert set(SIZES) == {"small", "tiny"}
    assert not any(tmp_path.iterdir())  # refused before anything ran


def test_demo_is_the_sample_study(tmp_path: Path) -> None:
    """One orchestration path: each demo size is studies/sample.toml (tiny: its variant)."""
    from xprobe.study import STUDIES_DIR, load_study

    for size, variant in SIZES.items():
        study = load_study(STUDIES_DIR / "sample.toml", tmp_path, variant)
        names = [s.name for s in study.steps]
        assert names[0] == "sample" and names[-1] == "report"
        assert {"extract-de", "train-nli-en-bilstm-max", "map-de-bilstm-max"} <= set(names), size
        report = next(s for s in study.steps if s.name == "report")
        assert "--html" in report.action[2]["argv"], size  # report.html beside report.md
        words = next(s for s in study.steps if s.name == "extract-de").strings()
        assert words[words.index("--dataset") + 1] == "sample"  # in the manifest, for probes
    tiny = load_study(STUDIES_DIR / "sample.toml", tmp_path, "tiny")
    assert tiny.data["sample"]["sentences"] == 8000 and tiny.data["study"]["sizes"] == [
        400,
        100,
        100,
    ]


def test_demo_runs_independent_steps_side_by_side(tmp_path: Path, monkeypatch) -> None:
    """The demo asks for one step per core (jobs 0): its English and German branches are
    independent, so on 2 cores they run at once."""
    from xprobe.demo import run as demo_run

    seen: dict = {}

    def fake_run_study(path, out, variant=None, overrides=None, jobs=1, scheduler=None):
        seen.update(variant=variant, overrides=overrides, jobs=jobs)
        return {"total": 0.0}

    monkeypatch.setattr(demo_run, "run_study", fake_run_study)
    info = run_demo(tmp_path, "tiny", seed=3, workers=2)
    assert seen == {"variant": "tiny", "overrides": {"study": {"seed": 3, "workers": 2}}, "jobs": 0}
    assert info["html"] == str(tmp_path / "report" / "report.html")


@pytest.mark.slow
def test_demo_end_to_end_tiny(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from xprobe.cli import main
    from xprobe.tasks import TASKS

    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--size", "tiny"]) == 0
    printed = capsys.readouterr().out
    assert "X-Probe demo finished" in printed and str(out / "report" / "report.html") in printed
    page = (out / "report" / "report.html").read_text(encoding="utf-8")
    assert page.index("relative to en") < page.index("How to read")  # the answer first
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

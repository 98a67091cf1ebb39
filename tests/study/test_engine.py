"""Skip logic, plans and resumption on small synthetic plans (fast): fingerprints, markers,
``--dry-run`` lines, a changed setting rerunning its step and dependents only, a failed step
rerun to the same result as an uninterrupted run."""

from __future__ import annotations

from pathlib import Path

import pytest

from xprobe.errors import XProbeError
from xprobe.study import Step, make_plan
from xprobe.study.engine import run_plan
from xprobe.study.schema import cpu_count


def chain(out: Path, ext: Path, b_text: str = "b", fail_if: str = "") -> list[Step]:
    """a (reads an external file) -> b -> c, and d (independent)."""
    log = str(out / "calls.log")

    def step(name: str, text: str, inputs: list[str], fail: str = "") -> Step:
        kw = {"out": str(out / name), "text": text, "inputs": inputs, "fail_if": fail}
        return Step(name, name, ("call", "tests.study.helpers:write", {**kw, "log": log}),
                    (str(out / name),))  # fmt: skip

    return [
        step("a", "a", [str(ext)]),
        step("b", b_text, [str(out / "a")], fail_if),
        step("c", "c", [str(out / "b")]),
        step("d", "d", []),
    ]


def calls(out: Path) -> list[str]:
    path = out / "calls.log"
    lines = path.read_text().split() if path.exists() else []
    path.unlink(missing_ok=True)
    return lines


@pytest.fixture
def ext(tmp_path: Path) -> Path:
    p = tmp_path / "input.txt"
    p.write_text("external ")
    return p


def test_finished_plan_is_skipped_and_dry_run_says_so(tmp_path: Path, ext: Path) -> None:
    out = tmp_path / "out"
    plan = make_plan(chain(out, ext), out)
    assert [s.reason for s in plan.steps] == ["new"] * 4
    run_plan(plan)
    assert sorted(calls(out)) == ["a", "b", "c", "d"]
    assert (out / "c").read_text() == "external abc"
    again = make_plan(chain(out, ext), out)
    assert again.todo == []
    assert again.lines()[-1] == "nothing left to do (4 steps done)"
    run_plan(again)
    assert calls(out) == []


def test_changed_setting_reruns_the_step_and_its_dependents_only(tmp_path: Path, ext: Path):
    out = tmp_path / "out"
    run_plan(make_plan(chain(out, ext), out))
    calls(out)
    plan = make_plan(chain(out, ext, b_text="B"), out)
    reasons = {s.step.name: s.reason for s in plan.steps}
    assert reasons["a"] == reasons["d"] == "done"
    assert reasons["b"] == "settings changed"
    assert reasons["c"].startswith("input changed: <OUT>/b")
    assert "[2/4] to do  b  (settings changed)" in plan.lines()
    run_plan(plan)
    assert calls(out) == ["b", "c"]
    assert (out / "c").read_text() == "external aBc"


def test_changed_input_content_and_missing_outputs(tmp_path: Path, ext: Path) -> None:
    out = tmp_path / "out"
    run_plan(make_plan(chain(out, ext), out))
    calls(out)
    ext.write_text("changed ")
    (out / "d").unlink()
    plan = make_plan(chain(out, ext), out)
    reasons = {s.step.name: s.reason for s in plan.steps}
    assert reasons["a"] == f"input changed: {ext}"
    assert reasons["b"].startswith("input changed") and reasons["c"].startswith("input changed")
    assert reasons["d"] == "outputs missing: <OUT>/d"
    run_plan(plan)
    assert sorted(calls(out)) == ["a", "b", "c", "d"]
    assert (out / "c").read_text() == "changed abc"


def test_failed_step_then_rerun_equals_an_uninterrupted_run(tmp_path: Path, ext: Path) -> None:
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    run_plan(make_plan(chain(whole, ext), whole))
    flag = tmp_path / "kill-b"
    flag.write_text("")
    with pytest.raises(XProbeError, match="was killed"):
        run_plan(make_plan(chain(broken, ext, fail_if=str(flag)), broken))
    assert (broken / ".study" / "steps" / "a.json").exists()
    assert not (broken / ".study" / "steps" / "b.json").exists()
    assert (broken / ".study" / "steps" / "b.started").exists()
    plan = make_plan(chain(broken, ext, fail_if=str(flag)), broken)
    assert {s.step.name: s.reason for s in plan.todo}["b"] == "interrupted, resumes"
    assert "a" not in {s.step.name for s in plan.todo}
    flag.unlink()
    run_plan(plan)
    for name in "abcd":
        assert (broken / name).read_bytes() == (whole / name).read_bytes(), name


def test_a_changed_step_loses_its_old_outputs_first(tmp_path: Path, ext: Path) -> None:
    out = tmp_path / "out"
    steps = chain(out, ext)
    run_plan(make_plan(steps, out))
    stale = out / "b"
    assert stale.exists()
    plan = make_plan(chain(out, ext, b_text="B"), out)
    from xprobe.study.engine import _clean

    _clean(next(s for s in plan.steps if s.step.name == "b"), out)
    assert not stale.exists() and (out / "a").exists()


def test_local_processes_run_the_same_plan(tmp_path: Path, ext: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    run_plan(make_plan(chain(one, ext), one))
    timings = run_plan(make_plan(chain(two, ext), two), jobs=2)
    assert set(timings) == {"a", "b", "c", "d", "total"}
    for name in "abcd":
        assert (two / name).read_bytes() == (one / name).read_bytes(), name
    assert make_plan(chain(two, ext), two).todo == []


def test_a_folder_holding_other_steps_outputs_is_not_read_whole(tmp_path: Path, ext: Path):
    """A root folder as an argument (``--data-dir CACHE``) depends on the steps writing inside
    it, and is not hashed: its other files (caches) change all the time."""
    out = tmp_path / "out"
    steps = chain(out, ext)
    root = Step(
        "e",
        "e",
        ("call", "tests.study.helpers:write", {"out": str(out / "e"), "text": str(out)}),
        (str(out / "e"),),
    )
    run_plan(make_plan([*steps, root], out))
    (out / "scratch.bin").write_text("changes every run")
    plan = make_plan([*steps, root], out)
    assert plan.todo == []
    assert plan.steps[-1].deps == ["a", "b", "c", "d"]


def test_dask_distributed_client_runs_the_same_plan(tmp_path: Path, ext: Path) -> None:
    distributed = pytest.importorskip("distributed")
    local, remote = tmp_path / "local", tmp_path / "remote"
    run_plan(make_plan(chain(local, ext), local))
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as c:
        timings = run_plan(make_plan(chain(remote, ext), remote), scheduler=c.scheduler_address)
    assert set(timings) == {"a", "b", "c", "d", "total"}
    for name in "abcd":
        assert (remote / name).read_bytes() == (local / name).read_bytes(), name


def side_by_side(out: Path) -> list[Step]:
    """Two independent steps that each wait for the other to have started."""
    x, y = str(out / "x"), str(out / "y")
    hx, hy = str(out / "x-here"), str(out / "y-here")  # scratch, no step's output: no dependency
    meet = "tests.study.helpers:meet"
    return [
        Step("x", "x", ("call", meet, {"out": x, "here": hx, "there": hy}), (x,)),
        Step("y", "y", ("call", meet, {"out": y, "here": hy, "there": hx}), (y,)),
    ]


@pytest.mark.skipif(cpu_count() < 2, reason="needs two cores")
def test_independent_steps_run_side_by_side_by_default(tmp_path: Path) -> None:
    """`xprobe run` and the demo (jobs 0: one step per core) run independent steps at once."""
    out = tmp_path / "out"
    run_plan(make_plan(side_by_side(out), out), jobs=0)
    assert (out / "x").read_text() == (out / "y").read_text() == "met"
    from xprobe.cli import build_parser

    assert build_parser().parse_args(["run", "s.toml", "--out", "o"]).jobs == 0


def test_a_step_beside_others_gets_its_share_of_the_cores(tmp_path: Path) -> None:
    """Two steps at once on 2 cores: each parses with one UDPipe process and one torch thread,
    not two (which would put four on two cores); alone, at most the machine's cores."""
    from xprobe.study.engine import share

    runtime = ("--workers", "2", "--threads", "4", "--scheduler", "tcp://x:1")
    step = Step("e", "extract", ("cli", [["extract"]]), (str(tmp_path / "e"),), runtime=runtime)
    status = make_plan([step], tmp_path).steps[0]
    assert share(status, 2, 2).step.runtime == ("--workers", "1", "--threads", "1",
                                                "--scheduler", "tcp://x:1")  # fmt: skip
    assert share(status, 2, 8).step.runtime[:4] == ("--workers", "2", "--threads", "4")
    assert share(status, 1, 2).step.runtime[:4] == ("--workers", "2", "--threads", "2")


def _no(*_args: object) -> None:
    """A progress callback that says nothing."""


def threads_plan(out: Path) -> list[Step]:
    """x and z wait for each other (they run at once); y reads both; each writes the torch
    threads it was given and asks for 8 UDPipe processes."""
    seen, hx, hz = "tests.study.helpers:threads_seen", str(out / "x.here"), str(out / "z.here")

    def step(name: str, kw: dict, reads: tuple[str, ...] = ()) -> Step:
        return Step(name, name, ("call", seen, {"out": str(out / name), **kw}),
                    (str(out / name),), reads=reads, runtime=("--workers", "8"))  # fmt: skip

    return [step("x", {"here": hx, "there": hz}), step("z", {"here": hz, "there": hx}),
            step("y", {}, (str(out / "x"), str(out / "z")))]  # fmt: skip


@pytest.mark.skipif(cpu_count() < 2, reason="needs two cores")
def test_a_step_that_runs_alone_gets_every_core(tmp_path: Path) -> None:
    """x and z run at once (a core each: one torch thread, one UDPipe process); y, after both,
    runs alone to its end and gets every core, through the pool and through run_plan."""
    from tests.study.helpers import execute_noting_runtime
    from xprobe.study.engine import share
    from xprobe.study.pool import run_side_by_side

    out = tmp_path / "out"
    plan = make_plan(threads_plan(out), out)
    todo = [share(s, 2, 2) for s in plan.todo]
    alone = ({s.step.name: share(s, 1, 2) for s in plan.todo}, (str(out), 2))
    run_side_by_side(todo, execute_noting_runtime, (str(out), 1), 2, _no, _no, alone)
    given = {n: (out / n).read_text() for n in ("x", "z", "y")}
    assert given == {"x": "1", "z": "1", "y": "2"}
    runtime = {n: (out / f"{n}.runtime").read_text() for n in ("x", "z", "y")}
    assert runtime == {"x": "--workers 1", "z": "--workers 1", "y": "--workers 2"}
    again = tmp_path / "again"
    run_plan(make_plan(threads_plan(again), again), jobs=2, threads=2)
    assert {n: (again / n).read_text() for n in ("x", "z", "y")} == given


def test_the_longest_chain_starts_first(tmp_path: Path) -> None:
    """In the demo's study, once the sample is made both UDPipe trainings (heading the long
    parse-extract-probe chains of English and German) outrank the quick vectors steps, and the
    report comes last."""
    from xprobe.study import STUDIES_DIR, load_study
    from xprobe.study.pool import priorities

    study = load_study(STUDIES_DIR / "sample.toml", tmp_path / "out", "tiny")
    prio = priorities(make_plan(study.steps, study.out).todo)
    after_sample = sorted(("udpipe-en", "udpipe-de", "vectors-en", "vectors-de"),
                          key=lambda n: -prio[n])  # fmt: skip
    assert set(after_sample[:2]) == {"udpipe-en", "udpipe-de"}
    assert prio["sample"] == max(prio.values()) and prio["report"] == min(prio.values())


def test_a_step_failing_beside_others_stops_the_run_with_its_error(tmp_path: Path, ext: Path):
    """Side by side, b fails: its error is raised (one line), d (independent) still finishes,
    c (after b) never starts, and the rerun resumes from there."""
    out, flag = tmp_path / "out", tmp_path / "kill"
    flag.write_text("")
    with pytest.raises(XProbeError, match="step writing b was killed"):
        run_plan(make_plan(chain(out, ext, fail_if=str(flag)), out), jobs=2)
    marks = out / ".study" / "steps"
    assert (marks / "a.json").exists() and (marks / "d.json").exists()
    assert not (marks / "b.json").exists()
    assert not (out / "c").exists()
    flag.unlink()
    timings = run_plan(make_plan(chain(out, ext), out), jobs=2)
    assert "c" in timings and (out / "c").read_text() == "external abc"


def test_dry_run_names_what_each_step_reads_writes_and_asks(tmp_path: Path, ext: Path) -> None:
    """The plan says, per step, its inputs with their sizes and its outputs (OUT/...), and the
    task sizes an extract step asks for."""
    from xprobe.study.describe import describe, human_size

    out = tmp_path / "out"
    steps = chain(out, ext)
    steps[3] = Step("d", "extract", ("cli", [["extract", "--sizes", "600,100,100", str(ext)]]),
                    (str(out / "d"),))  # fmt: skip
    lines = describe(make_plan(steps, out))
    assert lines[:3] == ["[1/4] to do  a  (new)", f"      reads   {ext} (9 B)",
                         "      writes  OUT/a"]  # fmt: skip
    assert "      reads   OUT/a (not there yet)" in lines
    assert "      sizes   600,100,100 (tr,va,te per task)" in lines
    assert lines[-2:] == [f"OUT = {out}", "4 of 4 steps to do"]
    assert (human_size(9), human_size(1536), human_size(3 * 1024**3)) == ("9 B", "1.5 KB", "3.0 GB")

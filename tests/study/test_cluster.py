"""`xprobe run --scheduler`: what is checked before any step runs (the scheduler answers, every
worker runs this version of xprobe and reads the study's paths), and where GPU steps go (the
`GPU` resource, on the scheduler). A Dask cluster in this process (LocalCluster, no processes);
the real, multi-process cluster is in test_cluster_run.py."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from xprobe.cli import main
from xprobe.errors import XProbeError
from xprobe.study import STUDIES_DIR, Step, load_study, make_plan
from xprobe.study import cluster as cl
from xprobe.study.engine import run_plan

distributed = pytest.importorskip("distributed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def plan_of(out: Path, ext: Path):
    write = "tests.study.helpers:write"
    steps = [
        Step("a", "a", ("call", write, {"out": str(out / "a"), "text": "a", "inputs": [str(ext)]}),
             (str(out / "a"),)),
        Step("b", "b", ("call", write, {"out": str(out / "b"), "text": "b",
                                        "inputs": [str(out / "a")]}), (str(out / "b"),)),
    ]  # fmt: skip
    return make_plan(steps, out)


@pytest.fixture
def ext(tmp_path: Path) -> Path:
    p = tmp_path / "input.txt"
    p.write_text("external ")
    return p


@pytest.fixture(scope="module")
def dask_cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as c:
        yield c


def test_a_scheduler_that_does_not_answer_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cl, "CONNECT_SECONDS", 2)
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    out = tmp_path / "out"
    argv = ["run", str(STUDIES_DIR / "sample.toml"), "--out", str(out), "--scheduler", address]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err, err
    assert f"--scheduler {address}: no Dask scheduler answered within 2s" in err
    assert not list(out.glob(".study/steps/*.json"))  # no step ran


def test_every_worker_is_checked_and_the_plan_runs_on_the_cluster(
    tmp_path: Path, ext: Path, dask_cluster
) -> None:
    out, log = tmp_path / "out", tmp_path / "checked"
    real = cl.worker_check

    def spy(paths: list[str], token_file: str) -> dict:
        with open(log, "a") as f:  # (the function is a copy on the worker: a file, not a list)
            f.write(" ".join(paths) + "\n")
        return real(paths, token_file)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(cl, "worker_check", spy)
        run_plan(plan_of(out, ext), scheduler=dask_cluster.scheduler_address)
    seen = [line.split() for line in log.read_text().splitlines()]
    assert len(seen) == 2  # once on each worker
    assert str(ext.resolve()) in seen[0] and str(out.resolve()) in seen[0]
    assert (out / "b").read_text() == "external ab"


def test_a_worker_that_cannot_read_an_input_is_named_before_any_step_runs(
    tmp_path: Path, ext: Path, dask_cluster
) -> None:
    """Worker 1 sees the file system under another root (a machine where the inputs are not
    mounted at the same paths): it reads none of them."""
    real = cl.worker_check

    def elsewhere(paths: list[str], token_file: str, dask_worker) -> dict:
        if dask_worker.name == 1:
            paths, token_file = [str(tmp_path / "not-mounted") + p for p in paths], "/nonexistent"
        return real(paths, token_file)

    out = tmp_path / "out"
    with pytest.MonkeyPatch.context() as m:
        m.setattr(cl, "worker_check", elsewhere)
        with pytest.raises(XProbeError) as e:
            run_plan(plan_of(out, ext), scheduler=dask_cluster.scheduler_address)
    msg = str(e.value)
    w1 = next(a for a, w in dask_cluster.scheduler_info["workers"].items() if w["name"] == 1)
    assert msg.startswith(f"Dask worker {w1} cannot read {tmp_path / 'not-mounted'}")
    assert "same paths" in msg and "\n" not in msg
    assert not (out / "a").exists() and not list(out.glob(".study/steps/*.json"))


def test_a_worker_running_another_version_of_xprobe_is_named(
    tmp_path: Path, ext: Path, dask_cluster
) -> None:
    real = cl.worker_check

    def older(paths: list[str], token_file: str, dask_worker) -> dict:
        found = real(paths, token_file)
        return {**found, "version": "0.0.9"} if dask_worker.name == 0 else found

    import xprobe

    with pytest.MonkeyPatch.context() as m:
        m.setattr(cl, "worker_check", older)
        with pytest.raises(XProbeError) as e:
            run_plan(plan_of(tmp_path / "out", ext), scheduler=dask_cluster.scheduler_address)
    w0 = next(a for a, w in dask_cluster.scheduler_info["workers"].items() if w["name"] == 0)
    here = xprobe.__version__
    assert str(e.value) == (f"Dask worker {w0} runs xprobe 0.0.9, this machine {here}: "
                            "install the same version on every worker")  # fmt: skip
    assert not (tmp_path / "out" / "a").exists()


def cuda_steps(tmp_path: Path):
    study = load_study(STUDIES_DIR / "sample.toml", tmp_path / "out",
                       overrides={"study": {"device": "cuda"}})  # fmt: skip
    return make_plan(study.steps, study.out, save_digests=False)


def test_gpu_steps_ask_for_the_gpu_resource_when_the_study_says_cuda(tmp_path: Path) -> None:
    plan = cuda_steps(tmp_path)
    gpu = sorted(s.step.name for s in plan.steps if cl.resources(s.step) == {"GPU": 1})
    assert gpu == ["map-de-bilstm-max", "probe-de-bilstm-max", "probe-en-bilstm-max",
                   "train-nli-en-bilstm-max"]  # fmt: skip
    cpu = load_study(STUDIES_DIR / "sample.toml", tmp_path / "cpu")
    assert not [s.name for s in cpu.steps if cl.wants_gpu(s)]


def _scheduler_tasks(dask_scheduler) -> dict:
    return {str(k): (t.resource_restrictions, t.state) for k, t in dask_scheduler.tasks.items()}


def _settled_tasks(client, keys: set[str], timeout: float = 30.0) -> dict:
    """The scheduler's (resources, state) of its tasks once every one of ``keys`` has reached
    it and none is still being placed (``released``, ``waiting``, whose inputs are all in
    memory by now). ``run_on_scheduler`` is a call of its own that can overtake submissions
    still on their way: read at once, a step submitted last could be missing (KeyError on a
    loaded machine)."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        got = client.run_on_scheduler(_scheduler_tasks)
        placed = {k for k in keys if k in got and got[k][1] not in ("released", "waiting")}
        if placed >= {"train-nli-en-bilstm-max", "udpipe-en"} and keys <= set(got):
            return got
        if time.monotonic() > deadline:
            return got  # the assertions then say what never arrived
        time.sleep(0.05)


def _late(client, key: str, seconds: float) -> None:
    """The submission of ``key`` and those after it reach the scheduler ``seconds`` late, in
    order, as on a loaded machine (submissions travel on the client's batched stream, on its
    event loop)."""
    send, held = client._send_to_scheduler, []

    def later(msg):
        if held or (msg.get("op") == "update-graph" and key in msg.get("keys", ())):
            held.append(msg)
            client.loop.call_later(seconds, client._send_to_scheduler_safe, msg)
        else:
            send(msg)

    client._send_to_scheduler = later


@pytest.mark.parametrize("late", [0.0, 1.0], ids=["on-time", "a-submit-late"])
def test_the_gpu_annotation_reaches_the_scheduler(tmp_path: Path, dask_cluster, late) -> None:
    """On a cluster without GPU workers, the CPU steps run and the GPU steps wait for one."""
    plan = cuda_steps(tmp_path)
    with distributed.Client(dask_cluster) as client:
        if late:
            _late(client, "train-nli-en-bilstm-max", late)
        futures = cl.submit_steps(client, plan, lambda *a: ("x", 0.0), 1)
        cpu = [f for n, f in futures.items() if n.startswith(("sample", "udpipe", "vectors"))]
        distributed.wait(cpu, timeout=30)
        on_scheduler = _settled_tasks(client, set(futures))
        client.cancel(list(futures.values()))
    assert on_scheduler["train-nli-en-bilstm-max"] == ({"GPU": 1}, "no-worker")
    assert on_scheduler["udpipe-en"] == (None, "memory")
    assert on_scheduler["probe-en-baselines"][0] is None


def test_gpu_steps_and_no_gpu_worker_stop_before_any_step(tmp_path: Path, dask_cluster) -> None:
    plan = cuda_steps(tmp_path)
    with distributed.Client(dask_cluster) as client, pytest.raises(XProbeError) as e:
        cl._check_gpu(plan, client.scheduler_info()["workers"])
    assert str(e.value).startswith("study step 'train-nli-en-bilstm-max' wants a GPU")
    assert "--resources GPU=1" in str(e.value)


def test_two_steps_never_run_at_once_in_one_worker_process(tmp_path: Path, dask_cluster) -> None:
    """A parsing step secedes from its worker's threads, so the worker may take another step;
    two steps as threads of one process would share module state (wikiextractor's template
    namespace: one dump's reader ending cut the other's short). Both workers of this cluster
    live in this process: the steps run one after the other, never meeting."""
    out = tmp_path / "out"
    meet = "tests.study.helpers:meet"
    x, y, hx, hy = (str(out / n) for n in ("x", "y", "x-here", "y-here"))
    steps = [
        Step("x", "x", ("call", meet, {"out": x, "here": hx, "there": hy, "wait": 3.0}), (x,)),
        Step("y", "y", ("call", meet, {"out": y, "here": hy, "there": hx, "wait": 3.0}), (y,)),
    ]
    run_plan(make_plan(steps, out), scheduler=dask_cluster.scheduler_address)
    assert sorted([(out / "x").read_text(), (out / "y").read_text()]) == ["alone", "met"]


def step_argvs(plan) -> dict[str, list[list[str]]]:
    """Step name -> the xprobe command lines it runs (its "cli" action)."""
    return {s.step.name: s.step.action[1] for s in plan.steps if s.step.action[0] == "cli"}


def device_of(argv: list[str]) -> str | None:
    return argv[argv.index("--device") + 1] if "--device" in argv else None


def test_a_cuda_study_s_cpu_steps_run_on_the_cpu(tmp_path: Path) -> None:
    """A step that does not ask for the GPU goes to any worker, CPU-only ones too: its command
    must not ask for CUDA (`--device cuda` on a worker without one stops the step), and must
    not take the device of whichever worker it lands on (`auto`: results would depend on it)."""
    plan = cuda_steps(tmp_path)
    gpu = {s.step.name for s in plan.steps if s.step.gpu}
    devices = {n: {device_of(a) for a in argvs} - {None} for n, argvs in step_argvs(plan).items()}
    assert {n for n, d in devices.items() if d} >= {"probe-en-baselines", "probe-en-bov-fasttext"}
    wrong = {n: d for n, d in devices.items() if d and d != ({"cuda"} if n in gpu else {"cpu"})}
    assert wrong == {}


def test_a_study_on_cuda_n_gives_every_command_a_device_it_accepts(tmp_path: Path) -> None:
    from xprobe.cli import build_parser

    study = load_study(STUDIES_DIR / "sample.toml", tmp_path / "out",
                       overrides={"study": {"device": "cuda:1"}})  # fmt: skip
    plan = make_plan(study.steps, study.out, save_digests=False)
    parser = build_parser()
    seen = set()
    for argvs in step_argvs(plan).values():
        for argv in argvs:
            if device_of(argv):
                args = parser.parse_args(argv)  # argparse exits on a device it refuses
                seen.add((argv[0], args.device))
    assert {c for c, d in seen if d == "cuda:1"} == {"train-nli", "map", "probe"}


def test_a_device_no_command_accepts_is_refused_before_anything_runs(tmp_path: Path) -> None:
    from xprobe.study.schema import StudyError

    with pytest.raises(StudyError) as e:
        load_study(STUDIES_DIR / "sample.toml", tmp_path / "out",
                   overrides={"study": {"device": "gpu"}})  # fmt: skip
    lines = str(e.value).splitlines()
    assert lines and all("argument --device: must be auto, cpu, cuda or cuda:N, not 'gpu'" in x
                       for x in lines)  # fmt: skip
    assert any("step train-nli-en-bilstm-max" in x for x in lines)
    assert any("step probe-en-baselines" in x for x in lines)

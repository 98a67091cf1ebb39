"""The sample study's languages on a real Dask cluster (slow): `dask scheduler` and two
single-threaded `dask worker` processes on localhost (tests/study/real_cluster.py). English and
German are parsed in rounds by the study's extract steps, whose parse shards run on the
workers; the worker running `extract-en` is killed with SIGKILL in the middle of the step; the
study still finishes, and its task files, parsed shards and probing manifests are those of a
local run, byte for byte. Nothing of the cluster is left running afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from real_cluster import REPO, Cluster

from tests.study.test_sample_study import manifests
from xprobe.cli import main
from xprobe.errors import XProbeError
from xprobe.study import Step, make_plan
from xprobe.study.actions import run_cli, train_udpipe
from xprobe.study.engine import run_plan

pytestmark = pytest.mark.slow
distributed = pytest.importorskip("distributed")

PARAMS = """
[study.params.word_content]
first_rank = 21
count = 10
[study.params.past_present]
min_freq = 2
max_freq = 100000
[study.params.subj_number]
min_freq = 2
max_freq = 100000
[study.params.obj_number]
min_freq = 2
max_freq = 100000
[study.params.odd_man_out]
min_freq = 5
max_freq = 100000
"""


def study_text(sample: Path, models: Path) -> str:
    """studies/sample.toml's [study] and languages (tiny sizes), parsed in rounds of 500-sentence
    shards starting at 1,000, over a sample and UDPipe models made once for the module."""
    langs = "".join(
        f'\n[languages.{x}]\ninput = "{sample}/wiki/{x}wiki-sample-pages-articles.xml.bz2"\n'
        f'udpipe = "{models}/{x}.udpipe"\n'
        for x in ("en", "de")
    )
    return (
        '[study]\nname = "cluster"\nseed = 1\nsizes = [400, 100, 100]\nallow_partial = true\n'
        'workers = 2\nthreads = 1\ndevice = "cpu"\ndataset = "sample"\n'
        'extract = { windows = "absolute", first_round = 1000 }\n'
        "corpus = { shard_size = 500 }\n" + PARAMS + langs + "\n[probe]\nbaselines = []\n"
    )


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cluster-study")
    run_cli(
        "sample",
        ["sample", "--out", str(root / "sample"), "--sentences", "4000", "--treebank", "400"],
    )
    for lang in ("en", "de"):
        train = str(root / "sample" / "treebank" / f"{lang}-train.conllu")
        train_udpipe([train], str(root / "models" / f"{lang}.udpipe"))
    path = root / "cluster.toml"
    path.write_text(study_text(root / "sample", root / "models"), encoding="utf-8")
    return path


def outputs(out: Path) -> dict[str, bytes]:
    files = [*out.glob("probing/*/*.txt"), *out.glob("corpus/*/shard-*")]
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(files)}


def wait_for(check, timeout: float, what: str, proc: subprocess.Popen) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        if proc.poll() is not None:
            raise AssertionError(f"the study ended (exit {proc.returncode}) before {what}")
        time.sleep(0.2)
    raise AssertionError(f"no {what} after {timeout:.0f}s")


def test_sample_languages_on_a_cluster_with_a_worker_killed_equal_a_local_run(
    study: Path, tmp_path: Path
) -> None:
    local, remote = tmp_path / "local", tmp_path / "cluster"
    assert main(["run", str(study), "--out", str(local), "--jobs", "1"]) == 0
    rounds = json.loads((local / "probing" / "en" / "manifest.json").read_text())["rounds"]
    assert len(rounds["done"]) >= 2  # more than one round: the loop ran on the cluster too
    cluster = Cluster(tmp_path / "dask", workers=2)
    with cluster:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        argv = [sys.executable, "-m", "xprobe", "run", str(study), "--out", str(remote),
                "--scheduler", cluster.address]  # fmt: skip
        log = tmp_path / "run.log"
        with open(log, "wb") as f:
            proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, env=env)
        try:
            first = remote / "corpus" / "en" / "shard-00000.conllu.gz"
            wait_for(first.exists, 300, "first English shard", proc)
            running = cluster.processing()
            victim = next(n for n, keys in running.items() if "extract-en" in keys)
            assert not (remote / ".study" / "steps" / "extract-en.json").exists()
            cluster.kill(victim)
            assert proc.wait(600) == 0, log.read_text()[-3000:]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert victim not in cluster.workers()
    assert cluster.leftovers() == []
    assert outputs(remote) == outputs(local)
    assert manifests(remote) == manifests(local)
    assert len([k for k in outputs(local) if k.endswith(".txt")]) >= 18


@pytest.fixture(scope="module")
def fragile(tmp_path_factory: pytest.TempPathFactory):
    """One worker; a task whose worker dies once is lost for good (allowed-failures 0)."""
    env = {"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"}
    cluster = Cluster(tmp_path_factory.mktemp("fragile"), workers=1, env=env)
    with cluster:
        yield cluster
    assert cluster.leftovers() == []


def two_steps(out: Path, flag: Path) -> list[Step]:
    write = "tests.study.helpers:write"
    die = "tests.study.real_cluster:die_or_write"
    return [
        Step("a", "a", ("call", write, {"out": str(out / "a"), "text": "a"}), (str(out / "a"),)),
        Step("b", "b", ("call", die, {"out": str(out / "b"), "text": "b", "flag": str(flag)}),
             (str(out / "b"),), after=("a",)),
    ]  # fmt: skip


def test_a_worker_lost_for_good_fails_its_step_by_name_and_a_rerun_resumes(
    fragile: Cluster, tmp_path: Path
) -> None:
    out, flag = tmp_path / "out", tmp_path / "kill-the-worker"
    flag.write_text("")
    with pytest.raises(XProbeError) as e:
        run_plan(make_plan(two_steps(out, flag), out), scheduler=fragile.address)
    msg = str(e.value)
    assert msg.startswith("study step 'b': its Dask worker tcp://127.0.0.1:"), msg
    assert "was lost" in msg and "rerun the same command to resume" in msg and "\n" not in msg
    assert (out / ".study" / "steps" / "a.json").exists()
    assert not (out / ".study" / "steps" / "b.json").exists()
    flag.unlink()
    fragile.wait_for_workers(1, 60)  # the nanny started its worker again
    timings = run_plan(make_plan(two_steps(out, flag), out), scheduler=fragile.address)
    assert set(timings) == {"b", "total"}  # a was kept
    assert (out / "a").read_text() == "a" and (out / "b").read_text() == "b"


def test_workers_running_another_version_than_this_machine_are_refused(
    fragile: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers import the xprobe of this checkout; this machine says it is 9.9.9."""
    import xprobe

    real = xprobe.__version__
    monkeypatch.setattr(xprobe, "__version__", "9.9.9")
    out = tmp_path / "out"
    with pytest.raises(XProbeError) as e:
        run_plan(make_plan(two_steps(out, tmp_path / "no-flag"), out), scheduler=fragile.address)
    (address,) = fragile.workers().values()
    assert str(e.value) == (f"Dask worker {address} runs xprobe {real}, this machine 9.9.9: "
                            "install the same version on every worker")  # fmt: skip
    assert not (out / "a").exists()

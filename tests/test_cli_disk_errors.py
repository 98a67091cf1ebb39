"""A full disk, a file-size limit, a read-only folder: one clear line naming the path, no
traceback, and nothing lost (issue 28).

The file-size limit is real: ``extract`` and ``probe`` run in a child process under
``RLIMIT_FSIZE`` with ``SIGXFSZ`` ignored, so a write past the limit fails with ``EFBIG``. A full
disk (``ENOSPC``) and a read-only file system (``EROFS``) cannot be made without privileges the
tests do not have (they run as root, whom ``chmod`` does not stop), so those are simulated by
raising the real ``OSError`` at the point where the file is written.
"""

from __future__ import annotations

import errno
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from xprobe.cli import main
from xprobe.probe.records import read_records, validate_record

LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
from xprobe.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _limited(limit: int, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # no bytecode written: a .pyc cut short by the limit would break later imports
    return subprocess.run(
        [sys.executable, "-c", LIMITED, str(limit), *argv], cwd=cwd, capture_output=True,
        text=True, timeout=120, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin",
        "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1"},
    )  # fmt: skip


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _unchanged_but_manifest(out: Path, before: dict[str, str]) -> None:
    """The task files are byte-identical and no temp file is left; the manifest is gone (extract
    removes it first and writes it last: a folder with a manifest is complete)."""
    after = _digests(out)
    assert "manifest.json" not in after
    assert after == {k: v for k, v in before.items() if k != "manifest.json"}


def _extract_args(out: Path, fixtures: Path) -> list[str]:
    return ["extract", "--lang", "en", "--out", str(out), "--sizes", "2,2,2", "--allow-partial",
            "--no-exclusive", str(fixtures / "tasks_en.conllu")]  # fmt: skip


def _one_error_line(err: str) -> str:
    assert "Traceback" not in err, err
    errors = [ln for ln in err.splitlines() if ln.startswith("ERROR")]
    assert len(errors) == 1, err
    return errors[0]


# the task files are a few hundred bytes, the sentences read (a temporary file in the output
# folder, unnamed, plain) 6-7 kB, the manifest about 10 kB
@pytest.mark.parametrize(
    ("limit", "where"),
    [(3000, " (the temporary file of the sentences read)"), (9000, "/manifest.json")],
    ids=["the sentences read", "the manifest"],
)
def test_extract_past_the_file_size_limit(
    tmp_path: Path, fixtures: Path, limit: int, where: str
) -> None:
    """The error says which file; a failed cache leaves the finished folder as it was, a failed
    manifest leaves the task files and no manifest (the folder is then incomplete)."""
    out = tmp_path / "probing"
    assert main(_extract_args(out, fixtures)) == 0
    before = _digests(out)
    res = _limited(limit, *_extract_args(out, fixtures), cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    line = _one_error_line(res.stderr)
    assert "file too large" in line and f"{out}{where}" in line, line
    if where.endswith("manifest.json"):
        _unchanged_but_manifest(out, before)
        assert main(["extract", "--check", str(out)]) != 0
    else:
        assert _digests(out) == before
        assert main(["extract", "--check", str(out)]) == 0


def test_probe_past_the_file_size_limit_keeps_the_results_file(tmp_path: Path, fixtures) -> None:
    data = tmp_path / "probing"
    assert main(_extract_args(data, fixtures)) == 0
    res_file = tmp_path / "r.jsonl"
    argv = ["probe", "--data", str(data), "--classifier", "majority", "--out", str(res_file)]
    assert main(argv) == 0
    before = res_file.read_bytes()
    limit = len(before) + 200  # room for less than the new records
    res = _limited(limit, *argv[:-2], "length", "--out", str(res_file), cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    line = _one_error_line(res.stderr)
    assert "file too large" in line and str(res_file) in line, line
    assert res_file.read_bytes() == before
    assert all(validate_record(r) == [] for r in read_records(res_file))
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".r.jsonl")] == []


@pytest.mark.parametrize(
    ("code", "words"),
    [(errno.ENOSPC, "disk full"), (errno.EROFS, "read-only"), (errno.EACCES, "permission")],
)
def test_write_errors_are_one_line_naming_the_path(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch, capsys, code: int, words: str
) -> None:
    """Simulated at the write itself: the JSON dump of the manifest raises the OSError a full
    disk (or a read-only folder) raises there."""
    out = tmp_path / "probing"
    assert main(_extract_args(out, fixtures)) == 0
    before = _digests(out)
    real_dump = json.dump

    def failing_dump(obj, fp, **kw):
        if "tasks" in obj:  # the manifest
            raise OSError(code, "simulated")
        return real_dump(obj, fp, **kw)

    monkeypatch.setattr(json, "dump", failing_dump)
    capsys.readouterr()
    assert main(_extract_args(out, fixtures)) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert words in line and str(out / "manifest.json") in line, line
    _unchanged_but_manifest(out, before)


def test_a_full_disk_under_extracts_sentence_cache_names_the_folder(
    tmp_path: Path, fixtures: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """The frequency pass keeps its sentences in an unnamed temporary file in the output folder
    (xprobe.extract.scan.SentenceCache): a full disk there said "(a file being written): disk
    full". Simulated at that file's write."""
    import tempfile

    from xprobe.extract import scan

    real = tempfile.TemporaryFile

    class Full:
        def __init__(self, f):
            self._f = f

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, name):
            return getattr(self._f, name)

    monkeypatch.setattr(scan.tempfile, "TemporaryFile", lambda **kw: Full(real(**kw)))
    out = tmp_path / "probing"
    assert main(_extract_args(out, fixtures)) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "disk full" in line and str(out) in line and "a file being written" not in line, line
    assert "temporary" in line, line
    assert not out.exists() or list(out.iterdir()) == []  # no temporary file left

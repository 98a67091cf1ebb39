"""A study folder received from someone else may hold symbolic links where xprobe writes: the lock,
the bookkeeping folder ``.study`` (markers, digests), a step's outputs and the files inside them.
No file outside ``--out`` is created, truncated, overwritten or removed through any of them, with
links to a file and to a folder (issue 43)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.study.test_study_file import VALID, folder  # noqa: F401  (a fixture)
from xprobe.cli import main
from xprobe.errors import XProbeError
from xprobe.study.lock import study_lock

DATA = Path(__file__).resolve().parents[1] / "data"

TINY = (
    '[study]\nsizes = [20, 5, 5]\ntasks = ["BShift"]\nallow_partial = true\n'
    '[probe]\nbaselines = ["majority"]\n'
    '[languages.en]\nprofile = "en"\ninput = "in.conllu"\n'
)


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry under ``root``: a file's bytes, a link's target (links not followed)."""
    found: dict[str, bytes | str] = {}
    for p in sorted(root.rglob("*")):
        key = str(p.relative_to(root))
        if p.is_symlink():
            found[key] = "-> " + os.readlink(p)
        elif p.is_file():
            found[key] = p.read_bytes()
        else:
            found[key] = "dir"
    return found


def error_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    return [ln for ln in err.splitlines() if ln.startswith("ERROR")]


@pytest.fixture
def victims(tmp_path: Path) -> Path:
    """Outside every --out: a precious file and a folder holding one."""
    v = tmp_path / "victims"
    (v / "dir").mkdir(parents=True)
    (v / "file.txt").write_text("precious\n")
    (v / "dir" / "digests.json").write_text('{"precious": 1}\n')
    (v / "dir" / "lock").write_text("precious\n")
    return v


def test_a_lock_that_is_a_link_to_a_file_is_refused_and_the_file_kept(
    folder: Path,  # noqa: F811
    victims: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The issue's case: ``.study/lock -> victim``; the run used to truncate the victim and write
    its pid there, exit 0."""
    (folder / "s.toml").write_text(VALID)
    out = folder / "out"
    (out / ".study").mkdir(parents=True)
    (out / ".study" / "lock").symlink_to(victims / "file.txt")
    before = snapshot(victims)
    assert main(["run", str(folder / "s.toml"), "--out", str(out)]) == 2
    [line] = error_lines(capsys)
    assert f"{out / '.study' / 'lock'}: is a symbolic link" in line
    assert snapshot(victims) == before
    assert (out / ".study" / "lock").is_symlink()  # refused, not "repaired" behind the user's back


@pytest.mark.parametrize("what", ["folder", "link to a folder", "fifo"])
def test_a_lock_that_is_no_regular_file_is_one_line(
    tmp_path: Path, victims: Path, what: str
) -> None:
    out = tmp_path / "out"
    (out / ".study").mkdir(parents=True)
    lock = out / ".study" / "lock"
    if what == "folder":
        lock.mkdir()
    elif what == "fifo":
        os.mkfifo(lock)
    else:
        lock.symlink_to(victims / "dir")
    before = snapshot(victims)
    with pytest.raises(XProbeError) as e, study_lock(out):
        pass
    assert str(e.value).startswith(f"{lock}: ")
    assert "lock" in str(e.value) and "remove it" in str(e.value)
    assert snapshot(victims) == before


@pytest.mark.parametrize("target", ["dir", "file.txt"])
@pytest.mark.parametrize("where", [".study", ".study/steps"])
def test_bookkeeping_behind_a_link_is_refused(
    folder: Path,  # noqa: F811
    victims: Path,
    capsys: pytest.CaptureFixture[str],
    where: str,
    target: str,
) -> None:
    """``OUT/.study`` (or its ``steps/``) as a link: the run used to write its lock, markers and
    ``digests.json`` into the link's target, overwriting a ``digests.json`` it found there."""
    (folder / "s.toml").write_text(VALID)
    out = folder / "out"
    link = out / where
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(victims / target)
    before = snapshot(victims)
    for extra in ([], ["--dry-run"]):
        assert main(["run", str(folder / "s.toml"), "--out", str(out), *extra]) == 2
        [line] = error_lines(capsys)
        assert f"{link}: is a symbolic link" in line
        assert "bookkeeping" in line
        assert snapshot(victims) == before


def _vec(words_from: Path, path: Path) -> None:
    """A tiny real word-vector file over the corpus's words (a bag-of-vectors encoder)."""
    words = sorted({c[1] for ln in words_from.read_text().splitlines()
                    if len(c := ln.split("\t")) == 10})[:300]  # fmt: skip
    rows = [f"{w} " + " ".join(f"{(hash(w) >> k) % 97 / 97:.3f}" for k in range(4)) for w in words]
    path.write_text(f"{len(words)} 4\n" + "\n".join(rows) + "\n")


@pytest.mark.parametrize("how", ["files", "cache", "cache entry"])
def test_a_received_study_folder_full_of_links_touches_nothing_outside(
    tmp_path: Path, victims: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    """Run a real study (a probing folder, baselines, a bag-of-vectors encoder with its
    embedding cache under ``--out``), then replace what it wrote outside ``.study`` by links out
    of ``--out``: every file by a link to a file, or the cache's folder or an entry's in it by
    links to folders (holding copies). The outputs a step declares were refused before; the
    cache is no step's output and was written through. A resumed interrupted run and a rerun
    with a changed setting are refused with one line naming a link, and create, change and
    remove nothing outside ``--out``."""
    (tmp_path / "in.conllu").write_bytes((DATA / "corpus_treebank.conllu").read_bytes())
    _vec(tmp_path / "in.conllu", tmp_path / "x.vec")
    study = tmp_path / "s.toml"
    study.write_text(
        TINY.replace("[languages", 'options = { cache_dir = "${OUT}/cache" }\n[languages')
        + '[encoders.bov]\nspec = "bov:${STUDY}/x.vec"\n'
    )
    out = tmp_path / "out"
    assert main(["run", str(study), "--out", str(out)]) == 0
    assert any((out / "cache").rglob("*.npy"))
    if how == "files":
        written = [p for p in out.rglob("*") if ".study" not in p.relative_to(out).parts]
        for k, p in enumerate(p for p in written if p.is_file()):
            (victims / f"f{k}").write_bytes(p.read_bytes())
            p.unlink()
            p.symlink_to(victims / f"f{k}")
    else:
        p = out / "cache" if how == "cache" else next((out / "cache").iterdir())
        shutil.copytree(p, victims / "d")
        shutil.rmtree(p)
        p.symlink_to(victims / "d")
    before = snapshot(victims)
    for marker in (out / ".study" / "steps").glob("*.json"):
        marker.unlink()  # as if interrupted: every step started, none done
    for extra in ([], ["--set", "study.sizes=[30,5,5]"], ["--dry-run"]):
        capsys.readouterr()
        assert main(["run", str(study), "--out", str(out), *extra]) == 2
        [line] = error_lines(capsys)
        assert "outside" in line, line
        assert snapshot(victims) == before

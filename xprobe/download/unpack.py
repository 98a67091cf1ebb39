"""Unpack a downloaded ``.zip``/``.tgz`` into a cache folder, atomically and without collisions.

Members are written flat, by base name (where the mapping recipes look for them:
``europarl/de-en/europarl-v7.de-en.en``), except members whose base name another member shares:
those keep their path inside the archive (``a/README``, ``b/README``), so that none overwrites
another. Directories, links and macOS junk (``__MACOSX/``, ``._name``) are skipped; a member
path that climbs out (``..``) is refused. With ``keep_paths`` (a UD release), every member keeps
its path, less a top folder that all members share (``ud-treebanks-v2.14/``). A marker file
records completion and the archive's SHA-256, so an interrupted unpack is redone, a finished one
is not, and one from another archive of the same name (a corrupt copy replaced) is redone.

Before a byte is written, the members' sizes are checked: their sum at most ``MAX_RATIO`` times
the archive's size (a decompression bomb: 1 MB that unpacks to 1 GiB) and within the free space
of the target's file system. Temporary files that a killed unpack left are removed first.
"""

from __future__ import annotations

import collections
import logging
import shutil
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import IO

from xprobe.download.verify import digests, one_line
from xprobe.errors import XProbeError
from xprobe.files import atomic_write
from xprobe.leftovers import clean_temp_files

__all__ = ["unpack"]

log = logging.getLogger(__name__)

CHUNK = 1 << 20
MAX_RATIO = 100  # unpacked bytes per archive byte; text compresses 5-10x, UD releases ~8x
_SHA = "# sha256 "


def unpack(
    archive: Path, into: Path, keep_paths: bool = False, sha256: str | None = None
) -> list[Path]:
    """Extract the regular files of ``archive`` into ``into``; return their paths, sorted.
    ``sha256``: the archive's, when known (its download record), else computed."""
    marker = into / f".unpacked-{archive.name}"
    sha256 = sha256 or digests(archive, ["sha256"])["sha256"]
    done = _finished(marker, sha256)
    if done is not None:
        return sorted(into / n for n in done)
    into.mkdir(parents=True, exist_ok=True)
    clean_temp_files(into, recursive=True)  # what a killed unpack left
    written: list[Path] = []
    try:
        with _members(archive) as members:
            names = [name for name, _, _ in members]
            targets = _paths(names, archive) if keep_paths else _targets(names, archive)
            _check_room(archive, into, sum(size for _, size, _ in members))
            for name, _, opener in members:
                with opener() as stream:
                    written.append(_copy(stream, into / targets[name]))
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as e:
        raise XProbeError(
            f"{archive}: cannot unpack ({one_line(e)}); delete it and download again"
        ) from None
    rel = sorted(p.relative_to(into).as_posix() for p in written)
    with atomic_write(marker) as f:
        f.write(f"{_SHA}{sha256}\n" + "".join(f"{r}\n" for r in rel))
    log.info("unpacked %d files into %s", len(written), into)
    return sorted(written)


def _finished(marker: Path, sha256: str) -> list[str] | None:
    """The files a finished unpack of this very archive wrote, or None: no marker, or one of
    another archive of the same name (or of an xprobe that recorded no checksum)."""
    try:
        lines = marker.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return None
    if not lines or lines[0] != f"{_SHA}{sha256}":
        log.info("%s: from another archive, or older: unpacking again", marker)
        return None
    return [n for n in lines[1:] if n]


def _check_room(archive: Path, into: Path, total: int) -> None:
    """Refuse, before writing, an archive that expands beyond ``MAX_RATIO`` or the free space."""
    size = max(archive.stat().st_size, 1)
    if total > MAX_RATIO * size:
        raise XProbeError(
            f"{archive}: its members hold {_size(total)}, {total / size:.0f} times the archive's "
            f"{_size(size)} (at most {MAX_RATIO}x is unpacked: a decompression bomb?); refused, "
            "nothing written"
        )
    free = shutil.disk_usage(into).free
    if total > free:
        raise XProbeError(
            f"{archive}: unpacking needs {_size(total)}, {into} has {_size(free)} free; make room "
            "(or set XPROBE_CACHE to another disk) and run again; nothing written"
        )


def _size(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def _parts(name: str, archive: Path) -> list[str]:
    parts = [p for p in PurePosixPath(name).parts if p not in ("/", ".", "")]
    if ".." in parts or not parts:
        raise XProbeError(f"{archive}: member {name!r} points outside the archive; refused")
    return parts


def _paths(names: list[str], archive: Path) -> dict[str, str]:
    """Member name -> its path, less the top folder every member shares (when there is one)."""
    split = {name: _parts(name, archive) for name in names}
    tops = {p[0] for p in split.values()}
    cut = 1 if len(tops) == 1 and all(len(p) > 1 for p in split.values()) else 0
    return {name: "/".join(p[cut:]) for name, p in split.items()}


def _targets(names: list[str], archive: Path) -> dict[str, str]:
    """Member name -> path under the folder: the base name, or the whole path where it is shared."""
    counts = collections.Counter(PurePosixPath(n).name for n in names)
    out = {}
    for name in names:
        parts = _parts(name, archive)
        out[name] = parts[-1] if counts[parts[-1]] == 1 else "/".join(parts)
    shared = sorted({t for t in out.values() if "/" in t})
    if shared:
        log.info("%s: members sharing a base name keep their paths: %s", archive, ", ".join(shared))
    return out


def _copy(stream: IO[bytes], target: Path) -> Path:
    with atomic_write(target, "wb") as out:
        shutil.copyfileobj(stream, out, CHUNK)
    return target


class _members:
    """Context manager yielding ``[(name, size, opener)]`` for an archive's wanted regular
    files (``size``: unpacked, as the archive declares it; what is read stops there)."""

    def __init__(self, archive: Path) -> None:
        self.archive = archive
        self._close: Callable[[], None] = lambda: None

    def __enter__(self) -> list[tuple[str, int, Callable[[], IO[bytes]]]]:
        if zipfile.is_zipfile(self.archive):
            z = zipfile.ZipFile(self.archive)
            self._close = z.close
            return [
                (i.filename, i.file_size, _opener(z.open, i))
                for i in z.infolist()
                if not i.is_dir() and not _is_junk(i.filename)
            ]
        tar = tarfile.open(self.archive, "r:*")
        self._close = tar.close
        return [
            (m.name, m.size, _opener(tar.extractfile, m))  # type: ignore[arg-type]
            for m in tar.getmembers()
            if m.isfile() and not _is_junk(m.name)
        ]

    def __exit__(self, *exc: object) -> None:
        self._close()


def _opener(open_fn: Callable[..., IO[bytes] | None], member: object) -> Callable[[], IO[bytes]]:
    def opener() -> IO[bytes]:
        stream = open_fn(member)
        if stream is None:  # pragma: no cover - only regular files are listed
            raise OSError(f"cannot read member {member}")
        return stream

    return opener


def _is_junk(name: str) -> bool:
    """macOS resource forks that some archives carry (``__MACOSX/``, ``._name``)."""
    return name.startswith("__MACOSX") or Path(name).name.startswith("._")

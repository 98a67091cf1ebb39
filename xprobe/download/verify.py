"""What can be checked about a downloaded file before it enters the cache, and the record of it.

Checks by kind (from the file name), each a pass over the file at most:

* ``.zip``: every member's CRC (``testzip``); ``.tgz``/``.tar.gz``/``.tar``: every member read,
  then the archive's end-of-archive blocks and the rest of the stream, which must be zeros, to the
  end of the compressed stream (whose CRC and length are checked there): Python's ``tarfile``
  takes an invalid header after the first for the end of the archive, so a damaged archive would
  otherwise read as a shorter whole one; other ``.gz``: the whole stream decompressed (CRC).
* ``.udpipe``: the model loads in UDPipe.
* ``.vec``: a ``N D`` header's N equals the number of lines after it; ``.bin`` (fastText): the
  file starts with fastText's magic number.

After the checks, ``NAME.fetched.json`` beside the file records its URL, size, SHA-256 and which
checks passed (:func:`write_record`), so that a file in the cache can be re-verified later
(``sha256sum``) and a file changed since is noticed (:func:`check_record`).
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import lzma
import tarfile
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from xprobe.errors import XProbeError
from xprobe.files import write_json

__all__ = [
    "check_record",
    "checked_as_now",
    "digests",
    "one_line",
    "record_path",
    "verify_content",
    "write_record",
]

CHUNK = 1 << 20
_FASTTEXT_MAGIC = (793712314).to_bytes(4, "little")


class ContentError(XProbeError):
    """A downloaded file of the announced size whose content is not whole."""


def digests(path: Path, algorithms: Sequence[str]) -> dict[str, str]:
    """Hex digests of ``path`` for each algorithm, in one pass."""
    hashes = {a: hashlib.new(a) for a in dict.fromkeys(algorithms)}
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            for h in hashes.values():
                h.update(block)
    return {a: h.hexdigest() for a, h in hashes.items()}


def verify_content(path: Path, name: str) -> list[str]:
    """Check the content of ``path`` (to be cached as ``name``); return the checks that ran."""
    try:
        if name.endswith(".zip"):
            return [_zip(path, name)]
        if name.endswith((".tgz", ".tar.gz", ".tar")):
            return [_tar(path, name)]
        if name.endswith(".gz"):
            return [_gzip(path)]
        if name.endswith(".udpipe"):
            return [_udpipe(path, name)]
        if name.endswith(".vec"):
            return [_vec(path, name)]
        if name.endswith(".bin"):
            return [_fasttext_bin(path, name)]
    except ContentError:
        raise
    except (OSError, EOFError, tarfile.TarError, zipfile.BadZipFile, zlib.error) as e:
        raise ContentError(f"{name}: corrupt or truncated ({one_line(e)})") from None
    return []


def one_line(e: BaseException) -> str:
    """An archive library's error as one short line (tarfile lists every method it tried)."""
    text = " ".join(str(e).split())
    if isinstance(e, tarfile.ReadError) and "could not be opened successfully" in text:
        return "not a tar archive, plain or gzip/bz2/xz-compressed"
    return f"{type(e).__name__}: {text}"


def _zip(path: Path, name: str) -> str:
    if not zipfile.is_zipfile(path):
        raise ContentError(f"{name}: corrupt archive (not a zip file, or its end is missing)")
    with zipfile.ZipFile(path) as z:
        bad = z.testzip()
    if bad is not None:
        raise ContentError(f"{name}: corrupt archive (member {bad} fails its CRC check)")
    return "zip CRC"


TAR_CHECK = "tar read to its end, zeros after"


class _Remembering:
    """A read-only stream that remembers its last read and where it began (for the block that
    ``tarfile`` read and rejected as a header)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw, self.last, self.last_at = raw, b"", 0

    def read(self, size: int = -1) -> bytes:
        self.last_at = self.raw.tell()
        self.last = self.raw.read(size)
        return self.last

    def seek(self, pos: int, whence: int = 0) -> int:
        return self.raw.seek(pos, whence)

    def tell(self) -> int:
        return self.raw.tell()


def _decompressed(path: Path) -> IO[bytes]:
    with open(path, "rb") as f:
        magic = f.read(6)
    if magic.startswith(b"\x1f\x8b"):
        return gzip.open(path, "rb")
    if magic.startswith(b"BZh"):
        return bz2.open(path, "rb")
    if magic.startswith(b"\xfd7zXZ\x00"):
        return lzma.open(path, "rb")
    return open(path, "rb")


def _tar(path: Path, name: str) -> str:
    with _decompressed(path) as raw:
        stream = _Remembering(raw)
        try:
            tar = tarfile.open(fileobj=stream, mode="r:")  # type: ignore[call-overload]
        except tarfile.ReadError as e:  # no valid first header, or the stream fails under it
            cause = e.__context__ if isinstance(e.__context__, OSError | zlib.error) else None
            raise ContentError(
                f"{name}: corrupt or truncated ("
                + (
                    one_line(cause)
                    if cause
                    else "not a tar archive, plain or gzip/bz2/xz-compressed"
                )
                + ")"
            ) from None
        with tar:
            members = 0
            for member in tar:
                members += 1
                data = tar.extractfile(member) if member.isfile() else None
                if data is not None:
                    while data.read(CHUNK):
                        pass
            end = tar.offset  # where tarfile read the header it did not take as a member
        # that block must be the end-of-archive marker (zeros), not a damaged header
        block = stream.last[end - stream.last_at :] if stream.last_at <= end else b""
        if len(block) < tarfile.BLOCKSIZE or block.strip(b"\0"):
            raise ContentError(
                f"{name}: corrupt or truncated (no valid tar header at byte {end} of the "
                f"archive's content, after {members} member(s))"
            )
        while rest := raw.read(CHUNK):  # padding to the end; the gzip CRC is checked at its end
            if rest.strip(b"\0"):
                raise ContentError(f"{name}: corrupt or truncated (data after the tar's end)")
    return TAR_CHECK


def _gzip(path: Path) -> str:
    with gzip.open(path, "rb") as f:
        while f.read(CHUNK):
            pass
    return "gzip CRC"


def _udpipe(path: Path, name: str) -> str:
    from ufal.udpipe import Model

    if Model.load(str(path)) is None:
        raise ContentError(f"{name}: not a UDPipe model (it does not load)")
    return "UDPipe model loads"


def _vec(path: Path, name: str) -> str:
    with open(path, "rb") as f:
        head = f.readline().split()
        if len(head) != 2 or not all(x.isdigit() for x in head):
            return "no header to check"
        lines, last = 0, b"\n"
        while block := f.read(CHUNK):
            lines += block.count(b"\n")
            last = block[-1:]
    lines += last != b"\n"
    count, dim = int(head[0]), int(head[1])
    if lines != count:
        raise ContentError(
            f"{name}: the header says {count} vectors of {dim} dimensions, the file has {lines} "
            "lines after it (truncated?)"
        )
    return "vector count"


def _fasttext_bin(path: Path, name: str) -> str:
    with open(path, "rb") as f:
        if f.read(4) != _FASTTEXT_MAGIC:
            raise ContentError(f"{name}: not a fastText .bin model (wrong magic number)")
    return "fastText magic"


def checked_as_now(record: dict[str, Any], name: str) -> bool:
    """Whether a download record's checks include today's for its kind: a tar archive recorded
    as "tar read through" by an older xprobe was not read to its end (a damaged archive could
    pass as a shorter whole one) and is checked again."""
    if name.endswith((".tgz", ".tar.gz", ".tar")):
        return TAR_CHECK in record.get("verified", [])
    return True


def record_path(dest: Path) -> Path:
    """``NAME.fetched.json`` beside ``dest``."""
    return dest.with_name(dest.name + ".fetched.json")


def write_record(dest: Path, url: str, size: int, sha256: str, verified: list[str]) -> None:
    """Record what was fetched for ``dest`` (written before ``dest`` appears)."""
    write_json(
        record_path(dest), {"url": url, "bytes": size, "sha256": sha256, "verified": verified}
    )


def check_record(dest: Path) -> dict[str, Any] | None:
    """The record of a cached file, after checking its size still matches (cheap); None if none."""
    path = record_path(dest)
    if not path.exists():
        return None
    try:
        record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise XProbeError(f"{path}: unreadable download record ({e})") from None
    size = dest.stat().st_size
    if record.get("bytes") != size:
        raise XProbeError(
            f"{dest} is {size} bytes, but {record.get('bytes')} were fetched ({path}): it changed "
            "since; delete it (and its record) and download again"
        )
    return record

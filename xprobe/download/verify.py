"""What can be checked about a downloaded file before it enters the cache, and the record of it.

Checks by kind (from the file name), each a pass over the file at most:

* ``.zip``: every member's CRC (``testzip``); ``.tgz``/``.tar.gz``/``.tar``: every member read to
  the end (the gzip CRC and length are checked at the end of the stream); other ``.gz``: the whole
  stream decompressed (CRC).
* ``.udpipe``: the model loads in UDPipe.
* ``.vec``: a ``N D`` header's N equals the number of lines after it; ``.bin`` (fastText): the
  file starts with fastText's magic number.

After the checks, ``NAME.fetched.json`` beside the file records its URL, size, SHA-256 and which
checks passed (:func:`write_record`), so that a file in the cache can be re-verified later
(``sha256sum``) and a file changed since is noticed (:func:`check_record`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import tarfile
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.files import write_json

__all__ = [
    "check_record",
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
            return [_tar(path)]
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


def _tar(path: Path) -> str:
    with tarfile.open(path, "r:*") as tar:
        for member in tar:
            stream = tar.extractfile(member) if member.isfile() else None
            if stream is not None:
                while stream.read(CHUNK):
                    pass
    return "tar read through"


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

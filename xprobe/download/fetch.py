"""``fetch``: download one :class:`~xprobe.download.plan.Item` into the cache, verified.

A file enters the cache (``os.replace`` of ``NAME.part`` onto ``NAME``) only after: its size
matches what the server announced (:mod:`~xprobe.download.transfer`), its checksum matches the one
its source publishes (Wikipedia's ``sha1sums.txt``), and its content passes the checks its kind
allows (:mod:`~xprobe.download.verify`); ``NAME.fetched.json`` then records its SHA-256.

When a check fails, the ``.part`` is kept if it may only be incomplete (the server stated no size,
so a checksum mismatch or a truncated archive may be a connection closed early: the next run
resumes it), and deleted if it is whole and still wrong (the next run fetches it anew).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from urllib.parse import urlsplit

from xprobe.download.plan import Item
from xprobe.download.transfer import download, open_url
from xprobe.download.unpack import unpack
from xprobe.download.verify import (
    check_record,
    checked_as_now,
    digests,
    verify_content,
    write_record,
)
from xprobe.errors import XProbeError

__all__ = ["fetch", "published_checksum"]

log = logging.getLogger(__name__)


def published_checksum(item: Item) -> str | None:
    """The checksum of ``item`` from its source's list, or None when it has none."""
    if not item.checksum_url:
        return None
    resp = open_url(item.checksum_url)
    with resp:
        text = resp.read().decode("utf-8", "replace")
    name = urlsplit(item.url).path.rsplit("/", 1)[1]
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("*") == name:
            return parts[0].lower()
    raise XProbeError(f"{item.checksum_url} lists no checksum for {name}")


def fetch(item: Item, progress: bool = True) -> Path:
    """Download ``item`` (resuming a ``.part``), verify, rename into place; return the path.

    An archive item (``unpack_to``) is also unpacked; the returned path is then that folder.
    """
    if item.dest.exists():
        record = check_record(item.dest)
        if record is None or not checked_as_now(record, item.dest.name):
            _verify_unrecorded(item)
        log.info("cached: %s", item.dest)
    else:
        _fetch(item, progress)
    if item.unpack_to is not None:
        sha256 = (check_record(item.dest) or {}).get("sha256")
        unpack(item.dest, item.unpack_to, keep_paths=item.keep_paths, sha256=sha256)
        return item.unpack_to
    return item.dest


def _fetch(item: Item, progress: bool) -> None:
    expected = published_checksum(item)
    item.dest.parent.mkdir(parents=True, exist_ok=True)
    part = item.dest.with_name(item.dest.name + ".part")
    total = download(item.url, part, progress)
    verified = ["size"] if total is not None else []
    sums = digests(part, ["sha256", item.algorithm] if expected else ["sha256"])
    if expected is not None:
        if sums[item.algorithm] != expected:
            raise XProbeError(
                f"checksum mismatch for {item.url}: expected {item.algorithm} {expected}, got "
                f"{sums[item.algorithm]}; {_dispose(part, total)}"
            )
        verified.append(f"{item.algorithm} (published)")
    log.info("verifying %s", item.dest.name)
    try:
        verified += verify_content(part, item.dest.name)
    except XProbeError as e:
        raise XProbeError(f"{e}; {_dispose(part, total)}") from None
    write_record(item.dest, item.url, part.stat().st_size, sums["sha256"], verified)
    os.replace(part, item.dest)
    log.info("downloaded %s (verified: %s)", item.dest, ", ".join(verified) or "nothing")


def _verify_unrecorded(item: Item) -> None:
    """A cached file without a record, or whose record names an older, weaker check (fetched by
    an older xprobe, which could let a truncated or damaged file in): check its content once,
    and record it."""
    log.info("verifying %s (cached without a record)", item.dest)
    try:
        verified = verify_content(item.dest, item.dest.name)
    except XProbeError as e:
        raise XProbeError(
            f"{e}; it is in the cache: delete {item.dest} and download again"
        ) from None
    size = item.dest.stat().st_size
    sha256 = digests(item.dest, ["sha256"])["sha256"]
    write_record(item.dest, item.url, size, sha256, [*verified, "(checked when already cached)"])


def _dispose(part: Path, total: int | None) -> str:
    """Keep a .part that may be incomplete (resume it), delete one that is whole but wrong."""
    if total is None:
        return (
            f"the server stated no size, so it may be incomplete: {part} is kept, run again to "
            "resume (or delete it to start over)"
        )
    part.unlink()
    return "the downloaded file was deleted, run again to download it anew"

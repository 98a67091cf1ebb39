"""One HTTP transfer into ``NAME.part``, resumed with ``Range`` and checked against the sizes the
server states.

``urllib`` does not raise when a server closes the connection early: ``read()`` just returns no
more data. So every transfer compares what it received with what was announced: the
``Content-Length`` of a ``200``, the ``Content-Range`` (start and total) of a ``206``. A short
body is an error that keeps the ``.part`` for the next run to resume; a ``206`` that does not
start where the ``.part`` ends is refused; a ``416`` (nothing left to send) means "whole" only when
its ``Content-Range: bytes */TOTAL`` equals the ``.part``'s size, otherwise the ``.part`` (too
long, or of unknown state) is discarded and the file fetched again from the start.
"""

from __future__ import annotations

import http.client
import logging
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from xprobe.errors import XProbeError

__all__ = ["download", "open_url"]

log = logging.getLogger(__name__)

CHUNK = 1 << 20
TIMEOUT = 60.0
_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")
_TOTAL = re.compile(r"bytes\s+\*/(\d+)")


@dataclass(frozen=True)
class _Refused:
    """A ``416`` reply: the server has nothing after the requested start; ``total`` if it says."""

    total: int | None


def open_url(url: str, start: int = 0, timeout: float = TIMEOUT) -> Any:
    """The response to a GET of ``url`` from byte ``start``; a ``_Refused`` for a ``416``."""
    req = urllib.request.Request(url, headers={"User-Agent": "xprobe"})
    if start:
        req.add_header("Range", f"bytes={start}-")
    try:
        return urllib.request.urlopen(req, timeout=timeout)
    except urllib.error.HTTPError as e:
        if e.code == 416 and start:
            m = _TOTAL.match(e.headers.get("Content-Range", "") if e.headers else "")
            return _Refused(int(m.group(1)) if m else None)
        raise XProbeError(f"download failed: {url}: HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        host = urlsplit(url).netloc
        raise XProbeError(f"cannot reach {host} ({reason}): offline? url: {url}") from None


def download(url: str, part: Path, progress: bool = True) -> int | None:
    """Fetch ``url`` into ``part`` (resuming what is there); return the total size the server
    stated, or None when it stated none. Raises :class:`XProbeError` when fewer bytes arrived
    than announced (the ``.part`` is kept: run again to resume)."""
    start = part.stat().st_size if part.exists() else 0
    reply = open_url(url, start) if start else None
    if isinstance(reply, _Refused):
        if reply.total == start:
            return start  # the .part is whole
        what = "longer than" if reply.total is not None else "of unknown relation to"
        log.warning("%s is %s the file on the server; fetching it again", part, what)
        part.unlink()
        start, reply = 0, None
    if reply is None:
        start, reply = 0, open_url(url)
        if isinstance(reply, _Refused):  # pragma: no cover - a 416 is only raised for a range
            raise XProbeError(f"download failed: {url}: HTTP 416")
    with reply:
        start, total = _expected(reply, url, part, start)
        size = start + _copy(reply, part, start, total, progress, url)
    if total is not None and size > total:
        part.unlink()
        raise XProbeError(
            f"download of {url}: got {size} bytes where {total} were announced; the partial "
            "file was deleted, run again to download it anew"
        )
    if total is not None and size < total:
        raise XProbeError(
            f"download of {url} incomplete: got {size} of {total} bytes (the connection closed "
            f"early); the partial file {part} is kept, run again to resume"
        )
    if total is None:
        log.warning("%s: the server stated no size; the download's length cannot be checked", url)
    return total


def _expected(resp: Any, url: str, part: Path, start: int) -> tuple[int, int | None]:
    """(where the body starts in the file, the file's total size or None) from the headers."""
    status = getattr(resp, "status", 200)
    length_text = resp.headers.get("Content-Length", "")
    length = int(length_text) if length_text.strip().isdigit() else None
    if status != 206:
        if start:
            log.info("%s: the server ignored the range request; starting again", url)
        return 0, length
    rng = resp.headers.get("Content-Range", "")
    m = _RANGE.match(rng)
    if m is None or int(m.group(1)) != start:
        raise XProbeError(
            f"download of {url}: the server sent Content-Range {rng or '(none)'} when asked "
            f"for bytes {start}-; the partial file {part} is kept (delete it to start over)"
        )
    first, last = int(m.group(1)), int(m.group(2))
    if length is not None and length != last - first + 1:
        raise XProbeError(
            f"download of {url}: Content-Length {length} disagrees with Content-Range {rng}; "
            f"the partial file {part} is kept, run again to resume"
        )
    total = int(m.group(3)) if m.group(3) != "*" else None
    return start, total if total is not None else (start + length if length is not None else None)


def _copy(resp: Any, part: Path, start: int, total: int | None, progress: bool, url: str) -> int:
    """Append (or write) the body to ``part``; return the number of bytes received."""
    from tqdm import tqdm

    received = 0
    with (
        open(part, "ab" if start else "wb") as out,
        tqdm(
            total=total,
            initial=start,
            unit="B",
            unit_scale=True,
            desc=part.name.removesuffix(".part"),
            disable=None if progress else True,
        ) as bar,
    ):
        try:
            while block := resp.read(CHUNK):
                out.write(block)
                received += len(block)
                bar.update(len(block))
        except (OSError, http.client.HTTPException) as e:
            raise XProbeError(
                f"download of {url} interrupted after {start + received} bytes "
                f"({type(e).__name__}: {e}); the partial file {part} is kept, run again to resume"
            ) from None
    return received

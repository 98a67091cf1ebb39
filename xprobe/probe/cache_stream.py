"""Encoding straight into the cache: every layer of a split written to disk as it is encoded.

A layer-wise encoder's :meth:`encode_layers` would return every requested layer of a split at
once: for a 33-layer 4096-d model and 100k sentences that is 54 GB. Here the split is encoded
``CALL_ROWS`` sentences per call, and each layer's rows go straight into that layer's cache
entry, a ``.npy`` file created at its full size (:func:`numpy.lib.format.open_memmap`) and
filled by position (``os.pwrite``): nothing of a layer is kept in memory. An encoder whose
``encode_layers`` takes a ``sink`` (the transformer) hands over each batch as it is computed
(memory: one batch of every layer); any other is called a chunk of rows at a time (memory: one
chunk of every layer).

One writer at a time: the entries of a call are locked (``<entry>.npy.lock``, ``flock``,
released when the process ends, however it ends); a second process that wants them waits, and
then reads what the first wrote instead of encoding again (parallel steps of a study share the
cache).

Atomic and resumable: the entry is written as ``<entry>.npy.part``, with a progress file
``<entry>.npy.part.json`` saying how many rows are done after each chunk; only a complete file
is checksummed and renamed to its place (:meth:`EmbeddingCache.finish`). A run killed midway
leaves the part files; the next run with the same sentences, layers and cache dtype goes on
from the last chunk all of its layers finished (the chunks are fixed, so the rows rewritten get
the same values). A part file that does not match (other size, dtype, or no progress file) is
started again.

The sentences of one call are batched by the encoder (the transformer sorts them by length), so
``CALL_ROWS`` fixes the batches, and so the float rounding of the features: it is a constant,
not a function of the machine's memory. A split of at most ``CALL_ROWS`` sentences is encoded
in one call, as before this module existed.

Example::

    encode_to_cache(cache, transformer, sentences, layers=(0, 6), key=sentences_hash(sentences))
"""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.errors import XProbeError
from xprobe.files import atomic_write

__all__ = ["CALL_ROWS", "encode_to_cache", "locked", "takes_sink"]

log = logging.getLogger(__name__)

CALL_ROWS = 16384  # sentences per encoder call (fixes the batches: see the module docstring)


def takes_sink(encoder: Any) -> bool:
    """Whether ``encoder.encode_layers`` hands over each batch to a ``sink`` argument."""
    try:
        return "sink" in inspect.signature(encoder.encode_layers).parameters
    except (TypeError, ValueError):
        return False


@contextlib.contextmanager
def locked(entries: Sequence[Path]) -> Iterator[None]:
    """Hold an exclusive lock on each of ``entries`` (taken in sorted order, so two callers
    never wait on each other); waits while another process holds one."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): one writer is the user's business
        yield
        return
    fds = []
    try:
        for p in sorted(set(entries)):
            p.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(p.with_name(p.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o666)
            fds.append(fd)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        for fd in fds:
            os.close(fd)  # releases its lock


class _Part:
    """One layer's entry being written: ``<entry>.part`` and its progress file."""

    def __init__(self, final: Path, n: int, dtype: str, what: str) -> None:
        self.final, self.n, self.dtype, self.what = final, n, np.dtype(dtype), what
        self.part = final.with_name(final.name + ".part")
        self.progress = final.with_name(final.name + ".part.json")
        self.d: int | None = None
        self.offset = 0
        self.fd: int | None = None

    def resume(self) -> int:
        """Rows already written by a killed run (0: start again); opens the part file."""
        try:
            meta = json.loads(self.progress.read_text(encoding="utf-8"))
            rows, d = int(meta["rows"]), int(meta["d"])
            same = (meta["n"], meta["dtype"], meta["call_rows"]) == (
                self.n, self.dtype.name, CALL_ROWS)  # fmt: skip
            with open(self.part, "rb") as f:
                version = np.lib.format.read_magic(f)
                read = np.lib.format.read_array_header_1_0
                if version != (1, 0):
                    read = np.lib.format.read_array_header_2_0
                shape, fortran, dtype = read(f)
                offset = f.tell()
            size = self.part.stat().st_size
        except (OSError, ValueError, KeyError, TypeError):
            return 0
        whole = offset + self.n * d * self.dtype.itemsize == size
        header = shape == (self.n, d) and not fortran and dtype == self.dtype
        if not (same and whole and header and 0 < rows <= self.n):
            return 0
        self.d, self.offset = d, offset
        self.fd = os.open(self.part, os.O_RDWR)
        return rows

    def _create(self, d: int) -> None:
        self.final.parent.mkdir(parents=True, exist_ok=True)
        self.progress.unlink(missing_ok=True)
        mm = np.lib.format.open_memmap(self.part, mode="w+", dtype=self.dtype, shape=(self.n, d))
        del mm  # the header written and the file sized (sparse); rows go in by position
        self.d = d
        self.offset = self.part.stat().st_size - self.n * d * self.dtype.itemsize
        self.fd = os.open(self.part, os.O_RDWR)

    def write(self, rows: np.ndarray, arr: np.ndarray) -> None:
        """Rows ``rows`` (positions in the split) of this layer are ``arr``."""
        if self.fd is None:
            if arr.ndim != 2:
                raise XProbeError(f"encoder {self.what} returned shape {arr.shape}")
            self._create(int(arr.shape[1]))
        if arr.ndim != 2 or arr.shape != (len(rows), self.d):
            raise XProbeError(
                f"encoder {self.what} returned shape {arr.shape} for {len(rows)} sentences "
                f"(expected ({len(rows)}, {self.d}))"
            )
        data = np.ascontiguousarray(arr, dtype=self.dtype)
        row_bytes = int(self.d) * self.dtype.itemsize  # type: ignore[operator]
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) and np.array_equal(rows, np.arange(rows[0], rows[0] + len(rows))):
            os.pwrite(self.fd, data.tobytes(), self.offset + int(rows[0]) * row_bytes)
            return
        for k, r in enumerate(rows):
            os.pwrite(self.fd, data[k].tobytes(), self.offset + int(r) * row_bytes)

    def done_rows(self, rows: int) -> None:
        meta = {"rows": rows, "n": self.n, "d": self.d, "dtype": self.dtype.name,
                "call_rows": CALL_ROWS}  # fmt: skip
        with atomic_write(self.progress) as f:
            f.write(json.dumps(meta, sort_keys=True) + "\n")

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def encode_to_cache(
    cache: Any, encoder: Any, sentences: Sequence[Sequence[str]], layers: Sequence[int],
    key: str, desc: str = "encode",
) -> None:  # fmt: skip
    """Encode ``layers`` of ``sentences`` into ``cache`` (an :class:`EmbeddingCache`), entry by
    entry on disk (module docstring); ``key``: the sentences' hash; at least one sentence."""
    n = len(sentences)
    parts = [_Part(cache.path(encoder.layer_id(x), key), n, cache.dtype, encoder.layer_id(x))
             for x in layers]  # fmt: skip
    try:
        start = min(p.resume() for p in parts)
        if start:
            log.info("%s: resuming at sentence %d of %d", desc, start + 1, n)
        sink = takes_sink(encoder)
        for a in range(start, n, CALL_ROWS):
            chunk = sentences[a : a + CALL_ROWS]
            _encode_chunk(encoder, chunk, layers, parts, a, sink, desc)
            for p in parts:
                p.done_rows(a + len(chunk))
    finally:
        for p in parts:
            p.close()
    for layer, p in zip(layers, parts, strict=True):
        cache.finish(p.part, p.final, encoder.layer_id(layer), (n, int(p.d or 0)))
        p.progress.unlink(missing_ok=True)


def _encode_chunk(encoder, chunk, layers, parts: list[_Part], a: int, sink: bool, desc) -> None:
    """One encoder call on rows ``a:a+len(chunk)``, its rows written into each layer's part."""
    if sink:

        def put(j: int, rows, arr) -> None:
            parts[j].write(a + np.asarray(rows, dtype=np.int64), np.asarray(arr))

        encoder.encode_layers(chunk, layers=list(layers), desc=desc, sink=put)
        return
    arrays = encoder.encode_layers(chunk, layers=list(layers), desc=desc)
    rows = np.arange(a, a + len(chunk), dtype=np.int64)
    for p, arr in zip(parts, arrays, strict=True):
        p.write(rows, np.asarray(arr))

"""An on-disk embedding cache: probing an encoder a second time does not encode again.

Key: the identity of the vectors (an encoder's ``id``; for a layer-wise transformer one
``layer_id`` per layer, which names the model, its revision, pooling, detokenisation and layer)
plus the SHA-256 of the sentences encoded (one entry per split of a task; for a layer-wise
encoder probed on whole sets, one entry for every distinct line of the run:
:mod:`xprobe.probe.lines`). Each layer is stored
once, so probing another task, seed or classifier, or a subset of the layers, never encodes
again. Layout::

    CACHE_DIR/<slug>-<digest of the id>/<sha256 of the sentences>.npy    the array
    CACHE_DIR/<slug>-<digest of the id>/<sha256 of the sentences>.json   its checksum
    (``<sha256>.float16.npy`` and ``.float16.json`` for a float16 cache: never read as float32)

The ``.json`` beside each entry holds the SHA-256 of the ``.npy`` file's bytes, its shape and
its stored dtype; a read verifies the checksum (one pass over the file, about 1 GB/s), so an
entry corrupted in place - same size, other bytes - is never used: it is reported with a warning
and encoded again. An entry without its checksum (killed between the two writes, or written by
an older xprobe) is encoded again too. Both files are written atomically (temp file + rename).
A checksum is verified once per cache object (again if the entry or its ``.json`` changed).

A layer-wise encoder's missing layers are encoded straight into their entries on disk, never
every layer in memory, and a killed encoding resumes (:mod:`xprobe.probe.cache_stream`);
``mmap=True`` returns a float32 entry memory-mapped (read from disk as it is used, never
copied), which is how a streamed block of layers is read (:mod:`xprobe.probe.streaming`).

``dtype="float16"`` halves the disk use; arrays are returned as float32 either way. Whether it
changes reported figures is measured in docs/benchmarks/transformers.md ("Embedding cache in
float16"); the default stays float32.

The cache folder is ``--cache-dir``, else ``embeddings/`` in the download cache
(:func:`xprobe.download.cache_dir`).

Example::

    cache = EmbeddingCache()
    X = cache.get_or_encode(encoder, sentences, batch_size=128)
    per_layer = cache.get_or_encode_layers(transformer, sentences, layers=(0, 3, 6))
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.download import cache_dir
from xprobe.encoders.base import Encoder
from xprobe.errors import XProbeError
from xprobe.files import atomic_write
from xprobe.nli.vectors import sentences_digest as sentences_hash

__all__ = ["EmbeddingCache", "default_cache_dir", "encode_all", "sentences_hash"]

log = logging.getLogger(__name__)
DTYPES = ("float32", "float16")


def default_cache_dir() -> Path:
    """``embeddings/`` in the download cache (``$XPROBE_CACHE``, ``$XDG_CACHE_HOME/xprobe``...)."""
    return cache_dir() / "embeddings"


def _file_sha256(p: Path) -> str:
    h = hashlib.sha256()
    buf = bytearray(1 << 20)  # one buffer, reused: a 50 GB entry is hashed in 1 MB of memory
    view = memoryview(buf)
    with open(p, "rb", buffering=0) as f:
        while n := f.readinto(buf):
            h.update(view[:n])
    return h.hexdigest()


class EmbeddingCache:
    """Embeddings on disk, keyed by vector identity and sentence content, checksummed.

    ``hits``/``misses`` count entries; ``corrupt`` counts entries whose checksum failed.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None, dtype: str = "float32") -> None:
        if dtype not in DTYPES:
            raise XProbeError(f"unknown cache dtype {dtype!r}; valid: {', '.join(DTYPES)}")
        self.root = Path(root) if root is not None else default_cache_dir()
        self.dtype = dtype
        self.hits = 0
        self.misses = 0
        self.corrupt = 0
        self._checked: dict[Path, tuple[int, ...]] = {}

    def path(self, encoder_id: str, content_hash: str) -> Path:
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", encoder_id)[:60].strip("_") or "encoder"
        digest = hashlib.sha256(encoder_id.encode("utf-8")).hexdigest()[:16]
        suffix = "" if self.dtype == "float32" else f".{self.dtype}"  # never served to float32
        return self.root / f"{slug}-{digest}" / f"{content_hash}{suffix}.npy"

    def load(
        self, encoder_id: str, content_hash: str, n: int, mmap: bool = False
    ) -> np.ndarray | None:
        """The cached array as float32, or None (missing, unverifiable, corrupt, wrong rows).
        ``mmap``: a float32 entry comes memory-mapped (read from disk as it is used; copy on
        write, so the file is never changed), not read into memory."""
        arr = self._open(encoder_id, content_hash, n, mmap)
        if arr is None or arr.dtype == np.float32:
            return arr
        return np.asarray(arr, dtype=np.float32)

    def _verified(self, p: Path) -> bool:
        """Whether entry ``p`` matches its checksum (checked once per cache object, unless the
        entry or its checksum file changed since: their sizes and modification times are
        remembered)."""
        stamp = _stamp(p)
        if stamp is not None and self._checked.get(p) == stamp:
            return True
        try:
            meta = json.loads(p.with_suffix(".json").read_text(encoding="utf-8"))
            want = str(meta["sha256"])
        except (OSError, ValueError, KeyError, TypeError):
            log.warning("%s: cache entry has no readable checksum; encoding again", p)
            return False
        if _file_sha256(p) != want:
            self.corrupt += 1
            log.warning("%s: cache entry corrupted (checksum mismatch); encoding again", p)
            return False
        self._checked[p] = stamp  # type: ignore[assignment]
        return True

    def _open(self, encoder_id: str, content_hash: str, n: int, mmap: bool) -> np.ndarray | None:
        """The stored array (its dtype; memory-mapped with ``mmap``), verified, or None."""
        p = self.path(encoder_id, content_hash)
        if not p.is_file() or not self._verified(p):
            return None
        try:
            arr = np.load(p, mmap_mode="c" if mmap else None, allow_pickle=False)
        except (OSError, ValueError) as e:
            log.warning("%s: unreadable cache entry (%s); encoding again", p, e)
            return None
        if arr.ndim != 2 or arr.shape[0] != n:
            log.warning("%s: cached shape %s does not fit %d sentences", p, arr.shape, n)
            return None
        return arr

    def store(self, encoder_id: str, content_hash: str, arr: np.ndarray) -> Path:
        """Write an entry (in the cache's dtype) and then its checksum, each atomically."""
        p = self.path(encoder_id, content_hash)
        with atomic_write(p, "wb") as f:
            np.save(f, np.ascontiguousarray(arr, dtype=self.dtype), allow_pickle=False)
        self._write_meta(p, encoder_id, arr.shape)
        return p

    def finish(self, part: Path, p: Path, encoder_id: str, shape: tuple[int, int]) -> None:
        """Put a completely written entry ``part`` (a ``.npy`` file in the cache's dtype) in
        its place ``p``, then its checksum (:mod:`xprobe.probe.cache_stream`)."""
        os.replace(part, p)
        self._write_meta(p, encoder_id, shape)

    def _write_meta(self, p: Path, encoder_id: str, shape: Sequence[int]) -> None:
        meta = {"sha256": _file_sha256(p), "shape": list(shape), "dtype": self.dtype}
        meta["id"] = encoder_id
        with atomic_write(p.with_suffix(".json")) as f:
            f.write(json.dumps(meta, sort_keys=True) + "\n")
        (p.parent / "encoder.txt").write_text(encoder_id + "\n", encoding="utf-8")
        self._checked[p] = _stamp(p)  # type: ignore[assignment]  # its checksum was just taken

    def get_or_encode(
        self,
        encoder: Encoder,
        sentences: Sequence[Sequence[str]],
        batch_size: int = 128,
        desc: str = "encode",
    ) -> np.ndarray:
        """Embeddings of ``sentences``: from the cache, or encoded (in batches) and stored."""
        key = sentences_hash(sentences)
        arr = self.load(encoder.id, key, len(sentences))
        if arr is not None:
            self.hits += 1
            return arr
        self.misses += 1
        arr = encode_all(encoder, sentences, batch_size, desc)
        self.store(encoder.id, key, arr)
        return arr

    def get_or_encode_layers(
        self,
        encoder: Any,
        sentences: Sequence[Sequence[str]],
        layers: Sequence[int],
        desc: str = "encode",
        mmap: bool = False,
    ) -> dict[int, np.ndarray]:
        """Per layer, the embeddings of ``sentences`` for a layer-wise encoder (``layer_id``,
        ``encode_layers``): cached layers are read (memory-mapped with ``mmap``), the missing
        ones encoded in one pass straight into the cache (:mod:`xprobe.probe.cache_stream`:
        never every layer in memory) and read back."""
        raw = self._layers(encoder, sentences, layers, desc, mmap)
        return {k: v if v.dtype == np.float32 else v.astype(np.float32) for k, v in raw.items()}

    def _layers(self, encoder: Any, sentences: Sequence[Sequence[str]], layers: Sequence[int],
                desc: str, mmap: bool, take: Any = None) -> dict[int, Any]:  # fmt: skip
        """:meth:`get_or_encode_layers` in the stored dtype; ``take``: what is kept of each
        layer's array as soon as it is opened (default: the array)."""
        take = take or (lambda a: a)
        key = sentences_hash(sentences)
        n = len(sentences)
        out: dict[int, np.ndarray] = {}
        for layer in layers:
            arr = self._open(encoder.layer_id(layer), key, n, mmap)
            if arr is not None:
                out[layer] = take(arr)
        self.hits += len(out)
        missing = [x for x in layers if x not in out]
        if not missing:
            return {x: out[x] for x in layers}
        from xprobe.probe.cache_stream import encode_to_cache, locked

        paths = {x: self.path(encoder.layer_id(x), key) for x in missing}
        seen = {x: _stamp(p) for x, p in paths.items()}
        with locked(list(paths.values())):
            # one written by another process while this one waited is read, not encoded
            todo = [x for x in missing if _stamp(paths[x]) in (None, seen[x])]
            self.misses += len(todo)
            if todo and n:
                encode_to_cache(self, encoder, sentences, todo, key, desc)
            elif todo:  # nothing to write by position
                arrays = encoder.encode_layers(sentences, layers=todo, desc=desc)
                for layer, arr in zip(todo, arrays, strict=True):
                    _check_shape(arr, n, encoder.layer_id(layer))
                    self.store(encoder.layer_id(layer), key, arr)
        for layer in missing:
            arr = self._open(encoder.layer_id(layer), key, n, mmap)
            if arr is None:
                raise XProbeError(f"{self.path(encoder.layer_id(layer), key)}: the cache entry "
                                  "just written cannot be read back")  # fmt: skip
            out[layer] = take(arr)
        return {x: out[x] for x in layers}

    def layer_shapes(
        self, encoder: Any, sentences: Sequence[Sequence[str]], layers: Sequence[int],
        desc: str = "encode",
    ) -> dict[int, tuple[int, int]]:  # fmt: skip
        """Per layer, the shape of the embeddings of ``sentences``; every layer is in the cache
        afterwards (the missing ones encoded as :meth:`get_or_encode_layers` does); no layer's
        values are read, and one layer at a time is mapped (for its shape) and let go."""
        return self._layers(encoder, sentences, layers, desc, True, lambda a: tuple(a.shape))


def _stamp(p: Path) -> tuple[int, ...] | None:
    """Size and modification time of an entry and of its checksum file (None: one is missing)."""
    try:
        a, b = p.stat(), p.with_suffix(".json").stat()
    except OSError:
        return None
    return (a.st_size, a.st_mtime_ns, a.st_ino, b.st_size, b.st_mtime_ns, b.st_ino)


def _check_shape(arr: np.ndarray, n: int, what: str) -> None:
    if arr.ndim != 2 or arr.shape[0] != n:
        raise XProbeError(f"encoder {what} returned shape {arr.shape} for {n} sentences")


# encoding progress bars: None shows them on a terminal only; ``probe --[no-]progress`` sets it
SHOW_PROGRESS: bool | None = None


def encode_all(
    encoder: Encoder, sentences: Sequence[Sequence[str]], batch_size: int = 128, desc: str = ""
) -> np.ndarray:
    """Encode in batches (longest-first inside each chunk of work is the encoder's business)."""
    from tqdm import tqdm

    out = []
    for i in tqdm(
        range(0, len(sentences), batch_size),
        desc=desc or "encode",
        unit="batch",
        disable=None if SHOW_PROGRESS is None else not SHOW_PROGRESS,
    ):
        batch = [list(s) for s in sentences[i : i + batch_size]]
        vecs = np.asarray(encoder.encode(batch), dtype=np.float32)
        if vecs.shape != (len(batch), encoder.dim):
            raise XProbeError(
                f"encoder {encoder.id} returned shape {vecs.shape} for {len(batch)} sentences "
                f"(expected ({len(batch)}, {encoder.dim}))"
            )
        out.append(vecs)
    if not out:
        return np.zeros((0, encoder.dim), dtype=np.float32)
    return np.concatenate(out)

"""An on-disk embedding cache: probing an encoder a second time does not encode again.

Key: the identity of the vectors (an encoder's ``id``; for a layer-wise transformer one
``layer_id`` per layer, which names the model, its revision, pooling, detokenisation and layer)
plus the SHA-256 of the sentences encoded (one entry per split of a task). Each layer is stored
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
    with open(p, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
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

    def path(self, encoder_id: str, content_hash: str) -> Path:
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", encoder_id)[:60].strip("_") or "encoder"
        digest = hashlib.sha256(encoder_id.encode("utf-8")).hexdigest()[:16]
        suffix = "" if self.dtype == "float32" else f".{self.dtype}"  # never served to float32
        return self.root / f"{slug}-{digest}" / f"{content_hash}{suffix}.npy"

    def load(self, encoder_id: str, content_hash: str, n: int) -> np.ndarray | None:
        """The cached array as float32, or None (missing, unverifiable, corrupt, wrong rows)."""
        p = self.path(encoder_id, content_hash)
        if not p.is_file():
            return None
        meta_path = p.with_suffix(".json")
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            want = str(meta["sha256"])
        except (OSError, ValueError, KeyError, TypeError):
            log.warning("%s: cache entry has no readable checksum; encoding again", p)
            return None
        if _file_sha256(p) != want:
            self.corrupt += 1
            log.warning("%s: cache entry corrupted (checksum mismatch); encoding again", p)
            return None
        try:
            arr = np.load(p, allow_pickle=False)
        except (OSError, ValueError) as e:
            log.warning("%s: unreadable cache entry (%s); encoding again", p, e)
            return None
        if arr.ndim != 2 or arr.shape[0] != n:
            log.warning("%s: cached shape %s does not fit %d sentences", p, arr.shape, n)
            return None
        return np.asarray(arr, dtype=np.float32)

    def store(self, encoder_id: str, content_hash: str, arr: np.ndarray) -> Path:
        """Write an entry (in the cache's dtype) and then its checksum, each atomically."""
        p = self.path(encoder_id, content_hash)
        with atomic_write(p, "wb") as f:
            np.save(f, np.ascontiguousarray(arr, dtype=self.dtype), allow_pickle=False)
        meta = {"sha256": _file_sha256(p), "shape": list(arr.shape), "dtype": self.dtype}
        meta["id"] = encoder_id
        with atomic_write(p.with_suffix(".json")) as f:
            f.write(json.dumps(meta, sort_keys=True) + "\n")
        (p.parent / "encoder.txt").write_text(encoder_id + "\n", encoding="utf-8")
        return p

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
    ) -> dict[int, np.ndarray]:
        """Per layer, the embeddings of ``sentences`` for a layer-wise encoder (``layer_id``,
        ``encode_layers``): cached layers are read, the missing ones encoded in one pass."""
        key = sentences_hash(sentences)
        out: dict[int, np.ndarray] = {}
        for layer in layers:
            arr = self.load(encoder.layer_id(layer), key, len(sentences))
            if arr is not None:
                out[layer] = arr
        self.hits += len(out)
        missing = [x for x in layers if x not in out]
        if missing:
            self.misses += len(missing)
            arrays = encoder.encode_layers(sentences, layers=missing, desc=desc)
            for layer, arr in zip(missing, arrays, strict=True):
                _check_shape(arr, len(sentences), encoder.layer_id(layer))
                self.store(encoder.layer_id(layer), key, arr)
                out[layer] = np.asarray(arr, dtype=np.float32)
        return {x: out[x] for x in layers}


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

"""An on-disk embedding cache: probing an encoder a second time does not encode again.

Key: the encoder's ``id`` (which changes with its weights and configuration) plus the SHA-256 of
the sentences encoded (one entry per split of a task). Layout::

    CACHE_DIR/<encoder slug>-<digest of id>/<sha256 of the sentences>.npy

The cache folder is ``--cache-dir``, else ``embeddings/`` in the download cache
(:func:`xprobe.download.cache_dir`: ``$XPROBE_CACHE``, else ``$XDG_CACHE_HOME/xprobe``, else
``~/.cache/xprobe``), beside ``udpipe/``, ``fasttext/`` and the other downloads. Files are written
atomically (temp file + rename), so a crash never leaves a truncated ``.npy`` that looks valid;
an unreadable entry is treated as a miss and re-encoded.

Example::

    cache = EmbeddingCache()
    X = cache.get_or_encode(encoder, sentences, batch_size=128)
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from xprobe.download import cache_dir
from xprobe.encoders.base import Encoder
from xprobe.files import atomic_write

__all__ = ["EmbeddingCache", "default_cache_dir", "sentences_hash"]

log = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    """``embeddings/`` in the download cache (``$XPROBE_CACHE``, ``$XDG_CACHE_HOME/xprobe``...)."""
    return cache_dir() / "embeddings"


def sentences_hash(sentences: Sequence[Sequence[str]]) -> str:
    """SHA-256 of the sentences (tokens joined by spaces, one per line)."""
    h = hashlib.sha256()
    for toks in sentences:
        h.update(" ".join(toks).encode("utf-8", "surrogateescape"))
        h.update(b"\n")
    return h.hexdigest()


class EmbeddingCache:
    """Embeddings on disk, keyed by encoder id and sentence content; ``hits``/``misses`` count."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()
        self.hits = 0
        self.misses = 0

    def path(self, encoder_id: str, content_hash: str) -> Path:
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", encoder_id)[:60].strip("_") or "encoder"
        digest = hashlib.sha256(encoder_id.encode("utf-8")).hexdigest()[:16]
        return self.root / f"{slug}-{digest}" / f"{content_hash}.npy"

    def load(self, encoder_id: str, content_hash: str, n: int) -> np.ndarray | None:
        """The cached array, or None (missing, unreadable, or not ``n`` rows)."""
        p = self.path(encoder_id, content_hash)
        if not p.is_file():
            return None
        try:
            arr = np.load(p, allow_pickle=False)
        except (OSError, ValueError) as e:
            log.warning("%s: unreadable cache entry (%s); encoding again", p, e)
            return None
        if arr.ndim != 2 or arr.shape[0] != n:
            log.warning("%s: cached shape %s does not fit %d sentences", p, arr.shape, n)
            return None
        return arr

    def store(self, encoder_id: str, content_hash: str, arr: np.ndarray) -> Path:
        p = self.path(encoder_id, content_hash)
        with atomic_write(p, "wb") as f:
            np.save(f, np.ascontiguousarray(arr, dtype=np.float32), allow_pickle=False)
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


def encode_all(
    encoder: Encoder, sentences: Sequence[Sequence[str]], batch_size: int = 128, desc: str = ""
) -> np.ndarray:
    """Encode in batches (longest-first inside each chunk of work is the encoder's business)."""
    from tqdm import tqdm

    out = []
    for i in tqdm(
        range(0, len(sentences), batch_size), desc=desc or "encode", unit="batch", disable=None
    ):
        batch = [list(s) for s in sentences[i : i + batch_size]]
        vecs = np.asarray(encoder.encode(batch), dtype=np.float32)
        if vecs.shape != (len(batch), encoder.dim):
            from xprobe.errors import XProbeError

            raise XProbeError(
                f"encoder {encoder.id} returned shape {vecs.shape} for {len(batch)} sentences "
                f"(expected ({len(batch)}, {encoder.dim}))"
            )
        out.append(vecs)
    if not out:
        return np.zeros((0, encoder.dim), dtype=np.float32)
    return np.concatenate(out)

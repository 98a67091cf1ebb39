"""Sentence vectors of a frozen encoder, computed once and cached on disk.

NLI heads on frozen encoders (:mod:`xprobe.nli.head`), XNLI evaluation and teacher vectors for
distillation encode the same sentences again and again; this cache makes the second time free.
Key: the encoder's ``id`` (it changes with weights and configuration) and the SHA-256 of the
sentences. Layout::

    CACHE/<encoder slug>-<digest of id>/<sha256 of the sentences>.npy

Entries are written to a temp file and renamed (a crash never leaves a half file that looks
finished) and read as memory maps, so a large corpus need not fit in memory. An entry of the
wrong shape is encoded again.

Example::

    vecs = cached_vectors(encoder, [["A", "man", "."], ["Hi"]], Path("cache"), desc="snli dev")
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from xprobe.encoders.base import Encoder
from xprobe.errors import XProbeError

__all__ = ["cached_vectors", "sentences_digest", "vector_cache_dir"]

log = logging.getLogger(__name__)


def vector_cache_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """``override``, else ``sentence-vectors/`` in the download cache (``$XPROBE_CACHE``...)."""
    if override:
        return Path(override)
    from xprobe.download import cache_dir

    return cache_dir() / "sentence-vectors"


def sentences_digest(sentences: Sequence[Sequence[str]]) -> str:
    """SHA-256 of the sentences (tokens joined by spaces, one sentence per line)."""
    h = hashlib.sha256()
    for toks in sentences:
        h.update(" ".join(toks).encode("utf-8", "surrogateescape"))
        h.update(b"\n")
    return h.hexdigest()


def _entry(cache: Path, encoder_id: str, digest: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", encoder_id)[:60].strip("_") or "encoder"
    key = hashlib.sha256(encoder_id.encode("utf-8")).hexdigest()[:16]
    return cache / f"{slug}-{key}" / f"{digest}.npy"


def cached_vectors(
    encoder: Encoder,
    sentences: Sequence[Sequence[str]],
    cache: Path | None,
    desc: str = "encode",
    chunk: int = 1024,
    encoder_id: str | None = None,
) -> np.ndarray:
    """``encoder``'s float32 ``(n, dim)`` vectors of ``sentences``: cached, or encoded and stored.

    Each distinct sentence is encoded once (NLI premises come three times). ``cache=None``
    encodes without storing. ``encoder_id`` keys the cache instead of ``encoder.id`` (for an
    encoder changed in memory, e.g. a teacher given more word vectors). Raises
    :class:`XProbeError` when the encoder returns a wrongly shaped array.
    """
    keys = [tuple(s) for s in sentences]
    first: dict[tuple[str, ...], int] = {}
    where = np.array([first.setdefault(k, len(first)) for k in keys], dtype=np.int64)
    if len(first) < len(keys):
        unique = [list(k) for k in first]
        vecs = _cached(encoder, unique, cache, desc, chunk, encoder_id)
        return np.asarray(vecs)[where]
    return _cached(encoder, sentences, cache, desc, chunk, encoder_id)


def _cached(
    encoder: Encoder,
    sentences: Sequence[Sequence[str]],
    cache: Path | None,
    desc: str,
    chunk: int,
    encoder_id: str | None = None,
) -> np.ndarray:
    from numpy.lib.format import open_memmap
    from tqdm import tqdm

    n, dim = len(sentences), int(encoder.dim)
    key = encoder_id or encoder.id
    path = _entry(cache, key, sentences_digest(sentences)) if cache else None
    if path is not None and path.is_file():
        try:
            arr = np.load(path, mmap_mode="r", allow_pickle=False)
            if arr.shape == (n, dim):
                log.info("%s: %d vectors from cache %s", desc, n, path)
                return arr
        except (OSError, ValueError) as e:
            log.warning("%s: unreadable cache entry (%s); encoding again", path, e)
    target = path if path is not None else None
    if target is None:
        out = np.zeros((n, dim), dtype=np.float32)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.parent / f".{target.name}.{os.getpid()}.tmp.npy"
        out = open_memmap(tmp, mode="w+", dtype=np.float32, shape=(n, dim))
    try:
        bar = tqdm(range(0, n, chunk), desc=desc, unit="chunk", disable=None)
        say = bar.disable and n > chunk  # no bar (no terminal): the log says how far it is
        for start in bar:
            batch = [list(s) for s in sentences[start : start + chunk]]
            vecs = np.asarray(encoder.encode(batch), dtype=np.float32)
            if vecs.shape != (len(batch), dim):
                raise XProbeError(
                    f"encoder {encoder.id} returned shape {vecs.shape} for {len(batch)} "
                    f"sentences (expected ({len(batch)}, {dim}))"
                )
            out[start : start + len(batch)] = vecs
            if say:
                log.info("%s: %d of %d sentences encoded", desc, start + len(batch), n)
        if target is None:
            return out
        out.flush()
        del out
        os.replace(tmp, target)
    finally:
        if target is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
    return np.load(target, mmap_mode="r", allow_pickle=False)

"""How much of a probing task an encoder's word vectors cover: tokens and types found.

An encoder over a ``.vec`` table (BoV, p-means, the NLI encoders, their mapped students) skips a
word that has no vector. A checkpoint keeps only the vectors of its training vocabulary (plus
``train-nli --vocab-from``), so an English NLI encoder probed without them silently encodes
every sentence from its SNLI words alone. :func:`vocab_coverage` counts, over every split of a
task, the tokens and the distinct types that have a vector; each record of an encoder with a
word table carries the counts as ``vocab_coverage``, and below :data:`WARN_BELOW` of tokens
:func:`warn_low_coverage` says so. Encoders without a word table (``npy:``, ``python:``,
subword transformers) and fastText ``.bin`` models (subwords: every word gets a vector) get no
field or full coverage respectively.

Example::

    cov = vocab_coverage(encoder, ps)
    # {'tokens': 120, 'tokens_found': 80, 'types': 15, 'types_found': 11}
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from xprobe.encoders.vectors import WordVectors
from xprobe.probe.datasets import ProbingSet

__all__ = ["WARN_BELOW", "vocab_coverage", "warn_low_coverage"]

log = logging.getLogger(__name__)

WARN_BELOW = 0.95


def vocab_coverage(encoder: Any, ps: ProbingSet) -> dict[str, int] | None:
    """Token and type counts of ``ps`` (all splits) and how many have a vector; None when the
    encoder has no word table."""
    vectors = getattr(encoder, "vectors", None)
    if not isinstance(vectors, WordVectors):
        return None
    counts = Counter(t for sents in ps.tokens.values() for s in sents for t in s)
    found = {t for t in counts if t in vectors or vectors.subword_model is not None}
    return {
        "tokens": sum(counts.values()),
        "tokens_found": sum(counts[t] for t in found),
        "types": len(counts),
        "types_found": len(found),
    }


def warn_low_coverage(
    cov: dict[str, int] | None, encoder: str, ps: ProbingSet, vectors: Any = None
) -> None:
    """Warn when fewer than :data:`WARN_BELOW` of the task's tokens have a vector, with the
    remedy that fits where the vectors come from (``vectors``, the encoder's
    :class:`WordVectors`): a trained encoder's saved vocabulary (``train-nli --vocab-from``)
    or a vector file (which lacks the words)."""
    if not cov or not cov["tokens"]:
        return
    rate = cov["tokens_found"] / cov["tokens"]
    if rate < WARN_BELOW:
        log.warning(
            "%s on %s/%s: only %.1f%% of tokens (%.1f%% of types) have a word vector; the others "
            "are skipped when encoding (%s)",
            encoder, ps.language, ps.task, 100 * rate,
            100 * cov["types_found"] / max(1, cov["types"]), _remedy(vectors),
        )  # fmt: skip


def _remedy(vectors: Any) -> str:
    if isinstance(vectors, WordVectors) and vectors.saved:
        return (
            "the encoder keeps the vectors of its training vocabulary only: train it with "
            "--vocab-from the probing sets"
        )
    where = f"the vector file {vectors.source}" if isinstance(vectors, WordVectors) else "the file"
    return (
        f"{where} has no vector for them: vectors of another language, or another "
        "tokenisation or letter case than the probing sets?"
    )

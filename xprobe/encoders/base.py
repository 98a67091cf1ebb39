"""The encoder interface shared by the probe harness, NLI training and mapping.

An encoder turns a batch of tokenised sentences into a float32 array ``(n, dim)``. Its ``id``
changes whenever its weights or configuration change: the embedding cache keys on it, so two
encoders with the same id must give the same vectors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Encoder"]


@runtime_checkable
class Encoder(Protocol):
    """``encode(batch of token lists) -> float32 (n, dim)``, ``dim``, and an identity ``id``."""

    @property
    def id(self) -> str:
        """Stable identity: a name plus a digest of config and weights."""
        ...

    @property
    def dim(self) -> int:
        """Output dimension."""
        ...

    def encode(self, batch: Sequence[Sequence[str]]) -> np.ndarray:
        """Vectors for a batch of sentences, one row each, float32."""
        ...

"""Convolutional sentence encoder (after Gan et al. 2016), padding-safe.

Three parallel 1-d convolutions over the word vectors, widths 3/4/5 with zero padding 1/2/2 and
``channels`` filters each, ReLU; each feature map is pooled over its *valid* output positions
only (max or mean); the three pooled vectors are concatenated (3 x channels) and projected
linearly to ``proj_dim``.

Why this is batch-independent: the input is zero past a sentence's length, exactly what the
convolution's own zero padding would give, so the outputs at positions
``0 .. len + 2 * pad - width`` are the same in any batch; later positions are masked out of the
pooling.

Example::

    m = CNNEncoder(300, channels=800, proj_dim=1024, pooling="max")
    out = m(torch.zeros(2, 5, 300), torch.tensor([5, 3]))   # (2, 1024)
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from xprobe.encoders.recurrent import padding_mask

__all__ = ["CNNEncoder"]


class CNNEncoder(nn.Module):
    """Widths/paddings/channels/projection as in X-Probe Table 2; ``pooling`` "max" or "avg"."""

    def __init__(
        self,
        word_dim: int = 300,
        channels: int = 800,
        proj_dim: int = 1024,
        widths: Sequence[int] = (3, 4, 5),
        paddings: Sequence[int] = (1, 2, 2),
        pooling: str = "max",
    ) -> None:
        super().__init__()
        if pooling not in ("max", "avg"):
            raise ValueError(f"CNN pooling must be 'max' or 'avg', not {pooling!r}")
        if len(widths) != len(paddings):
            raise ValueError("CNN widths and paddings must have the same length")
        self.pooling = pooling
        self.widths = tuple(int(w) for w in widths)
        self.paddings = tuple(int(p) for p in paddings)
        self.convs = nn.ModuleList(
            nn.Conv1d(word_dim, channels, w, padding=p)
            for w, p in zip(self.widths, self.paddings, strict=True)
        )
        self.proj = nn.Linear(channels * len(self.widths), proj_dim)
        self.out_dim = proj_dim

    def forward(self, embedded: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        lengths = lengths.clamp(min=1).to(embedded.device)
        real = padding_mask(lengths, embedded.shape[1]).unsqueeze(2)
        x = (embedded * real).transpose(1, 2)  # (B, d, T), zero past each length
        pooled = []
        for conv, w, p in zip(self.convs, self.widths, self.paddings, strict=True):
            maps = torch.relu(conv(x))  # (B, C, T + 2p - w + 1)
            valid_len = (lengths + 2 * p - w + 1).clamp(min=1)
            valid = padding_mask(valid_len, maps.shape[2]).unsqueeze(1)
            if self.pooling == "max":
                pooled.append(maps.masked_fill(~valid, float("-inf")).max(dim=2).values)
            else:
                total = (maps * valid).sum(dim=2)
                pooled.append(total / valid_len.unsqueeze(1).to(maps.dtype))
        return self.proj(torch.cat(pooled, dim=1))

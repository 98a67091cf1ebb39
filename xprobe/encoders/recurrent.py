"""BiLSTM and self-attentive sentence encoders (torch modules), padding-safe.

Every module takes ``embedded`` ``(B, T, d)`` (zero rows past each sentence's length) and
``lengths`` ``(B,)`` and returns ``(B, out_dim)``. Sequences are packed
(:func:`torch.nn.utils.rnn.pack_padded_sequence`), so the LSTM never sees padding and a sentence
gets the same vector whatever batch it is in.

- :class:`BiLSTMEncoder` ``pooling="max"``: element-wise max of the BiLSTM outputs over the real
  positions only (InferSent). ``pooling="last"``: the true last state of each direction,
  ``[forward state at position len-1 ; backward state at position 0]``.
- :class:`SelfAttentiveEncoder` (Lin et al. 2017, "A structured self-attentive sentence
  embedding"): BiLSTM states ``H`` (T, 2h); ``A = softmax_T(W2 tanh(W1 H^T))`` with ``heads``
  rows, softmax masked over padding; head outputs ``M = A H`` (heads, 2h). Lin et al. flatten
  ``M`` (60 x 1024 = 61,440 dims); to keep the dimension at ``2h`` we define two variants:

  * ``pooling="max"`` (attn-max): element-wise max over the head outputs ``M_k``.
  * ``pooling="last"`` (attn-last): the attention MLP also sees the BiLSTM's true last state
    ``h_last`` (as in BiLSTM-last) as a query, ``A = softmax_T(W2 tanh(W1 H^T + Wq h_last))``,
    and the head outputs are averaged: the last state steers where each head looks.

Example::

    m = BiLSTMEncoder(300, hidden=512, layers=2, pooling="max")
    out = m(torch.zeros(2, 5, 300), torch.tensor([5, 3]))   # (2, 1024)
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

__all__ = ["BiLSTMEncoder", "SelfAttentiveEncoder", "padding_mask"]


def padding_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """``(B, max_len)`` bool, True at real positions."""
    positions = torch.arange(max_len, device=lengths.device)
    return positions.unsqueeze(0) < lengths.unsqueeze(1)


class _BiLSTM(nn.Module):
    """A packed bidirectional LSTM returning padded outputs and the true last states."""

    def __init__(self, word_dim: int, hidden: int, layers: int, dropout: float) -> None:
        super().__init__()
        self.lstm = nn.LSTM(
            word_dim,
            hidden,
            num_layers=layers,
            batch_first=True,
            bidirectional=True,
            dropout=dropout if layers > 1 else 0.0,
        )

    def forward(
        self, embedded: torch.Tensor, lengths: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``(outputs (B, T, 2h) zero at padding, last (B, 2h))``."""
        lengths = lengths.clamp(min=1)
        packed = pack_padded_sequence(
            embedded, lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        out, (h_n, _) = self.lstm(packed)
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=embedded.shape[1])
        # h_n: (layers * 2, B, h); the top layer's forward state is at len-1, backward at 0
        last = torch.cat([h_n[-2], h_n[-1]], dim=1)
        return out, last


class BiLSTMEncoder(nn.Module):
    """BiLSTM with max-pooling over real positions or the true last states (``pooling``)."""

    def __init__(
        self,
        word_dim: int = 300,
        hidden: int = 512,
        layers: int = 2,
        dropout: float = 0.1,
        pooling: str = "max",
    ) -> None:
        super().__init__()
        if pooling not in ("max", "last"):
            raise ValueError(f"BiLSTM pooling must be 'max' or 'last', not {pooling!r}")
        self.pooling = pooling
        self.rnn = _BiLSTM(word_dim, hidden, layers, dropout)
        self.out_dim = 2 * hidden

    def forward(self, embedded: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        out, last = self.rnn(embedded, lengths)
        if self.pooling == "last":
            return last
        mask = padding_mask(lengths.clamp(min=1).to(out.device), out.shape[1])
        return out.masked_fill(~mask.unsqueeze(2), float("-inf")).max(dim=1).values


class SelfAttentiveEncoder(nn.Module):
    """Lin et al. (2017) structured self-attention over a BiLSTM; see the module docstring."""

    def __init__(
        self,
        word_dim: int = 300,
        hidden: int = 512,
        layers: int = 2,
        dropout: float = 0.1,
        attn_dim: int = 150,
        heads: int = 60,
        pooling: str = "max",
    ) -> None:
        super().__init__()
        if pooling not in ("max", "last"):
            raise ValueError(f"attention pooling must be 'max' or 'last', not {pooling!r}")
        self.pooling = pooling
        self.rnn = _BiLSTM(word_dim, hidden, layers, dropout)
        self.w1 = nn.Linear(2 * hidden, attn_dim, bias=False)
        self.w2 = nn.Linear(attn_dim, heads, bias=False)
        self.wq = nn.Linear(2 * hidden, attn_dim, bias=False) if pooling == "last" else None
        self.out_dim = 2 * hidden

    def attention(self, states: torch.Tensor, lengths: torch.Tensor, last: torch.Tensor):
        """Attention weights ``(B, heads, T)``, zero at padding, rows summing to 1."""
        scores = self.w1(states)
        if self.wq is not None:
            scores = scores + self.wq(last).unsqueeze(1)
        scores = self.w2(torch.tanh(scores)).transpose(1, 2)  # (B, heads, T)
        mask = padding_mask(lengths.clamp(min=1).to(states.device), states.shape[1])
        scores = scores.masked_fill(~mask.unsqueeze(1), float("-inf"))
        return torch.softmax(scores, dim=2)

    def forward(self, embedded: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        states, last = self.rnn(embedded, lengths)
        weights = self.attention(states, lengths, last)
        heads = torch.bmm(weights, states)  # (B, heads, 2h)
        if self.pooling == "max":
            return heads.max(dim=1).values
        return heads.mean(dim=1)

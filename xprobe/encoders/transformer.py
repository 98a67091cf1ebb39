"""Pretrained transformers as sentence encoders, every layer in one forward pass.

Specs (``--encoder``)::

    hf:PATH                          any transformers encoder (BERT, XLM-R, ...): mean pooling,
                                     every layer (0 = the embedding layer, L = the last)
    hf:PATH[pooling=cls,layers=0,6]  options in brackets, comma-separated: pooling=mean|cls|first|
                                     last (or just the name), layers=all|N|A-B|N,M,...,
                                     detok=auto|none|LANG, max_length=N,
                                     revision=REV (a hub model's branch, tag or commit)
    st:PATH[layers=...]              a sentence-transformers model with its own pooling and
                                     normalisation (its last layer equals its ``encode``)

PATH is a local model directory or a hub name (which needs hub access). Pooling: ``mean`` averages
the token states under the attention mask (special tokens included, as sentence-transformers
does); ``cls`` takes position 0; ``first``/``last`` the first/last non-special token. For ``st:``
every layer goes through the model's own pooling and ``Normalize`` module; modules after them
that were trained on the last layer only (e.g. ``Dense``) are applied to the last layer only.

Probing sentences are Moses tokens; they are detokenised per language
(:class:`~xprobe.encoders.detok.Detokenizer`; ``detok=auto`` takes the probing set's language
through :meth:`TransformerEncoder.set_language`) before the subword tokenizer sees them. The
choice is part of the id, as are the model name, its revision (file hashes for a local
directory, :func:`~xprobe.encoders.hfload.local_revision`), the pooling and the maximum length.

Sentences are sorted by length and batched (``batch_size``), so padding is small; padded positions
are masked. On CUDA the model runs in half precision; outputs are float32 either way.

Example::

    enc = load_transformer("hf:models/bert-tiny[pooling=cls]")
    len(enc.encode_layers([["A", "cat", "."]]))   # L + 1 arrays of (1, hidden)
    enc.encode([["A", "cat", "."]]).shape            # (1, hidden): the last requested layer
    enc.at_layer(2).id                               # a one-layer view (shares the model)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from xprobe.encoders.detok import Detokenizer
from xprobe.encoders.device import is_cuda, resolve_device
from xprobe.encoders.encoder_spec import (
    POOLINGS,
    EncoderSpec,
    TransformerSpec,
    is_transformer_spec,
    parse_transformer_spec,
)
from xprobe.errors import XProbeError

__all__ = [
    "POOLINGS",
    "TransformerEncoder",
    "TransformerSpec",
    "is_transformer_spec",
    "load_transformer",
    "parse_transformer_spec",
]


def load_transformer(
    spec: str | EncoderSpec | TransformerSpec, device: str = "auto", batch_size: int = 64
) -> TransformerEncoder:
    """Load the model a spec names (see the module docstring) on ``device`` (auto|cpu|cuda)."""
    from xprobe.encoders.hfload import load_model

    ts = EncoderSpec.parse(spec) if isinstance(spec, str) else spec
    dev = resolve_device(device)
    key = (ts.kind, ts.path, dev, getattr(ts, "revision", None), _stamp(ts.path))
    loaded = _LAST.get(key)
    if loaded is None:
        loaded = load_model(ts.kind, ts.path, dev, getattr(ts, "revision", None))
        _LAST.clear()  # one model kept: a study's worker probing language after language
        _LAST[key] = loaded
    return TransformerEncoder(ts, loaded, dev, batch_size)


# the model a process loaded last, by (kind, path, device, revision, its files' hash): the
# probe steps of a study that run one after another in one worker load it once
_LAST: dict[tuple, Any] = {}


def _stamp(path: str) -> str | None:
    """A local model's revision (its files' SHA-256, memoised on their sizes and times); None
    for a hub name."""
    import os

    from xprobe.encoders.hfload import local_revision

    return local_revision(path) if os.path.isdir(path) else None


class TransformerEncoder:
    """An :class:`~xprobe.encoders.base.Encoder` over a pretrained transformer, all layers at once.

    ``layers`` are the hidden-state indices returned by :meth:`encode_layers` (0 = embeddings);
    :meth:`encode` returns the last of them; :meth:`layer_id` is the identity of one layer's
    vectors (the embedding cache keys on it).
    """

    def __init__(
        self, spec: EncoderSpec | TransformerSpec, loaded: Any, device: str, batch_size: int = 64
    ) -> None:
        self.spec, self.loaded, self.device = spec, loaded, device
        self.batch_size = batch_size
        self.model = loaded.model.to(device).eval()
        if is_cuda(device):
            self.model = self.model.half()
        cfg = self.model.config
        n_hidden = int(getattr(cfg, "num_hidden_layers", 0) or 0)
        self.num_layers = n_hidden + 1
        wanted = spec.layers or tuple(range(self.num_layers))
        bad = [x for x in wanted if x >= self.num_layers]
        if bad:
            raise XProbeError(
                f"{spec.kind}:{spec.path}: layer(s) {bad} do not exist "
                f"(the model has layers 0..{self.num_layers - 1}, 0 = embeddings)"
            )
        self.layers: tuple[int, ...] = tuple(wanted)
        self.max_length = self._max_length()
        self.language = "en"
        self.detok = self._detokenizer()
        self.calls = 0
        self._dims: dict[int, int] = {}

    def _max_length(self) -> int:
        if self.spec.max_length:
            return self.spec.max_length
        if self.loaded.st is not None and self.loaded.st.max_seq_length:
            return int(self.loaded.st.max_seq_length)
        limits = [getattr(self.model.config, "max_position_embeddings", None)]
        limits.append(getattr(self.loaded.tokenizer, "model_max_length", None))
        vals = [int(v) for v in limits if isinstance(v, int) and 0 < v < 1_000_000]
        return min(vals) if vals else 512

    def _detokenizer(self) -> Detokenizer:
        d = self.spec.detok
        return Detokenizer(None if d == "none" else self.language if d == "auto" else d)

    def set_language(self, language: str) -> None:
        """The probing set's language, for ``detok=auto`` (changes :attr:`id`)."""
        if language and language != self.language:
            self.language = language
            self.detok = self._detokenizer()

    # identity -------------------------------------------------------------------------------
    @property
    def base_id(self) -> str:
        s, ld = self.spec, self.loaded
        pooling = "st" if s.kind == "st" else s.pooling
        return (
            f"{s.kind}:{ld.name}@{ld.revision}:pool={pooling}:detok={self.detok.name}"
            f":maxlen={self.max_length}"
        )

    def layer_id(self, layer: int) -> str:
        return f"{self.base_id}:layer={layer}"

    @property
    def id(self) -> str:
        return self.layer_id(self.layers[-1])

    @property
    def dim(self) -> int:
        return self.layer_dim(self.layers[-1])

    def layer_dim(self, layer: int) -> int:
        if layer not in self._dims:
            self.encode_layers([["."]], layers=(layer,))
        return self._dims[layer]

    def at_layer(self, layer: int) -> TransformerEncoder:
        """A view that encodes one layer (shares the loaded model)."""
        view = object.__new__(TransformerEncoder)
        view.__dict__.update(self.__dict__)
        if layer not in range(self.num_layers):
            raise XProbeError(f"layer {layer} out of range 0..{self.num_layers - 1}")
        view.layers = (layer,)
        view._dims = self._dims
        return view

    # encoding -------------------------------------------------------------------------------
    def texts(self, batch: Sequence[Sequence[str]]) -> list[str]:
        """What the subword tokenizer sees: detokenised sentences."""
        return [self.detok.detokenize(list(s)).strip() for s in batch]

    def encode(self, batch: Sequence[Sequence[str]]) -> np.ndarray:
        """``(n, dim)`` float32: the last of :attr:`layers`."""
        return self.encode_layers(batch, layers=(self.layers[-1],))[0]

    def encode_layers(
        self,
        sentences: Sequence[Sequence[str]],
        layers: Sequence[int] | None = None,
        desc: str | None = None,
        sink: Callable[[int, np.ndarray, np.ndarray], None] | None = None,
    ) -> list[np.ndarray]:
        """One ``(n, dim)`` float32 array per requested layer, one forward pass per batch.

        Sentences are sorted by length (characters, as sentence-transformers does) and batched
        by ``batch_size``; rows come back in input order. ``desc`` shows a progress bar.
        ``sink``: each batch's rows are handed over as computed, ``sink(j, rows, array)`` for
        the ``j``-th requested layer and the positions ``rows`` of the batch's sentences, and
        nothing is kept (an empty list is returned): the embedding cache writes them to disk.
        """
        from tqdm import tqdm

        layers = tuple(layers) if layers is not None else self.layers
        texts = self.texts(sentences)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        chunks: list[list[np.ndarray]] = [[] for _ in layers]
        bs = max(1, self.batch_size)
        starts = range(0, len(order), bs)
        for start in tqdm(
            starts, desc=desc or "encode", unit="batch", disable=desc is None or None
        ):
            idx = order[start : start + bs]
            for j, arr in enumerate(self._forward([texts[i] for i in idx], layers)):
                self._dims[layers[j]] = arr.shape[1]
                if sink is not None:
                    sink(j, np.asarray(idx, dtype=np.int64), arr)
                else:
                    chunks[j].append(arr)
        self.calls += 1
        if sink is not None:
            return []
        out = []
        inverse = np.argsort(np.asarray(order, dtype=np.int64)) if order else None
        for j, layer in enumerate(layers):
            if not chunks[j]:
                out.append(np.zeros((0, self._dims.get(layer, 0)), dtype=np.float32))
                continue
            arr = np.concatenate(chunks[j])[inverse]
            self._dims[layer] = arr.shape[1]
            out.append(arr)
        return out

    def _forward(self, texts: list[str], layers: tuple[int, ...]) -> list[np.ndarray]:
        import torch

        with torch.inference_mode():
            if self.loaded.st is not None:
                return self._forward_st(texts, layers)
            enc = self.loaded.tokenizer(
                texts,
                padding=True,
                truncation=True,
                max_length=self.max_length,
                return_tensors="pt",
                return_special_tokens_mask=True,
            )
            special = enc.pop("special_tokens_mask").bool()
            enc = {k: v.to(self.device) for k, v in enc.items()}
            hidden = self.model(**enc, output_hidden_states=True).hidden_states
            mask = enc["attention_mask"].bool()
            content = mask & ~special.to(self.device)
            return [
                pool(hidden[layer].float(), mask, content, self.spec.pooling).cpu().numpy()
                for layer in layers
            ]

    def _forward_st(self, texts: list[str], layers: tuple[int, ...]) -> list[np.ndarray]:
        st = self.loaded.st
        feats = st[0].preprocess(texts)
        feats = {k: v.to(self.device) if hasattr(v, "to") else v for k, v in feats.items()}
        model_in = {
            k: feats[k] for k in ("input_ids", "attention_mask", "token_type_ids") if k in feats
        }
        hidden = self.model(**model_in, output_hidden_states=True).hidden_states
        mods = list(st)[1:]
        out = []
        for layer in layers:
            f = dict(feats, token_embeddings=hidden[layer].float())
            last = layer == self.num_layers - 1
            for m in mods:
                if last or type(m).__name__ in ("Pooling", "Normalize"):
                    f = m(f)
            out.append(f["sentence_embedding"].float().cpu().numpy())
        return out


def pool(hidden: Any, mask: Any, content: Any, how: str) -> Any:
    """Pool ``(b, t, d)`` states: ``mean`` under ``mask``, ``cls`` (position 0), ``first``/
    ``last`` (first/last position where ``content`` is true; position 0 when there is none)."""
    import torch

    if how == "mean":
        m = mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
    if how == "cls":
        return hidden[:, 0]
    pos = torch.arange(hidden.shape[1], device=hidden.device).expand_as(content)
    if how == "first":
        idx = torch.where(content, pos, hidden.shape[1]).min(1).values
        idx = torch.where(idx == hidden.shape[1], 0, idx)
    elif how == "last":
        idx = torch.where(content, pos, -1).max(1).values.clamp(min=0)
    else:
        raise XProbeError(f"unknown pooling {how!r}; valid: {', '.join(POOLINGS)}")
    return hidden[torch.arange(hidden.shape[0], device=hidden.device), idx]

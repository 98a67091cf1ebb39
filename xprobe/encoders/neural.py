"""Neural sentence encoders over frozen word vectors: the six X-Probe architectures.

``build_module(arch, word_dim, **overrides)`` makes the torch module; :class:`NeuralEncoder`
wraps a module and a :class:`~xprobe.encoders.vectors.WordVectors` table into the
:class:`~xprobe.encoders.base.Encoder` protocol (``id``, ``dim``, ``encode``).

Architectures and defaults (X-Probe appendix Table 2):

=============  =====================================================================
bilstm-max     BiLSTM 2 x 512 per direction, dropout 0.1, max over real positions
bilstm-last    same BiLSTM, [forward state at len-1 ; backward state at 0]
attn-max       BiLSTM 2 x 512 + Lin et al. attention (MLP 150, tanh, 60 heads), max over heads
attn-last      same, attention queried by the BiLSTM's true last state, mean over heads
cnn-max        conv widths 3/4/5, padding 1/2/2, 800 channels, max-pool, projection to 1024
cnn-avg        same, mean-pool over valid positions
=============  =====================================================================

See :mod:`xprobe.encoders.recurrent` and :mod:`xprobe.encoders.cnn` for the exact definitions.
Overrides (``hidden``, ``layers``, ``dropout``, ``attn_dim``, ``heads``, ``channels``,
``proj_dim``) allow small models for tests and demos; the full config is recorded in
``encoder.config`` and folded into ``encoder.id``.

Word lookup: each token goes through ``vectors.get`` (lower-cased when ``vectors.lowercase``);
an OOV token of a ``.vec`` table is skipped, a ``.bin`` table builds it from subwords. A sentence
with no known token is encoded as a single zero vector (length 1), so every sentence gets a
vector.

Example::

    vecs = load_vectors("en.vec", vocab={"a", "cat"})
    enc = random_encoder("bilstm-max", vecs, seed=0)
    enc.encode([["a", "cat"], ["cat"]]).shape     # (2, 1024)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from xprobe.encoders.device import resolve_device
from xprobe.errors import XProbeError
from xprobe.files import derive_seed

if TYPE_CHECKING:
    import torch

    from xprobe.encoders.vectors import WordVectors

__all__ = [
    "ARCHITECTURES",
    "DEFAULTS",
    "NeuralEncoder",
    "build_module",
    "module_config",
    "random_encoder",
    "resolve_device",
]

ARCHITECTURES = ("bilstm-max", "bilstm-last", "attn-max", "attn-last", "cnn-max", "cnn-avg")

_RNN = {"hidden": 512, "layers": 2, "dropout": 0.1}
DEFAULTS: dict[str, dict[str, Any]] = {
    "bilstm-max": dict(_RNN),
    "bilstm-last": dict(_RNN),
    "attn-max": {**_RNN, "attn_dim": 150, "heads": 60},
    "attn-last": {**_RNN, "attn_dim": 150, "heads": 60},
    "cnn-max": {"channels": 800, "proj_dim": 1024, "widths": [3, 4, 5], "paddings": [1, 2, 2]},
    "cnn-avg": {"channels": 800, "proj_dim": 1024, "widths": [3, 4, 5], "paddings": [1, 2, 2]},
}


def module_config(arch: str, word_dim: int = 300, **overrides: Any) -> dict[str, Any]:
    """The full, JSON-able config of ``arch`` with ``overrides`` applied.

    Overrides that are None, or that belong to another family (``heads`` for a CNN), are
    ignored; an unknown name is an error.
    """
    if arch not in ARCHITECTURES:
        raise XProbeError(f"unknown encoder architecture {arch!r}; choose from {ARCHITECTURES}")
    config = dict(DEFAULTS[arch])
    known = {k for d in DEFAULTS.values() for k in d}
    for key, value in overrides.items():
        if value is None or (key in known and key not in config):
            continue  # not set, or meant for another family (e.g. ``heads`` for a CNN)
        if key not in config:
            raise XProbeError(f"{arch}: unknown option {key!r}; valid options are {sorted(known)}")
        config[key] = list(value) if isinstance(value, (list, tuple)) else value
    config["arch"] = arch
    config["word_dim"] = int(word_dim)
    return config


def build_module(arch: str, word_dim: int = 300, **overrides: Any) -> torch.nn.Module:
    """A freshly initialised module for ``arch``; ``forward(embedded, lengths) -> (B, out_dim)``.

    Seed torch (``torch.manual_seed``) before calling for reproducible initial weights.
    """
    from xprobe.encoders.cnn import CNNEncoder
    from xprobe.encoders.recurrent import BiLSTMEncoder, SelfAttentiveEncoder

    cfg = module_config(arch, word_dim, **overrides)
    kind, pooling = arch.split("-")
    params = {k: v for k, v in cfg.items() if k not in ("arch", "word_dim")}
    if kind == "bilstm":
        return BiLSTMEncoder(word_dim, pooling=pooling, **params)
    if kind == "attn":
        return SelfAttentiveEncoder(word_dim, pooling=pooling, **params)
    return CNNEncoder(word_dim, pooling=pooling, **params)


def weights_digest(module: torch.nn.Module) -> str:
    """SHA-256 (16 hex) over the module's state dict, in key order."""
    h = hashlib.sha256()
    for key, tensor in sorted(module.state_dict().items()):
        h.update(key.encode())
        h.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


class NeuralEncoder:
    """An :class:`~xprobe.encoders.base.Encoder` over a torch module and frozen word vectors.

    ``encode`` runs in eval mode under ``torch.no_grad``, sorts the batch by length internally
    (in chunks of ``batch_size``) and returns rows in input order. ``embed`` gives the padded
    word vectors for training code that needs gradients through ``module``. The ``id`` is
    computed once and cached: call :meth:`reset_id` after changing the weights.
    """

    def __init__(
        self,
        module: torch.nn.Module,
        vectors: WordVectors,
        config: dict[str, Any],
        device: str = "cpu",
        batch_size: int = 128,
    ) -> None:
        self.module = module.to(device)
        self.vectors = vectors
        self.config = dict(config)
        self.device = device
        self.batch_size = batch_size
        self._id: str | None = None
        if vectors.dim != config["word_dim"]:
            raise XProbeError(
                f"word vectors have dimension {vectors.dim}, the encoder expects "
                f"{config['word_dim']}"
            )

    @property
    def arch(self) -> str:
        return str(self.config["arch"])

    @property
    def dim(self) -> int:
        return int(self.module.out_dim)  # type: ignore[arg-type]

    @property
    def id(self) -> str:
        if self._id is None:
            cfg = json.dumps(self.config, sort_keys=True).encode()
            parts = [
                self.arch,
                hashlib.sha256(cfg).hexdigest()[:8],
                weights_digest(self.module)[:12],
                (self.vectors.fingerprint or "novec")[:12],
            ]
            self._id = "-".join(parts)
        return self._id

    def reset_id(self) -> None:
        """Forget the cached id (after training changed the weights)."""
        self._id = None

    def embed(self, batch: Sequence[Sequence[str]]) -> tuple[torch.Tensor, torch.Tensor]:
        """Padded word vectors ``(B, T, d)`` on ``device`` and lengths ``(B,)`` (>= 1)."""
        import torch

        rows = [self.vectors.lookup(tokens) for tokens in batch]
        lengths = [max(1, len(r)) for r in rows]
        out = np.zeros((len(rows), max(lengths, default=1), self.vectors.dim), np.float32)
        for i, r in enumerate(rows):
            out[i, : len(r)] = r
        return (
            torch.from_numpy(out).to(self.device),
            torch.tensor(lengths, dtype=torch.long, device=self.device),
        )

    def encode(self, batch: Sequence[Sequence[str]]) -> np.ndarray:
        """``float32 (n, dim)`` sentence vectors, one row per sentence, in input order."""
        import torch

        result = np.zeros((len(batch), self.dim), dtype=np.float32)
        order = sorted(range(len(batch)), key=lambda i: len(batch[i]))
        was_training = self.module.training
        self.module.eval()
        try:
            with torch.no_grad():
                for start in range(0, len(order), self.batch_size):
                    chunk = order[start : start + self.batch_size]
                    x, lengths = self.embed([batch[i] for i in chunk])
                    result[chunk] = self.module(x, lengths).float().cpu().numpy()
        finally:
            self.module.train(was_training)
        return result

    def to(self, device: str) -> NeuralEncoder:
        """Move the module to ``device`` (in place); returns self."""
        self.module.to(device)
        self.device = device
        return self


def random_encoder(
    arch: str,
    vectors: WordVectors,
    seed: int = 0,
    device: str = "cpu",
    **overrides: Any,
) -> NeuralEncoder:
    """An untrained (randomly initialised, seeded) encoder: the probing baseline."""
    import torch

    config = module_config(arch, vectors.dim, **overrides)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(derive_seed(seed, "encoder-init", arch) % (2**63))
        module = build_module(arch, vectors.dim, **overrides)
    config["init_seed"] = seed
    return NeuralEncoder(module, vectors, config, device=device)

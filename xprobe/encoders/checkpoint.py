"""Self-contained encoder checkpoints: one directory, loadable with ``--encoder DIR``.

Layout (every file written atomically; ``config.json`` last, with the SHA-256 of the others)::

    DIR/config.json        {"format": "xprobe-encoder", "encoder": {arch, word_dim, sizes...},
                            "id", "vectors": {source, fingerprint, lowercase, dim, words},
                            "files": {name: sha256}, "extra": {...}}
    DIR/encoder.pt         module state dict (loaded with ``torch.load(weights_only=True)``)
    DIR/vocab.txt          the kept words, one per line, in row order of vectors.npy
    DIR/vectors.npy        float32 (len(vocab), word_dim)
    DIR/nli_classifier.pt  + nli_classifier.json: written by :mod:`xprobe.nli.train` when trained

Only the vocabulary the training job needed is stored (subword models are not): a word outside
it is skipped when encoding, exactly as with a ``.vec`` file. Loading checks every recorded
checksum, so a truncated or replaced file gives a clear :class:`~xprobe.errors.XProbeError`.

Example::

    save_encoder("models/en-bilstm-max", enc, extra={"snli_test_acc": 0.84})
    enc = load_encoder("models/en-bilstm-max")
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.encoders.neural import DEFAULTS, NeuralEncoder, build_module
from xprobe.encoders.vectors import WordVectors
from xprobe.errors import XProbeError
from xprobe.files import atomic_write, sha256_file, write_json

__all__ = ["FORMAT", "load_encoder", "read_config", "save_encoder", "verified_path"]

FORMAT = "xprobe-encoder"
FORMAT_VERSION = 1
WEIGHTS, VOCAB, VECTORS, CONFIG = "encoder.pt", "vocab.txt", "vectors.npy", "config.json"


def save_encoder(
    out_dir: str | os.PathLike[str],
    encoder: NeuralEncoder,
    extra: dict[str, Any] | None = None,
    files: dict[str, str] | None = None,
) -> Path:
    """Write ``encoder`` (weights, config, vocabulary, vectors) into ``out_dir``; returns it.

    ``files`` adds checksums of other files already in ``out_dir`` (e.g. the NLI classifier)
    to the manifest, so that loading verifies them too.
    """
    import torch

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu() for k, v in encoder.module.state_dict().items()}
    with atomic_write(out / WEIGHTS, "wb") as f:
        torch.save(state, f)
    vecs = encoder.vectors
    with atomic_write(out / VOCAB) as f:
        for w in vecs.words:
            if not w or any(c in w for c in "\n\r"):
                raise XProbeError(f"cannot store word {w!r} in {VOCAB}: empty or has a newline")
            f.write(w + "\n")
    with atomic_write(out / VECTORS, "wb") as f:
        np.save(f, np.ascontiguousarray(vecs.matrix, dtype=np.float32))
    checksums = {name: sha256_file(out / name) for name in (WEIGHTS, VOCAB, VECTORS)}
    checksums.update(files or {})
    encoder.reset_id()
    write_json(
        out / CONFIG,
        {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "encoder": encoder.config,
            "id": encoder.id,
            "vectors": {
                "source": vecs.source,
                "fingerprint": vecs.fingerprint,
                "lowercase": vecs.lowercase,
                "dim": vecs.dim,
                "words": len(vecs),
                "subwords_dropped": vecs.subword_model is not None,
            },
            "files": checksums,
            "extra": extra or {},
        },
    )
    return out


def read_config(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The checked ``config.json`` of a checkpoint directory (or of the file itself)."""
    p = Path(path)
    cfg_path = p / CONFIG if p.is_dir() else p
    if not p.exists():
        raise XProbeError(f"{p}: encoder checkpoint not found")
    if not cfg_path.is_file():
        raise XProbeError(f"{p}: not an encoder checkpoint (no {CONFIG})")
    try:
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise XProbeError(f"{cfg_path}: corrupted checkpoint config ({e})") from None
    if not isinstance(cfg, dict) or cfg.get("format") != FORMAT:
        raise XProbeError(f"{cfg_path}: not an xprobe encoder config (format != {FORMAT!r})")
    if cfg.get("format_version", 0) > FORMAT_VERSION:
        raise XProbeError(f"{cfg_path}: written by a newer xprobe (format {cfg['format_version']})")
    enc = cfg.get("encoder")
    if not isinstance(enc, dict) or enc.get("arch") not in DEFAULTS:
        raise XProbeError(f"{cfg_path}: missing or unknown encoder architecture")
    return cfg


def verified_path(directory: Path, cfg: dict[str, Any], name: str) -> Path:
    """``directory/name`` after checking it exists and matches its recorded checksum."""
    p = directory / name
    if not p.is_file():
        raise XProbeError(f"{p}: missing from the checkpoint")
    expected = cfg.get("files", {}).get(name)
    if expected is not None and sha256_file(p) != expected:
        raise XProbeError(f"{p}: corrupted or replaced (checksum differs from {CONFIG})")
    return p


def load_encoder(path: str | os.PathLike[str], device: str = "cpu") -> NeuralEncoder:
    """Rebuild the :class:`NeuralEncoder` saved in ``path`` (a directory from save_encoder)."""
    import torch

    directory = Path(path)
    directory = directory if directory.is_dir() or not directory.exists() else directory.parent
    cfg = read_config(directory)
    enc_cfg = cfg["encoder"]
    words = _read_vocab(verified_path(directory, cfg, VOCAB))
    try:
        matrix = np.load(verified_path(directory, cfg, VECTORS), allow_pickle=False)
    except ValueError as e:
        raise XProbeError(f"{directory / VECTORS}: unreadable vectors ({e})") from None
    if matrix.ndim != 2 or matrix.shape[0] != len(words):
        raise XProbeError(
            f"{directory}: {VECTORS} has shape {matrix.shape}, {VOCAB} has {len(words)} words"
        )
    v = cfg.get("vectors", {})
    vectors = WordVectors(
        words,
        matrix.astype(np.float32, copy=False),
        lowercase=bool(v.get("lowercase", False)),
        source=str(directory / VECTORS),
        fingerprint=str(v.get("fingerprint", "")),
        saved=True,
    )
    arch = enc_cfg["arch"]
    sizes = {k: enc_cfg[k] for k in DEFAULTS[arch] if k in enc_cfg}
    module = build_module(arch, int(enc_cfg["word_dim"]), **sizes)
    weights = verified_path(directory, cfg, WEIGHTS)
    try:
        state = torch.load(weights, map_location="cpu", weights_only=True)
        module.load_state_dict(state)
    except Exception as e:  # pickle errors, zip errors, missing/unexpected keys, shapes
        from xprobe.encoders.torchload import load_error_line

        why = load_error_line(e, weights)
        raise XProbeError(f"{weights}: cannot load encoder weights ({why})") from None
    encoder = NeuralEncoder(module, vectors, enc_cfg, device=device)
    if cfg.get("id") and encoder.id != cfg["id"]:
        raise XProbeError(f"{directory}: rebuilt encoder id differs from {CONFIG}")
    return encoder


def _read_vocab(path: Path) -> list[str]:
    try:
        text = path.read_bytes().decode("utf-8")  # no newline translation: words may hold \r
    except UnicodeDecodeError as e:
        raise XProbeError(f"{path}: not UTF-8 ({e})") from None
    return text.split("\n")[:-1] if text else []

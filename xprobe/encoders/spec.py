"""``--encoder SPEC``: which encoder to probe, as one string.

=============================  ===============================================================
``bov:PATH.vec|.bin``           mean of word vectors (:class:`~xprobe.encoders.bov.BoVEncoder`)
``pmeans:PATH``                 concatenated mean/min/max of word vectors
``random:ARCH:PATH[:SEED]``     an untrained, randomly initialised neural encoder (ARCH one of
                                ``xprobe.encoders.neural.ARCHITECTURES``) over the vectors;
                                sizes in brackets (``...:0[hidden=256,layers=1]``) or those of
                                the trained encoder it controls for (``[like=models/en-ENC]``)
``npy:FILE.npy`` / ``npy:DIR``  precomputed embeddings aligned with the task file rows (file
                                order; for a folder, ``DIR/<task file stem>.npy`` per task)
``python:module:function``      a callable ``list of token lists -> array (n, dim)``
``hf:PATH[opts]``               a transformers encoder, every layer (see
                                :mod:`xprobe.encoders.transformer`; opts: pooling, layers, ...)
``st:PATH[opts]``               a sentence-transformers model with its own pooling
a directory                     a project checkpoint (``train-nli`` / ``map`` output)
=============================  ===============================================================

Any spec may end in a display name, ``[name=NAME]`` (or ``name=NAME`` among a spec's other
options: ``hf:PATH[cls,name=MiniLM-L6]``): the name its records and the report use, as
``probe --name`` sets it; not part of the encoder's identity (``id``). Give the encoders of one
kind over each language's vectors one name (``bov:fi.vec[name=bov-fasttext]``) to pair them by
name in the report. Without one, :attr:`EncoderSpec.display_name` makes one from the spec: for
``hf:``/``st:`` directories the model card's name (``# all-MiniLM-L6-v2``), else the directory's
name without generic parts such as ``model``. The spec is parsed once, where it enters, into an
:class:`~xprobe.encoders.encoder_spec.EncoderSpec`; :func:`parse_encoder` loads what it names.

Example::

    spec = EncoderSpec.parse("bov:vectors/en.vec")   # at the edge (CLI, study, Python API)
    enc = parse_encoder(spec, vocab={"a", "cat"})
    EncoderSpec.parse("random:bilstm-max:en.vec:3").display_name   # 'random-bilstm-max-en-s3'
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.encoders.base import Encoder
from xprobe.encoders.encoder_spec import EncoderSpec, default_name, split_display_name
from xprobe.errors import XProbeError

__all__ = [
    "CallableEncoder",
    "EncoderSpec",
    "NpyEmbeddings",
    "default_name",
    "parse_encoder",
    "source_digest",
    "split_display_name",
]


def source_digest(fn: Any) -> str:
    """16 hex digits of the source file that defines ``fn`` (a function, a method, or a callable
    object's class); "" when there is none (a builtin, an interactive definition)."""
    if inspect.isfunction(fn) or inspect.ismethod(fn):
        src = inspect.getsourcefile(fn)
    else:
        src = inspect.getsourcefile(type(fn)) if callable(fn) else None
    if src and Path(src).is_file():
        return hashlib.sha256(Path(src).read_bytes()).hexdigest()[:16]
    return ""


class CallableEncoder:
    """Wraps ``fn(list of token lists) -> array``; the id includes a digest of its source file."""

    def __init__(self, fn: Callable[[list[list[str]]], Any], name: str) -> None:
        self.fn, self.name = fn, name
        self.calls = 0
        self._id = f"python:{name}:{source_digest(fn)}"
        self._dim: int | None = getattr(fn, "dim", None)

    @property
    def id(self) -> str:
        return self._id

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.encode([["."]])
        assert self._dim is not None
        return self._dim

    def inputs(self, batch: Sequence[Sequence[str]]) -> list[Any]:
        """What ``fn`` is given for a batch of token lists: the token lists themselves."""
        return [list(s) for s in batch]

    def encode(self, batch: Sequence[Sequence[str]]) -> np.ndarray:
        self.calls += 1
        arr = np.asarray(self.fn(self.inputs(batch)), dtype=np.float32)
        if arr.ndim != 2 or arr.shape[0] != len(batch):
            raise XProbeError(f"{self._id}: returned shape {arr.shape} for {len(batch)} sentences")
        self._dim = arr.shape[1]
        return arr


class NpyEmbeddings:
    """Precomputed embeddings: rows aligned with the task file(s), looked up per split.

    Not an encoder of token lists: the probe asks :meth:`for_rows` with the rows of a split.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise XProbeError(f"{self.path}: embeddings file or folder not found")
        self.id = f"npy:{self.path.resolve()}"

    def array(self, task_file: str) -> np.ndarray:
        p = self.path / f"{task_file}.npy" if self.path.is_dir() else self.path
        if not p.is_file():
            raise XProbeError(f"{p}: no precomputed embeddings for task {task_file}")
        try:
            arr = np.load(p, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError) as e:
            raise XProbeError(f"{p}: not a .npy array ({e})") from None
        if arr.ndim != 2:
            raise XProbeError(f"{p}: expected a 2-d array (rows, dim), got shape {arr.shape}")
        return arr

    def for_rows(self, task_file: str, rows: np.ndarray) -> np.ndarray:
        arr = self.array(task_file)
        if len(rows) and int(rows.max()) >= arr.shape[0]:
            raise XProbeError(
                f"{self.path}: {arr.shape[0]} rows, but the task file has more than "
                f"{int(rows.max())} sentences; the array must be aligned with the task file"
            )
        return np.asarray(arr[rows], dtype=np.float32)


def _vectors_path(path: str) -> Path:
    p = Path(path)
    if not p.is_file():
        raise XProbeError(f"{p}: word-vector file not found")
    return p


def parse_encoder(
    spec: str | EncoderSpec,
    vocab: Iterable[str] | None = None,
    device: str = "cpu",
    lowercase: bool = False,
) -> Encoder | NpyEmbeddings:
    """The encoder a spec names (see the module docstring); ``vocab`` restricts vector loading.
    ``spec``: an :class:`EncoderSpec` (a string is parsed, for callers outside the package)."""
    s = spec if isinstance(spec, EncoderSpec) else EncoderSpec.parse(spec)
    if s.kind in ("hf", "st"):
        from xprobe.encoders.transformer import load_transformer

        return load_transformer(s, device=device)
    if s.kind in ("bov", "pmeans"):
        from xprobe.encoders.bov import BoVEncoder

        pooling = "mean" if s.kind == "bov" else "pmeans"
        return BoVEncoder.from_path(_vectors_path(s.path), pooling, vocab, lowercase)
    if s.kind == "random":
        return _random(s, vocab, device, lowercase)
    if s.kind == "npy":
        return NpyEmbeddings(s.path)
    if s.kind == "python":
        return _python(s)
    if Path(s.path).is_dir():
        from xprobe.encoders.checkpoint import load_encoder

        return load_encoder(s.path, device=device)
    raise XProbeError(
        f"--encoder {s.path!r}: expected bov:PATH, pmeans:PATH, random:ARCH:PATH[:SEED], "
        "npy:FILE, python:module:function, hf:PATH[...], st:PATH[...], or a checkpoint directory"
    )


def _python(s: EncoderSpec) -> CallableEncoder:
    module, func = s.target
    if not module or not func:
        raise XProbeError(f"--encoder {s.plain}: expected python:module:function")
    try:
        fn = getattr(importlib.import_module(module), func)
    except (ImportError, AttributeError) as e:
        why = f"cannot import {func} from {module} ({e})"
        raise XProbeError(f"--encoder {s.plain}: {why}") from None
    return CallableEncoder(fn, f"{module}:{func}")


def _random(s: EncoderSpec, vocab: Iterable[str] | None, device: str, lowercase: bool) -> Encoder:
    from xprobe.encoders.neural import ARCHITECTURES, random_encoder
    from xprobe.encoders.vectors import load_vectors

    if s.arch not in ARCHITECTURES:
        raise XProbeError(f"unknown architecture {s.arch!r}; valid: {', '.join(ARCHITECTURES)}")
    sizes = dict(s.sizes)
    if "like" in sizes:
        sizes.pop("like")
        sizes = _sizes_like(s) | sizes
    vectors = load_vectors(_vectors_path(s.path), vocab=vocab, lowercase=lowercase)
    return random_encoder(s.arch, vectors, seed=s.seed or 0, device=device, **sizes)


def _sizes_like(s: EncoderSpec) -> dict[str, Any]:
    """The sizes of the checkpoint a random control stands for (same architecture required),
    as its spec read them (:attr:`EncoderSpec.provenance`)."""
    from xprobe.encoders.neural import DEFAULTS

    directory, own = dict(s.sizes)["like"], s.provenance
    if not own.arch:
        raise XProbeError(f"random:{s.arch}[like={directory}]: {directory} is not an xprobe "
                          "encoder checkpoint (no config.json with its architecture)")  # fmt: skip
    if own.arch != s.arch:
        raise XProbeError(f"random:{s.arch}[like={directory}]: that encoder is a {own.arch}")
    sizes = dict(own.sizes)
    return {k: sizes[k] for k in DEFAULTS[s.arch] if k in sizes}

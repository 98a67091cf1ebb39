"""Students for distillation from a frozen teacher: what ``xprobe map --student`` trains.

Two kinds, behind one small interface (``prepare`` sentences once, ``forward`` a batch with
gradients, ``encode`` without, ``parameters``, ``modules`` for the resumable state, ``save``,
``coverage`` of target text for the check before training); :func:`build_student` makes the one a
:class:`~xprobe.mapping.config.MapConfig` names:

* :class:`TransformerStudent` (``--student hf:PATH``, or ``st:PATH`` for a whole
  sentence-transformers pipeline with its own pooling and normalisation): a transformers encoder
  initialised from a
  local directory (for example the English teacher itself: its WordPiece vocabulary covers
  Latin-script languages), with its own pooling (``mean``, ``cls``, ``max``) and, with
  ``projection``, a linear layer to the teacher's dimension. Moses tokens are detokenised per
  language (sacremoses) before its subword tokenizer sees them. It is saved as a
  sentence-transformers directory (transformer weights and tokenizer at the top, pooling and
  projection as modules): probe it as ``st:OUT``, or layer by layer as ``hf:OUT``.
* :class:`VectorStudent` (``--student ARCH``, or no ``--student``: X-Probe's own setting, the
  teacher's architecture and sizes): one of X-Probe's six architectures over mapped, frozen word
  vectors (``--vectors``), sized to give the teacher's dimension; saved as an xprobe encoder
  directory (``--encoder OUT``).

Every student directory names its teacher: ``teacher`` (the spec given) and ``teacher_id``, in
``xprobe_student.json`` (transformer students) or under ``extra`` in ``config.json`` (vector
students); :func:`teacher_of` reads either, so a report can pair a student with its teacher.

Example::

    student = TransformerStudent.load("hf:models/minilm", lang="de", pooling="mean",
                                      out_dim=384, projection=False, device="cpu")
    items = student.prepare([["Das", "ist", "gut", "."]])
    vecs = student.forward(items)        # (1, 384), with gradients
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.encoders.encoder_spec import STUDENT_META, EncoderSpec
from xprobe.encoders.encoder_spec import read_teacher as teacher_of  # the one reader
from xprobe.errors import XProbeError
from xprobe.files import write_json

__all__ = [
    "POOLINGS",
    "STUDENT_META",
    "TransformerStudent",
    "VectorStudent",
    "build_student",
    "dimension_error",
    "teacher_of",
]

log = logging.getLogger(__name__)

POOLINGS = ("mean", "cls", "max")
_ST_POOLING = {"mean": "mean", "cls": "cls", "max": "max"}


def dimension_error(student: str, got: int, teacher: str, want: int) -> XProbeError:
    """The one-line error for a student whose vectors do not have the teacher's size."""
    return XProbeError(
        f"student {student} gives {got}-d vectors but teacher {teacher} gives {want}-d: pass "
        "--projection to add a linear layer to the teacher's size, or choose a student of "
        "that size"
    )


def _st_modules():
    try:
        from sentence_transformers.sentence_transformer import modules
    except ImportError:  # older sentence-transformers
        from sentence_transformers import models as modules
    return modules


class TransformerStudent:
    """A transformers encoder + pooling (+ projection) as a trainable sentence encoder."""

    kind = "transformer"

    def __init__(self, model, lang: str, spec: Any, device: str, batch_size: int = 64) -> None:
        self.model = model
        self.lang = lang
        self.spec = spec
        self.device = device
        self.batch_size = batch_size

    @classmethod
    def load(
        cls,
        spec: EncoderSpec,
        lang: str,
        pooling: str,
        out_dim: int,
        projection: bool,
        device: str,
        max_seq_length: int = 128,
        teacher: str = "the teacher",
    ) -> TransformerStudent:
        """The student ``spec`` (parsed where the run starts): ``hf:PATH`` initialised from a
        local transformers directory (``pooling`` on top), or ``st:PATH``: a whole
        sentence-transformers pipeline (its own pooling and normalisation: a copy of an ``st:``
        teacher starts as exactly the teacher).
        transformers' loading bars show on a terminal only."""
        from xprobe.encoders.hfload import bars_on_terminal_only

        if not isinstance(spec, EncoderSpec):  # a Python caller's string: parsed once
            spec = EncoderSpec.parse(spec)
        with bars_on_terminal_only():
            return cls._load(spec, lang, pooling, out_dim, projection, device, max_seq_length,
                             teacher)  # fmt: skip

    @classmethod
    def _load(cls, spec, lang, pooling, out_dim, projection, device, max_seq_length,
              teacher) -> TransformerStudent:  # fmt: skip
        from sentence_transformers import SentenceTransformer

        path, kind, spec = Path(spec.path), spec.kind, spec.shown
        if kind == "st":
            return cls._load_st(spec, path, lang, out_dim, projection, device, max_seq_length,
                                teacher)  # fmt: skip
        if not (path / "config.json").is_file():
            raise XProbeError(f"--student {spec}: {path} is not a transformers model directory")
        if pooling not in POOLINGS:
            raise XProbeError(f"--pooling {pooling!r}: choose one of {', '.join(POOLINGS)}")
        mods = _st_modules()
        try:
            tr = mods.Transformer(str(path), max_seq_length=max_seq_length)
        except (OSError, ValueError) as e:
            raise XProbeError(f"--student {spec}: cannot load ({e})") from None
        dim = int(tr.auto_model.config.hidden_size)
        layers = [tr, mods.Pooling(dim, _ST_POOLING[pooling])]
        if dim != out_dim and not projection:
            raise dimension_error(spec, dim, teacher, out_dim)
        if projection and dim != out_dim:
            import torch

            layers.append(mods.Dense(dim, out_dim, activation_function=torch.nn.Identity()))
        model = SentenceTransformer(modules=layers, device=device)
        return cls(model, lang, spec, device)

    @classmethod
    def _load_st(cls, spec, path: Path, lang, out_dim, projection, device, max_seq_length,
                 teacher) -> TransformerStudent:  # fmt: skip
        from sentence_transformers import SentenceTransformer

        if not (path / "modules.json").is_file():
            raise XProbeError(f"--student {spec}: {path} is not a sentence-transformers directory")
        try:
            model = SentenceTransformer(str(path), device=device)
        except (OSError, ValueError) as e:
            raise XProbeError(f"--student {spec}: cannot load ({e})") from None
        model.max_seq_length = max_seq_length
        get_dim = getattr(model, "get_embedding_dimension", None)  # renamed in ST 5+
        dim = int((get_dim or model.get_sentence_embedding_dimension)() or 0)
        if dim != out_dim and not projection:
            raise dimension_error(spec, dim, teacher, out_dim)
        if dim != out_dim:
            import torch

            dense = _st_modules().Dense(dim, out_dim, activation_function=torch.nn.Identity())
            model.append(dense.to(device))
        return cls(model, lang, spec, device)

    @property
    def dim(self) -> int:
        return int(self.model(self._features(["a"]))["sentence_embedding"].shape[1])

    def prepare(self, sentences: Sequence[Sequence[str]]) -> list[str]:
        """Moses tokens -> text in the student's language, detokenised exactly as the ``hf:``
        and ``st:`` encoders do for probing (:class:`xprobe.encoders.detok.Detokenizer`)."""
        from xprobe.encoders.detok import Detokenizer

        detok = Detokenizer(self.lang)
        return [detok.detokenize(list(s)).strip() for s in sentences]

    def _features(self, texts: list[str]) -> dict[str, Any]:
        tokenize = getattr(self.model, "preprocess", None) or self.model.tokenize
        feats = tokenize(texts)
        return {k: (v.to(self.device) if hasattr(v, "to") else v) for k, v in feats.items()}

    def forward(self, items: list[str]):
        """Sentence vectors of a batch, with gradients (train mode is the caller's)."""
        return self.model(self._features(items))["sentence_embedding"]

    def parameters(self):
        return self.model.parameters()

    def coverage(self, sentences: Sequence[Sequence[str]]) -> tuple[float, str]:
        """Share of the subword tokens of ``sentences`` that are not the unknown token."""
        tok = self.model.tokenizer
        unk = getattr(tok, "unk_token_id", None)
        ids = tok(self.prepare(sentences), add_special_tokens=False)["input_ids"]
        total = sum(len(i) for i in ids)
        known = sum(1 for row in ids for i in row if i != unk)
        return known / max(1, total), "its tokenizer maps to a known subword"

    def modules(self) -> dict[str, Any]:
        return {"student": self.model}

    def train(self, mode: bool = True) -> None:
        self.model.train(mode)

    def encode(self, items: list[str]) -> np.ndarray:
        """float32 vectors (eval mode, no gradients), sorted by length inside, input order."""
        import torch

        was = self.model.training
        self.model.eval()
        order = sorted(range(len(items)), key=lambda i: len(items[i]))
        out = None
        try:
            with torch.no_grad():
                for s in range(0, len(order), self.batch_size):
                    rows = order[s : s + self.batch_size]
                    y = self.forward([items[i] for i in rows]).float().cpu().numpy()
                    if out is None:
                        out = np.zeros((len(items), y.shape[1]), dtype=np.float32)
                    out[rows] = y
        finally:
            self.model.train(was)
        return out if out is not None else np.zeros((0, 0), dtype=np.float32)

    def save(self, out: Path, meta: dict[str, Any], files: dict[str, str] | None = None) -> None:
        """A sentence-transformers directory plus ``xprobe_student.json`` (written last)."""
        from xprobe.encoders.hfload import bars_on_terminal_only

        with bars_on_terminal_only():
            self.model.save(str(out), create_model_card=False)
        _follow_umask(out)
        write_json(out / STUDENT_META, {"format": "xprobe-student", "kind": self.kind, **meta})


def _follow_umask(out: Path) -> None:
    """transformers writes its weights 0600; finished files follow the umask like every other
    output (the teacher cache and the training state are left alone)."""
    mask = os.umask(0)
    os.umask(mask)
    for p in [*out.glob("*"), *out.glob("[0-9]_*/*")]:
        if p.is_file() and p.suffix != ".pt":
            os.chmod(p, 0o666 & ~mask)


class VectorStudent:
    """An X-Probe architecture over frozen mapped word vectors, sized to the teacher's dim."""

    kind = "vectors"

    def __init__(self, encoder, spec: str) -> None:
        self.encoder = encoder
        self.spec = spec
        zero = np.zeros((1, encoder.vectors.dim), dtype=np.float32)
        import torch

        table = np.concatenate([encoder.vectors.matrix, zero]).astype(np.float32)
        self.table = torch.from_numpy(table).to(encoder.device)

    @classmethod
    def load(
        cls,
        arch: str,
        vectors,
        out_dim: int,
        seed: int,
        device: str,
        sizes: dict[str, Any],
        teacher: str = "the teacher",
    ) -> VectorStudent:
        from xprobe.encoders.neural import random_encoder

        sizes = dict(sizes)
        if arch.startswith("cnn"):
            sizes.setdefault("proj_dim", out_dim)
        elif out_dim % 2 == 0:
            sizes.setdefault("hidden", out_dim // 2)  # BiLSTM: two directions
        enc = random_encoder(arch, vectors, seed=seed, device=device, **sizes)
        if enc.dim != out_dim:
            raise XProbeError(
                f"student {arch} gives {enc.dim}-d vectors but teacher {teacher} gives "
                f"{out_dim}-d: leave its sizes (--hidden, --proj-dim) unset to match"
            )
        return cls(enc, arch)

    @property
    def dim(self) -> int:
        return int(self.encoder.dim)

    def prepare(self, sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        from xprobe.mapping.data import to_ids

        return to_ids(sentences, self.encoder.vectors)

    def forward(self, items: list[np.ndarray]):
        from xprobe.mapping.data import padded_batch

        return self.encoder.module(*padded_batch(self.table, items))

    def parameters(self):
        return self.encoder.module.parameters()

    def coverage(self, sentences: Sequence[Sequence[str]]) -> tuple[float, str]:
        """Share of the tokens of ``sentences`` that have a mapped vector."""
        ids = self.prepare(sentences)
        total = sum(len(s) for s in sentences)
        return sum(len(i) for i in ids) / max(1, total), "it has mapped vectors for"

    def modules(self) -> dict[str, Any]:
        return {"student": self.encoder.module}

    def train(self, mode: bool = True) -> None:
        self.encoder.module.train(mode)

    def encode(self, items: list[np.ndarray]) -> np.ndarray:
        from xprobe.mapping.data import encode_ids

        return encode_ids(self.encoder.module, self.table, items)

    def save(self, out: Path, meta: dict[str, Any], files: dict[str, str] | None = None) -> None:
        """An xprobe encoder directory; ``files`` (e.g. the copied NLI classifier) are checked
        by its manifest."""
        from xprobe.encoders.checkpoint import save_encoder

        self.encoder.reset_id()
        save_encoder(out, self.encoder, extra=meta, files=files)


def build_student(cfg, teacher, target_words: set[str], device: str):
    """The student ``cfg`` names, seeded, giving the teacher's ``dim``-d vectors."""
    import torch

    from xprobe.encoders.neural import ARCHITECTURES
    from xprobe.files import derive_seed
    from xprobe.mapping.data import student_vectors

    out_dim = int(teacher.dim)
    if cfg.student is None:  # X-Probe: the teacher's architecture and sizes
        config = getattr(teacher, "config", None)
        if not isinstance(config, dict) or "arch" not in config:
            raise XProbeError(
                f"teacher {cfg.teacher.shown} is not a train-nli directory: name a student "
                f"(--student hf:PATH or one of {', '.join(ARCHITECTURES)})"
            )
        vectors = student_vectors(cfg, target_words, teacher.vectors.lowercase)
        sizes = {k: v for k, v in config.items() if k not in ("arch", "word_dim", "init_seed")}
        return VectorStudent.load(config["arch"], vectors, out_dim, cfg.seed, device, sizes,
                                  teacher=cfg.teacher.shown)  # fmt: skip
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(derive_seed(cfg.seed, "distil-student-init") % (2**63))
        if cfg.transformer_student:
            if cfg.vectors:
                raise XProbeError("--vectors belongs to an architecture student, not hf:/st:")
            return TransformerStudent.load(
                cfg.student, cfg.target_lang, cfg.pooling, out_dim, cfg.projection, device,
                cfg.max_seq_length, teacher=cfg.teacher.shown,
            )  # fmt: skip
        if cfg.student in ARCHITECTURES:
            own = getattr(teacher, "vectors", None)
            lower = cfg.lowercase if cfg.lowercase is not None else bool(own and own.lowercase)
            vectors = student_vectors(cfg, target_words, lower)
            return VectorStudent.load(
                cfg.student,
                vectors,
                out_dim,
                cfg.seed,
                device,
                cfg.sizes,
                teacher=cfg.teacher.shown,
            )
    raise XProbeError(
        f"--student {cfg.student!r}: expected hf:PATH (a transformers directory), st:PATH (a "
        "sentence-transformers directory) or one of "
        f"{', '.join(ARCHITECTURES)}"
    )

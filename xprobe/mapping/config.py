"""The settings of one ``xprobe map`` run (:func:`xprobe.mapping.trainer.map_encoder`).

One configuration for every teacher and student. ``teacher`` is any frozen encoder (an
:class:`~xprobe.encoders.encoder_spec.EncoderSpec`, parsed where the run starts: a ``train-nli``
directory, ``st:PATH``, ``hf:PATH``, ``bov:...``; a string is parsed once, for Python callers);
the settings it records keep the spec as it was written. ``student`` is

* ``None``: X-Probe section 5.2, the teacher's own architecture and sizes, freshly initialised,
  over the mapped target word vectors ``vectors`` (the teacher must be a ``train-nli``
  directory; its NLI classifier is the XNLI stopping head and is copied into the output);
* an architecture name (``bilstm-max``...): that architecture over ``vectors``, sized to give the
  teacher's dimension;
* ``hf:PATH`` (parsed into an ``EncoderSpec``): a transformer initialised from a local
  directory (e.g. the teacher itself), with ``pooling``; ``st:PATH``: a whole
  sentence-transformers pipeline (pooling, normalisation) from a local directory: a copy of an
  ``st:`` teacher starts as exactly the teacher.

The stopping rule is XNLI dev accuracy in the target language when a head is known (``nli_head``,
or the teacher's own classifier) and ``xnli_dev`` is given, else held-out MSE to the teacher.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from xprobe.encoders.encoder_spec import EncoderSpec, student_spec

__all__ = ["MapConfig"]

# Settings that do not change what is trained: a resumed run may differ in them.
_NOT_IDENTITY = ("out", "resume", "device", "threads", "epochs", "patience", "max_steps", "extra",
                 "cache_dir")  # fmt: skip


@dataclass
class MapConfig:
    """Everything a ``map`` run depends on. Paths are files; see ``xprobe map --help``."""

    teacher: EncoderSpec
    out: str
    target_lang: str
    student: EncoderSpec | str | None = None  # None: the teacher's architecture over ``vectors``
    vectors: str | None = None  # mapped target word vectors (architecture students)
    xnli_dev: str | None = None
    source_lang: str = "en"
    parallel_src: str | None = None
    parallel_tgt: str | None = None
    parallel_tsv: str | None = None
    teacher_vectors: str | None = None  # full English .vec, to cover the corpus vocabulary
    xnli_dev_en: str | None = None
    xnli_language: str | None = None  # filter for official XNLI files (default: target_lang)
    nli_head: str | None = None  # head on the teacher's space (default: the teacher's own)
    lam: float = 0.25
    epochs: int = 10
    patience: int = 2
    batch_size: int | None = None  # default: 64 (X-Probe student), 32 otherwise
    lr: float | None = None  # default: 2e-5 for a transformer student, 1e-3 otherwise
    seed: int = 1
    eval_every: int = 0  # steps between evaluations (and saved states); 0 = once per epoch
    max_steps: int = 0  # stop (after an evaluation) at this many steps; 0 = epochs decide
    length_batches: bool | None = None  # batches of similar length (default: transformers)
    device: str = "auto"
    threads: int = 0  # torch CPU threads; 0 = torch's default
    resume: bool = False
    heldout: int = 1000
    max_pairs: int | None = None
    min_length: int = 1
    max_length: int = 50
    max_ratio: float = 3.0
    keep_vocab: int = 100000
    max_xnli: int | None = None
    min_coverage: float = 0.5  # least share of target tokens the student must be able to read
    lowercase: bool | None = None  # look target words up lower-cased (default: as the teacher)
    pooling: str = "mean"  # transformer student
    projection: bool = False  # linear layer to the teacher's size when dimensions differ
    max_seq_length: int = 128
    sizes: dict[str, Any] = field(default_factory=dict)  # architecture size overrides
    cache_dir: str | None = None  # teacher-vector cache (default: the shared sentence cache)
    extra: dict[str, Any] = field(default_factory=dict)  # recorded, e.g. the recipe

    def __post_init__(self) -> None:
        if not isinstance(self.teacher, EncoderSpec):  # a Python caller's string: parsed once
            self.teacher = EncoderSpec.parse(self.teacher)
        if isinstance(self.student, str):
            self.student = student_spec(self.student)

    @property
    def xprobe_student(self) -> bool:
        """True for X-Probe's own setting: the teacher's architecture, no ``student`` named."""
        return self.student is None

    @property
    def transformer_student(self) -> bool:
        return isinstance(self.student, EncoderSpec)

    @property
    def student_shown(self) -> str | None:
        """The student as written (a spec string or an architecture), None for X-Probe's."""
        return self.student.shown if isinstance(self.student, EncoderSpec) else self.student

    def resolved_batch_size(self) -> int:
        return self.batch_size or (64 if self.xprobe_student else 32)

    def resolved_length_batches(self) -> bool:
        """Batches of similar length (less padding: a transformer student's steps get cheaper);
        X-Probe's own setting keeps its random batches."""
        if self.length_batches is not None:
            return self.length_batches
        return self.transformer_student

    def resolved_lr(self) -> float:
        if self.lr is not None:
            return self.lr
        return 2e-5 if self.transformer_student else 1e-3

    def identity(self) -> dict[str, Any]:
        """The fields a resumed run must share with the run it continues."""
        d = self._as_written()
        for k in _NOT_IDENTITY:
            d.pop(k)
        return d

    def recorded(self) -> dict[str, Any]:
        """The settings written into the output: all but where it goes and how it was started
        (so that a resumed run writes the same bytes as an uninterrupted one)."""
        return {k: v for k, v in self._as_written().items()
                if k not in ("out", "resume", "device", "threads")}  # fmt: skip

    def _as_written(self) -> dict[str, Any]:
        """Every field, the teacher and the student as their specs were written."""
        d = asdict(self)
        d.update(teacher=self.teacher.shown, student=self.student_shown)
        return d

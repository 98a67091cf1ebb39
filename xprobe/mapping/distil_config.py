"""The settings of one distillation run (:func:`xprobe.mapping.distil.distil`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["DistilConfig"]


@dataclass
class DistilConfig:
    """Everything an ``xprobe map --student ...`` run depends on; see ``xprobe map --help``.

    ``teacher`` is any encoder spec (``st:PATH``, ``hf:PATH``, a checkpoint directory...);
    ``student`` is ``hf:PATH`` (a transformer initialised from that directory) or an X-Probe
    architecture over ``vectors`` (mapped word vectors). ``nli_head`` + ``xnli_dev`` make XNLI
    dev accuracy the stopping rule; without them, held-out parallel MSE is.
    """

    teacher: str
    student: str
    out: str
    target_lang: str
    source_lang: str = "en"
    parallel_src: str | None = None
    parallel_tgt: str | None = None
    parallel_tsv: str | None = None
    vectors: str | None = None  # mapped word vectors, for an architecture student
    sizes: dict[str, Any] = field(default_factory=dict)  # architecture size overrides
    keep_vocab: int = 100000
    pooling: str = "mean"  # transformer student
    projection: bool = False  # linear layer to the teacher's size when dimensions differ
    max_seq_length: int = 128
    nli_head: str | None = None  # head on the teacher's space (train-nli --frozen)
    xnli_dev: str | None = None  # target-language XNLI dev (with nli_head)
    xnli_dev_en: str | None = None  # source-language XNLI dev: the teacher's own accuracy
    xnli_language: str | None = None
    max_xnli: int | None = None
    lam: float = 0.25
    epochs: int = 10
    patience: int = 2
    batch_size: int = 32
    lr: float | None = None  # default: 2e-5 for a transformer student, 1e-3 otherwise
    seed: int = 1
    eval_every: int = 0  # steps between evaluations (and saved states); 0 = once per epoch
    heldout: int = 1000
    max_pairs: int | None = None
    min_length: int = 1
    max_length: int = 50
    max_ratio: float = 3.0
    device: str = "auto"
    threads: int = 0
    resume: bool = False
    cache_dir: str | None = None  # sentence-vector cache of the teacher (default: OUT)
    extra: dict[str, Any] = field(default_factory=dict)

    def identity(self) -> dict[str, Any]:
        """The fields a resumed run must share with the run it continues."""
        d = asdict(self)
        for k in ("out", "resume", "device", "threads", "epochs", "patience", "extra"):
            d.pop(k)
        d.pop("cache_dir")
        return d

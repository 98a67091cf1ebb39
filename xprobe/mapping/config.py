"""The settings of one ``xprobe map`` run (:func:`xprobe.mapping.sentences.map_encoder`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["MapConfig"]


@dataclass
class MapConfig:
    """Everything a ``map`` run depends on. Paths are files; see ``xprobe map --help``."""

    teacher: str
    vectors: str
    out: str
    target_lang: str
    xnli_dev: str
    source_lang: str = "en"
    parallel_src: str | None = None
    parallel_tgt: str | None = None
    parallel_tsv: str | None = None
    teacher_vectors: str | None = None  # full English .vec, to cover the corpus vocabulary
    xnli_dev_en: str | None = None
    xnli_language: str | None = None  # filter for official XNLI files (default: target_lang)
    lam: float = 0.25
    epochs: int = 10
    patience: int = 2
    batch_size: int = 64
    lr: float = 1e-3
    seed: int = 1
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
    extra: dict[str, Any] = field(default_factory=dict)  # recorded, e.g. the recipe

    def identity(self) -> dict[str, Any]:
        """The fields a resumed run must share with the run it continues."""
        d = asdict(self)
        for k in ("out", "resume", "device", "threads", "epochs", "patience", "extra"):
            d.pop(k)
        return d

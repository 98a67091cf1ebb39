"""Data for distillation: the parallel corpus, the frozen teacher's cached vectors, XNLI dev.

The teacher's vectors of the English side are computed once per (teacher id, corpus) and cached
(:func:`xprobe.nli.vectors.cached_vectors`, in ``OUT/teacher-cache`` unless ``cache_dir`` is
given), so a resumed run, a second student or another lambda never encodes the corpus again.
Target sentences are prepared once for the student (ids into mapped vectors, or detokenised text
for a transformer).

Example::

    corpus, source = load_corpus(cfg)
    teacher = load_teacher(cfg.teacher, english_vocab(corpus), "cpu")
    data = prepare_data(cfg, corpus, source.files, teacher, student, xnli=None)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.errors import XProbeError

__all__ = [
    "DistilData",
    "english_vocab",
    "load_corpus",
    "load_teacher",
    "prepare_data",
    "read_xnli_tokens",
]

log = logging.getLogger(__name__)


@dataclass
class DistilData:
    """Student inputs and teacher targets for training and evaluation."""

    train_items: list
    held_items: list
    teacher_train: np.ndarray
    teacher_held: np.ndarray
    xnli: tuple[list, list, np.ndarray] | None = None  # student inputs, labels
    info: dict[str, Any] = field(default_factory=dict)


def load_corpus(cfg):  # -> (ParallelCorpus, ParallelSource)
    """Read, tokenise, filter, deduplicate and split the parallel corpus of ``cfg``."""
    from xprobe.mapping.parallel import ParallelFilter, ParallelSource, load_parallel

    source = ParallelSource(
        cfg.source_lang, cfg.target_lang, cfg.parallel_src, cfg.parallel_tgt, cfg.parallel_tsv
    )
    flt = ParallelFilter(cfg.min_length, cfg.max_length, cfg.max_ratio, cfg.max_pairs)
    corpus = load_parallel(source, flt, heldout=cfg.heldout, seed=cfg.seed)
    if len(corpus.train) < 2:
        raise XProbeError(f"{source.files}: fewer than 2 training pairs after filtering")
    return corpus, source


def english_vocab(corpus) -> set[str]:
    return {t for s, _ in corpus.train + corpus.heldout for t in s}


def load_teacher(spec: str, vocab: set[str], device: str, lang: str = "en"):
    """The frozen teacher a spec names (encode only: nothing ever trains it)."""
    from xprobe.nli.head import load_frozen_encoder

    teacher = load_frozen_encoder(spec, vocab, device, lang)
    for name in ("module", "model"):  # a torch-backed teacher: make frozen explicit
        module = getattr(teacher, name, None)
        if module is not None and hasattr(module, "parameters"):
            module.eval()
            for p in module.parameters():
                p.requires_grad_(False)
    return teacher


def read_xnli_tokens(path: str, language: str | None, lang: str, limit: int | None):
    """Moses tokens of an XNLI file's premises and hypotheses, and label indices."""
    from xprobe.mapping.data import _tokenized_xnli

    prem, hyp, labels = _tokenized_xnli(path, language, lang, limit)
    return [list(s) for s in prem], [list(s) for s in hyp], labels


def prepare_data(cfg, corpus, files: list[str], teacher, student, xnli) -> DistilData:
    """Teacher vectors (cached) and student inputs of the corpus; XNLI dev for the student."""
    from xprobe.nli.vectors import cached_vectors

    cache = Path(cfg.cache_dir) if cfg.cache_dir else Path(cfg.out) / "teacher-cache"
    pairs = corpus.train + corpus.heldout
    english = [list(s) for s, _ in pairs]
    vecs = cached_vectors(teacher, english, cache, desc="teacher vectors")
    items = student.prepare([list(t) for _, t in pairs])
    n = len(corpus.train)
    data = DistilData(items[:n], items[n:], vecs[:n], np.asarray(vecs[n:], dtype=np.float32))
    if xnli is not None:
        prem, hyp, labels = xnli
        data.xnli = (student.prepare(prem), student.prepare(hyp), labels)
    data.info = {
        "corpus": {
            "files": files,
            "hash": corpus.hash,
            "train": n,
            "heldout": len(corpus.heldout),
            "stats": vars(corpus.stats),
        },
        "xnli_dev": {"file": cfg.xnli_dev, "pairs": len(xnli[2])} if xnli else None,
    }
    log.info("distillation data: %s", data.info)
    return data

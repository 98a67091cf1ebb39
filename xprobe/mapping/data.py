"""The one data reader of ``xprobe map``: parallel text, the teacher's cached vectors, XNLI dev.

* The parallel corpus is read, Moses-tokenised, filtered, deduplicated and split once
  (:func:`load_corpus`, :mod:`xprobe.mapping.parallel`).
* The frozen teacher (:func:`load_teacher`: any encoder spec; a ``train-nli`` directory can be
  given its full English ``.vec`` so it knows the corpus words) encodes the English side once,
  through the sentence-vector cache (:func:`xprobe.nli.vectors.cached_vectors`, the shared cache
  of ``train-nli --frozen`` and ``xprobe xnli``): a resumed run, a second run, a second student
  or another lambda never encodes the corpus again. Training touches only the student.
* The student's inputs are prepared once (ids into mapped vectors, or detokenised text).
* Teacher and student must be able to meet: :func:`check_coverage` stops a run whose student
  cannot read most of the target text (mapped vectors of another language, a tokenizer that maps
  most target words to unknown) with one line, before any training.

Example::

    corpus, files = load_corpus(cfg)
    teacher = load_teacher(cfg, english_vocab(corpus), "cpu")
    data = prepare_data(cfg, corpus, files, teacher, student, xnli=None)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from xprobe.encoders.vectors import WordVectors, file_fingerprint, load_vectors, table_fingerprint
from xprobe.errors import XProbeError
from xprobe.nli.data import padded_batch

if TYPE_CHECKING:
    from xprobe.mapping.config import MapConfig

__all__ = [
    "MapData",
    "check_coverage",
    "encode_ids",
    "english_vocab",
    "load_corpus",
    "load_teacher",
    "prepare_data",
    "student_vectors",
    "to_ids",
]

log = logging.getLogger(__name__)

Ids = list[np.ndarray]


@dataclass
class MapData:
    """Student inputs and teacher targets for training and held-out evaluation."""

    train_items: list
    held_items: list
    teacher_train: np.ndarray
    teacher_held: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)


def to_ids(sentences: Sequence[Sequence[str]], vectors: WordVectors) -> Ids:
    """Row indices of the tokens that have a vector (OOV skipped, as NeuralEncoder does)."""
    index, lower = vectors.index, vectors.lowercase
    out = []
    for tokens in sentences:
        keys = (t.lower() for t in tokens) if lower else tokens
        out.append(np.array([i for k in keys if (i := index.get(k)) is not None], np.int64))
    return out


def encode_ids(module, table, seqs: Ids, batch_size: int = 256) -> np.ndarray:
    """``module``'s vectors of id sequences (eval mode, no gradients), in input order."""
    import torch

    was_training = module.training
    module.eval()
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
    result = None
    try:
        with torch.no_grad():
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                y = module(*padded_batch(table, [seqs[i] for i in rows])).float().cpu().numpy()
                if result is None:
                    result = np.zeros((len(seqs), y.shape[1]), dtype=np.float32)
                result[rows] = y
    finally:
        module.train(was_training)
    return result if result is not None else np.zeros((0, 0), dtype=np.float32)


def load_corpus(cfg: MapConfig):  # -> (ParallelCorpus, list[str])
    """Read, tokenise, filter, deduplicate and split the parallel corpus of ``cfg``."""
    from xprobe.mapping.parallel import ParallelFilter, ParallelSource, load_parallel

    source = ParallelSource(
        cfg.source_lang, cfg.target_lang, cfg.parallel_src, cfg.parallel_tgt, cfg.parallel_tsv
    )
    flt = ParallelFilter(cfg.min_length, cfg.max_length, cfg.max_ratio, cfg.max_pairs)
    corpus = load_parallel(source, flt, heldout=cfg.heldout, seed=cfg.seed)
    if len(corpus.train) < 2:
        raise XProbeError(f"{source.files}: fewer than 2 training pairs after filtering")
    return corpus, source.files


def english_vocab(corpus) -> set[str]:
    return {t for s, _ in corpus.train + corpus.heldout for t in s}


def load_teacher(cfg: MapConfig, vocab: set[str], device: str, xnli_en=None):
    """The frozen teacher ``cfg.teacher`` names (encode only: nothing ever trains it).

    With ``cfg.teacher_vectors`` a ``train-nli`` teacher also gets the vectors of ``vocab`` (and
    of the English XNLI tokens) from its own full ``.vec`` file.
    """
    from xprobe.nli.head import load_frozen_encoder

    teacher = load_frozen_encoder(cfg.teacher, vocab, device, cfg.source_lang)
    for name in ("module", "model"):  # a torch-backed teacher: make frozen explicit
        module = getattr(teacher, name, None)
        if module is not None and hasattr(module, "parameters"):
            module.eval()
            for p in module.parameters():
                p.requires_grad_(False)
    if cfg.teacher_vectors:
        if not hasattr(teacher, "vectors") or not hasattr(teacher, "module"):
            raise XProbeError(
                f"--teacher-vectors {cfg.teacher_vectors}: teacher {cfg.teacher.shown} is not a "
                "train-nli directory over word vectors"
            )
        words = vocab | {t for x in (xnli_en or ((), ()))[:2] for s in x for t in s}
        _extend_teacher(teacher, cfg.teacher_vectors, words)
    return teacher


def _extend_teacher(teacher, full_vectors: str, vocab: set[str]) -> None:
    """Give the teacher the vectors of ``vocab`` from its own full ``.vec`` file.

    The file must hold the teacher's own words with the same values (checked), i.e. be the file
    ``train-nli`` read; the teacher's id stays that of its checkpoint (the cache key adds the
    file's fingerprint).
    """
    have = teacher.vectors
    full = load_vectors(full_vectors, vocab=vocab | set(have.words), lowercase=have.lowercase)
    missing = [w for w in have.words if w not in full.index]
    same = not missing and np.allclose(
        full.matrix[[full.index[w] for w in have.words]], have.matrix, atol=1e-5
    )
    if not same:
        raise XProbeError(
            f"{full_vectors}: not the vectors the teacher was trained with "
            f"({len(missing)} of its {len(have)} words missing or values differ)"
        )
    words = list(have.words) + [w for w in full.words if w not in have.index]
    rows = [full.matrix[full.index[w]] for w in words[len(have.words) :]]
    matrix = np.concatenate([have.matrix, np.stack(rows)]) if rows else have.matrix
    teacher.vectors = WordVectors(words, matrix, have.lowercase, have.source, have.fingerprint)


def student_vectors(cfg: MapConfig, needed: set[str], lowercase: bool) -> WordVectors:
    """Mapped vectors of ``needed`` plus the ``keep_vocab`` most frequent mapped words."""
    if not cfg.vectors:
        raise XProbeError("an architecture student needs --vectors (mapped target word vectors)")
    wanted = load_vectors(cfg.vectors, vocab=needed, lowercase=lowercase)
    if not cfg.keep_vocab:
        return wanted
    top = load_vectors(cfg.vectors, lowercase=lowercase, max_words=cfg.keep_vocab)
    extra = [w for w in wanted.words if w not in top.index]
    matrix = np.concatenate([top.matrix, wanted.matrix[[wanted.index[w] for w in extra]]])
    words = top.words + extra
    fp = table_fingerprint(file_fingerprint(cfg.vectors), lowercase, words)
    return WordVectors(words, matrix, lowercase, cfg.vectors, fp)


def teacher_cache_id(cfg: MapConfig, teacher) -> str:
    """The cache key of the teacher's vectors: its id, plus the fingerprint of the full English
    ``.vec`` it was given (an extended teacher encodes more words than its checkpoint)."""
    ext = file_fingerprint(cfg.teacher_vectors)[:8] if cfg.teacher_vectors else "own"
    return f"{teacher.id}-{ext}"


def check_coverage(cfg: MapConfig, student, target: list[list[str]]) -> float:
    """The share of target tokens the student can read; one clear error line below
    ``cfg.min_coverage`` (checked on the first 2,000 target sentences, before training)."""
    sample = target[:2000]
    share, what = student.coverage(sample)
    if share < cfg.min_coverage:
        raise XProbeError(
            f"student {cfg.student_shown or 'of ' + str(cfg.vectors)} cannot read the "
            f"{cfg.target_lang} side of {cfg.parallel_tsv or cfg.parallel_tgt}: {what} "
            f"{share:.0%} of its tokens (need >= {cfg.min_coverage:.0%}); is it the "
            f"{cfg.target_lang} student? (--min-coverage lowers the bar)"
        )
    return share


def prepare_data(cfg: MapConfig, corpus, files: list[str], teacher, student) -> MapData:
    """Teacher vectors (cached) and student inputs of the corpus."""
    from xprobe.nli.vectors import cached_vectors, vector_cache_dir

    pairs = corpus.train + corpus.heldout
    target = [list(t) for _, t in pairs]
    coverage = check_coverage(cfg, student, target)
    cache = vector_cache_dir(cfg.cache_dir)
    english = [list(s) for s, _ in pairs]
    vecs = cached_vectors(
        teacher, english, cache, desc="teacher vectors", chunk=4096,
        encoder_id=teacher_cache_id(cfg, teacher),
    )  # fmt: skip
    items = student.prepare(target)
    n = len(corpus.train)
    data = MapData(items[:n], items[n:], vecs[:n], np.asarray(vecs[n:], dtype=np.float32))
    data.info = {
        "corpus": {
            "files": files,
            "hash": corpus.hash,
            "train": n,
            "heldout": len(corpus.heldout),
            "stats": vars(corpus.stats),
        },
        "target_token_coverage": round(coverage, 4),
    }
    log.info("mapping data: %s", data.info)
    return data

"""Data preparation for sentence mapping: corpus, XNLI, vocabularies and cached teacher vectors.

Sentences are turned into integer rows of the student's vector table once; the teacher's vectors
of the English side are computed once per (teacher, corpus) and cached on disk as a ``.npy``
memory map (written to a temp file and renamed, so a crash never leaves a half cache).

Example::

    teacher = teacher_for("models/en-bilstm-max", "cpu")
    data = load_map_data(cfg, teacher)     # cfg: xprobe.mapping.sentences.MapConfig
    data.teacher_train.shape               # (n_train, teacher.dim)
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from xprobe.encoders.vectors import WordVectors, file_fingerprint, load_vectors, table_fingerprint
from xprobe.errors import XProbeError
from xprobe.nli.data import padded_batch

if TYPE_CHECKING:
    from xprobe.encoders.neural import NeuralEncoder
    from xprobe.mapping.config import MapConfig

__all__ = ["MapData", "encode_ids", "load_map_data", "teacher_for", "to_ids"]

log = logging.getLogger(__name__)

Ids = list[np.ndarray]


@dataclass
class MapData:
    """Everything a mapping run trains and evaluates on (student ids index ``vectors``)."""

    vectors: WordVectors
    train_tgt: Ids
    held_tgt: Ids
    teacher_train: np.ndarray
    teacher_held: np.ndarray
    xnli_premises: Ids
    xnli_hypotheses: Ids
    xnli_labels: np.ndarray
    xnli_en: tuple[Ids, Ids, np.ndarray] | None = None  # ids into xnli_en_vectors
    xnli_en_vectors: np.ndarray | None = None
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


def teacher_for(path: str, device: str) -> NeuralEncoder:
    """Load the frozen teacher encoder (eval mode, no gradients)."""
    from xprobe.encoders.checkpoint import load_encoder

    teacher = load_encoder(path, device=device)
    teacher.module.eval()
    for p in teacher.module.parameters():
        p.requires_grad_(False)
    return teacher


def _extend_teacher(teacher: NeuralEncoder, full_vectors: str, vocab: set[str]) -> None:
    """Give the teacher the vectors of ``vocab`` from its own full ``.vec`` file.

    The file must hold the teacher's own words with the same values (checked), i.e. be the file
    ``train-nli`` read; the teacher's id (and so the cache key) stays that of its checkpoint.
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


def _student_vectors(cfg: MapConfig, needed: set[str], lowercase: bool) -> WordVectors:
    """Mapped vectors of ``needed`` plus the ``keep_vocab`` most frequent mapped words."""
    wanted = load_vectors(cfg.vectors, vocab=needed, lowercase=lowercase)
    if not cfg.keep_vocab:
        return wanted
    top = load_vectors(cfg.vectors, lowercase=lowercase, max_words=cfg.keep_vocab)
    extra = [w for w in wanted.words if w not in top.index]
    matrix = np.concatenate([top.matrix, wanted.matrix[[wanted.index[w] for w in extra]]])
    words = top.words + extra
    fp = table_fingerprint(file_fingerprint(cfg.vectors), lowercase, words)
    return WordVectors(words, matrix, lowercase, cfg.vectors, fp)


def _cached_teacher(teacher: NeuralEncoder, sentences, key: str, cache_dir: Path) -> np.ndarray:
    """Teacher vectors of ``sentences``, from ``cache_dir/key.npy`` or computed and cached."""
    from numpy.lib.format import open_memmap
    from tqdm import tqdm

    path = cache_dir / f"{key}.npy"
    if path.is_file():
        cached = np.load(path, mmap_mode="r")
        if cached.shape == (len(sentences), teacher.dim):
            log.info("teacher vectors from cache %s", path)
            return cached
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = cache_dir / f".{key}.tmp.npy"
    try:
        arr = open_memmap(tmp, mode="w+", dtype=np.float32, shape=(len(sentences), teacher.dim))
        chunk = 4096
        for start in tqdm(range(0, len(sentences), chunk), desc="teacher vectors", disable=None):
            arr[start : start + chunk] = teacher.encode(sentences[start : start + chunk])
        arr.flush()
        del arr
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return np.load(path, mmap_mode="r")


def _tokenized_xnli(path: str, language: str | None, lang: str, limit: int | None):
    from xprobe.mapping.parallel import moses_code, tokenize
    from xprobe.mapping.xnli import read_xnli
    from xprobe.nli.data import NLI_LABELS

    code = moses_code(lang)
    examples = read_xnli(path, language=language, limit=limit).examples
    prem = [tokenize(e.premise, code) for e in examples]
    hyp = [tokenize(e.hypothesis, code) for e in examples]
    labels = np.array([NLI_LABELS.index(e.label) for e in examples], dtype=np.int64)
    return prem, hyp, labels


def _coverage(ids: Ids, sentences) -> float:
    total = sum(len(s) for s in sentences)
    return sum(len(i) for i in ids) / max(1, total)


def load_map_data(cfg: MapConfig, teacher: NeuralEncoder) -> MapData:
    """Read and tokenise the corpus and XNLI, build the vocabularies, get the teacher vectors."""
    from xprobe.mapping.parallel import ParallelFilter, ParallelSource, load_parallel

    source = ParallelSource(
        cfg.source_lang, cfg.target_lang, cfg.parallel_src, cfg.parallel_tgt, cfg.parallel_tsv
    )
    flt = ParallelFilter(cfg.min_length, cfg.max_length, cfg.max_ratio, cfg.max_pairs)
    corpus = load_parallel(source, flt, heldout=cfg.heldout, seed=cfg.seed)
    lang = cfg.xnli_language or cfg.target_lang
    prem, hyp, labels = _tokenized_xnli(cfg.xnli_dev, lang, cfg.target_lang, cfg.max_xnli)
    en = None
    if cfg.xnli_dev_en:
        en = _tokenized_xnli(cfg.xnli_dev_en, cfg.source_lang, cfg.source_lang, cfg.max_xnli)
    pairs = corpus.train + corpus.heldout
    if cfg.teacher_vectors:
        vocab = {t for s, _ in pairs for t in s} | {
            t for x in (en or ((), ()))[:2] for s in x for t in s
        }
        _extend_teacher(teacher, cfg.teacher_vectors, vocab)
    needed = {t for _, s in pairs for t in s} | {t for s in prem + hyp for t in s}
    vectors = _student_vectors(cfg, needed, teacher.vectors.lowercase)
    tgt_ids = to_ids([t for _, t in pairs], vectors)
    ext = file_fingerprint(cfg.teacher_vectors)[:8] if cfg.teacher_vectors else "own"
    key = f"{teacher.id}-{ext}-{corpus.hash}"
    teacher_all = _cached_teacher(
        teacher, [s for s, _ in pairs], key, Path(cfg.out) / "teacher-cache"
    )
    n = len(corpus.train)
    data = MapData(
        vectors,
        tgt_ids[:n],
        tgt_ids[n:],
        teacher_all[:n],
        teacher_all[n:],
        to_ids(prem, vectors),
        to_ids(hyp, vectors),
        labels,
    )
    if en is not None:
        data.xnli_en = (to_ids(en[0], teacher.vectors), to_ids(en[1], teacher.vectors), en[2])
        data.xnli_en_vectors = teacher.vectors.matrix
    en_ids = to_ids([s for s, _ in pairs[:2000]], teacher.vectors)
    data.info = {
        "corpus": {
            "files": source.files,
            "hash": corpus.hash,
            "train": n,
            "heldout": len(corpus.heldout),
            "stats": vars(corpus.stats),
        },
        "xnli_dev": {"file": cfg.xnli_dev, "pairs": len(labels)},
        "student_vocab": len(vectors),
        "target_token_coverage": round(_coverage(tgt_ids, [t for _, t in pairs]), 4),
        "xnli_token_coverage": round(_coverage(data.xnli_premises, prem), 4),
        "english_token_coverage_first_2000": round(
            _coverage(en_ids, [s for s, _ in pairs[:2000]]), 4
        ),
    }
    log.info("mapping data: %s", data.info)
    return data

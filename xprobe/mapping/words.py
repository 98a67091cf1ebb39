"""Supervised orthogonal mapping of target-language word vectors into the English space.

VecMap's supervised recipe (Artetxe et al. 2016/2018), as X-Probe section 5.2 uses it with the
MUSE seed dictionaries (Conneau et al. 2017): both sides are length-normalised, mean-centred and
length-normalised again; an orthogonal ``W`` minimising ``||X_tgt W - X_en||`` over the dictionary
pairs is the orthogonal Procrustes solution ``W = U V^T`` of ``X_tgt^T X_en = U S V^T``. Only the
*target* side moves: the English vectors stay as they are, so the frozen English encoder keeps
seeing exactly its own inputs.

The mapped target vectors are written back in the *raw* English space: the inverse of the English
normalisation is applied approximately (scale by the mean norm of the centred English unit
vectors, add back the English mean direction, scale by the median English norm), so that a mapped
German word has the typical norm and position of an English word. Cosine nearest neighbours are
unchanged by this (it is the same affine map for every target word, and the English side's
evaluation happens in the normalised space).

Evaluation is word-translation precision@1 on held-out dictionary words, English -> target, with
plain nearest neighbour and with CSLS (Conneau et al. 2017; k = 10): a source word counts as
correct when its top candidate is any of its dictionary translations.

Example::

    result = map_vectors(load_vectors("en.vec"), load_vectors("de.vec"),
                         read_dictionary("en-de.txt"), train_size=5000, test_size=1500)
    result.report["p_at_1_csls"], result.mapped  # WordVectors in the English space
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from xprobe.encoders.vectors import WordVectors
from xprobe.errors import InputError, XProbeError
from xprobe.files import atomic_write, open_text

__all__ = [
    "MappingResult",
    "csls_scores",
    "map_vectors",
    "nearest",
    "normalize",
    "precision_at_1",
    "procrustes",
    "read_dictionary",
    "split_dictionary",
    "write_vectors",
]

log = logging.getLogger(__name__)

DictPair = tuple[str, str]


def read_dictionary(path: str | os.PathLike[str]) -> list[DictPair]:
    """MUSE format: ``src tgt`` per line (space or tab separated); blank lines skipped.

    Example: ``read_dictionary("en-de.txt")[:2] == [("the", "die"), ("the", "der")]``.
    """
    pairs: list[DictPair] = []
    try:
        f = open_text(path)
    except FileNotFoundError:
        raise XProbeError(f"{path}: dictionary not found") from None
    with f:
        for lineno, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 2:
                raise InputError(str(path), lineno, "expected 'source target' (two words)")
            pairs.append((parts[0], parts[1]))
    if not pairs:
        raise InputError(str(path), None, "dictionary is empty")
    return pairs


def normalize(matrix: np.ndarray, steps: Sequence[str] = ("unit", "center", "unit")) -> np.ndarray:
    """VecMap normalisation: ``unit`` (rows to length 1) and ``center`` (subtract the mean row)."""
    x = np.asarray(matrix, dtype=np.float64).copy()
    for step in steps:
        if step == "unit":
            norms = np.linalg.norm(x, axis=1, keepdims=True)
            x /= np.where(norms > 0, norms, 1.0)
        elif step == "center":
            x -= x.mean(axis=0, keepdims=True)
        else:
            raise ValueError(f"unknown normalisation step {step!r} (valid: unit, center)")
    return x


def procrustes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The orthogonal ``W`` (d, d) minimising ``||x W - y||_F`` for paired rows of ``x``, ``y``.

    Solution: ``U V^T`` from the SVD ``x^T y = U S V^T`` (Schönemann 1966).
    """
    if x.shape != y.shape:
        raise ValueError(f"procrustes needs paired rows of equal shape, got {x.shape} {y.shape}")
    u, _, vt = np.linalg.svd(x.T @ y)
    return u @ vt


def split_dictionary(
    pairs: Iterable[DictPair],
    src_words: Sequence[str],
    tgt_words: Iterable[str],
    train_size: int = 5000,
    test_size: int = 1500,
) -> tuple[list[DictPair], dict[str, set[str]]]:
    """Train pairs for the ``train_size`` most frequent source words, test for the next ones.

    Only pairs whose two words are both in the vocabularies count; source words are ranked by
    their position in ``src_words`` (frequency order of a .vec file). Returns the training pairs
    and, for testing, each test source word with its set of valid translations.
    """
    rank = {w: i for i, w in enumerate(src_words)}
    tgt_vocab = set(tgt_words)
    by_src: dict[str, list[str]] = {}
    for s, t in pairs:
        if s in rank and t in tgt_vocab and t not in by_src.setdefault(s, []):
            by_src[s].append(t)
    ordered = sorted((s for s in by_src if by_src[s]), key=rank.__getitem__)
    train = [(s, t) for s in ordered[:train_size] for t in by_src[s]]
    test = {s: set(by_src[s]) for s in ordered[train_size : train_size + test_size]}
    return train, test


def nearest(queries: np.ndarray, targets: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """Index of the most cosine-similar target row for each query row (inputs unit-length)."""
    out = np.empty(len(queries), dtype=np.int64)
    for i in range(0, len(queries), chunk):
        out[i : i + chunk] = np.argmax(queries[i : i + chunk] @ targets.T, axis=1)
    return out


def _mean_topk(a: np.ndarray, b: np.ndarray, k: int, chunk: int = 2048) -> np.ndarray:
    """For each row of ``a``: the mean cosine of its ``k`` nearest rows of ``b``."""
    k = min(k, len(b))
    out = np.empty(len(a))
    for i in range(0, len(a), chunk):
        sims = a[i : i + chunk] @ b.T
        top = np.partition(sims, -k, axis=1)[:, -k:]
        out[i : i + chunk] = top.mean(axis=1)
    return out


def csls_scores(queries: np.ndarray, targets: np.ndarray, sources: np.ndarray, k: int = 10):
    """CSLS(q, t) = 2 cos(q, t) - r_T(q) - r_S(t) for all pairs; rows unit-length.

    ``r_T(q)`` is the mean cosine of ``q`` to its ``k`` nearest targets and ``r_S(t)`` that of
    ``t`` to its ``k`` nearest ``sources`` (the whole source vocabulary, as in MUSE).
    Returns a (len(queries), len(targets)) matrix.
    """
    r_t = _mean_topk(queries, targets, k)
    r_s = _mean_topk(targets, sources, k)
    return 2 * (queries @ targets.T) - r_t[:, None] - r_s[None, :]


def precision_at_1(
    src: np.ndarray,
    tgt: np.ndarray,
    src_words: Sequence[str],
    tgt_words: Sequence[str],
    gold: dict[str, set[str]],
    k: int = 10,
) -> dict[str, float | None]:
    """P@1 of ``gold`` (source word -> valid translations) with NN and CSLS; rows unit-length.

    Both are None when ``gold`` is empty (nothing held out).
    """
    if not gold:
        return {"p_at_1_nn": None, "p_at_1_csls": None}
    src, tgt = src.astype(np.float32), tgt.astype(np.float32)  # float32 search: 2x faster
    s_index = {w: i for i, w in enumerate(src_words)}
    queries = src[[s_index[w] for w in gold]]
    nn = nearest(queries, tgt)
    r_s = _mean_topk(tgt, src, k)
    csls = np.empty(len(queries), dtype=np.int64)
    for i in range(0, len(queries), 1024):
        q = queries[i : i + 1024]
        csls[i : i + 1024] = np.argmax(2 * (q @ tgt.T) - r_s[None, :], axis=1)  # r_T(q) constant
    words = list(gold)
    hits_nn = sum(tgt_words[j] in gold[w] for w, j in zip(words, nn, strict=True))
    hits_csls = sum(tgt_words[j] in gold[w] for w, j in zip(words, csls, strict=True))
    return {"p_at_1_nn": hits_nn / len(words), "p_at_1_csls": hits_csls / len(words)}


@dataclass
class MappingResult:
    """The rotation, the mapped target vectors (raw English space) and the evaluation report."""

    w: np.ndarray
    mapped: WordVectors
    report: dict[str, object] = field(default_factory=dict)


def _to_raw_english(mapped_unit: np.ndarray, src_raw: np.ndarray) -> np.ndarray:
    """Approximately undo the English unit-center-unit normalisation for mapped target rows."""
    norms = np.linalg.norm(src_raw, axis=1, keepdims=True)
    unit = src_raw / np.where(norms > 0, norms, 1.0)
    mean = unit.mean(axis=0, keepdims=True)
    centred_norm = float(np.linalg.norm(unit - mean, axis=1).mean())
    return (mapped_unit * centred_norm + mean) * float(np.median(norms))


def map_vectors(
    src: WordVectors,
    tgt: WordVectors,
    pairs: Sequence[DictPair],
    train_size: int = 5000,
    test_size: int = 1500,
    test_pairs: Sequence[DictPair] | None = None,
    k: int = 10,
    raw_output: bool = True,
) -> MappingResult:
    """Learn the orthogonal map target -> English from ``pairs`` and evaluate P@1 (NN, CSLS).

    With ``test_pairs`` the whole of ``pairs`` (restricted to the vocabularies) trains and
    ``test_pairs`` tests; otherwise ``pairs`` is split by source frequency
    (:func:`split_dictionary`). ``raw_output=False`` keeps the mapped vectors normalised.
    """
    if src.dim != tgt.dim:
        raise XProbeError(f"dimensions differ: source {src.dim}, target {tgt.dim}")
    if test_pairs is None:
        train, gold = split_dictionary(pairs, src.words, tgt.words, train_size, test_size)
    else:
        train, _ = split_dictionary(pairs, src.words, tgt.words, len(src.words), 0)
        _, gold = split_dictionary(test_pairs, src.words, tgt.words, 0, len(src.words))
    if not train:
        raise XProbeError("no dictionary pair has both words in the vocabularies")
    xs, xt = normalize(src.matrix), normalize(tgt.matrix)
    si, ti = src.index, tgt.index
    w = procrustes(xt[[ti[t] for _, t in train]], xs[[si[s] for s, _ in train]])
    mapped_unit = xt @ w
    scores = precision_at_1(xs, mapped_unit, src.words, tgt.words, gold, k)
    out = _to_raw_english(mapped_unit, src.matrix) if raw_output else mapped_unit
    mapped = WordVectors(
        list(tgt.words), out.astype(np.float32), tgt.lowercase, source=f"{tgt.source} (mapped)"
    )
    report: dict[str, object] = {
        "source_vocab": len(src),
        "target_vocab": len(tgt),
        "dim": src.dim,
        "train_pairs": len(train),
        "train_words": len({s for s, _ in train}),
        "test_words": len(gold),
        "csls_k": k,
        **scores,
        "orthogonality_error": float(np.abs(w.T @ w - np.eye(len(w))).max()),
        "raw_output": raw_output,
    }
    log.info("mapped %d target words with %d pairs; P@1 on %d words: %s", len(tgt), len(train),
             len(gold), scores)  # fmt: skip
    return MappingResult(w, mapped, report)


def write_vectors(path: str | os.PathLike[str], vectors: WordVectors, digits: int = 6) -> None:
    """Write a ``.vec`` text file (header ``n dim``), atomically; same input, same bytes."""
    with atomic_write(path) as f:
        f.write(f"{len(vectors)} {vectors.dim}\n")
        fmt = f"%.{digits}g"
        for word, row in zip(vectors.words, vectors.matrix, strict=True):
            f.write(word + " " + " ".join(fmt % x for x in row.tolist()) + "\n")

"""XNLI test accuracy of any encoder with an NLI head, with a bootstrap 95% interval.

The head (:func:`xprobe.nli.head.load_head`: from ``train-nli --frozen`` or a ``train-nli``
model) was trained on English vectors of some encoder; applied to another encoder's vectors of
another language it measures how well that encoder lands in the head's space, which is what a
student mapped from an English teacher should do (X-Probe Table 3: XNLI accuracy per language).
Sentences are Moses-tokenised in the file's language (the encoder detokenises if it wants raw
text) and encoded through the sentence-vector cache.

The interval is a percentile bootstrap over test pairs: ``n_boot`` resamples (with replacement,
same size) of the per-pair correctness, seeded; its 2.5th and 97.5th percentiles.

Results are one JSON object per (language, encoder, head, data) in a JSON list file, replaced on a
rerun; ``xprobe report --xnli FILE`` reads that list (``language``, ``encoder``, ``accuracy``).

Example::

    rec = evaluate_xnli(XNLIEval(encoder="models/de-student", head="heads/minilm",
                                 data="xnli/test-de.tsv", lang="de"))
    rec["accuracy"], rec["ci95"]
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from xprobe import __version__
from xprobe.errors import XProbeError
from xprobe.files import atomic_write, np_rng, sha256_file

__all__ = ["XNLIEval", "bootstrap_interval", "evaluate_xnli", "write_xnli_record"]

log = logging.getLogger(__name__)


@dataclass
class XNLIEval:
    """One evaluation: an encoder spec, a head directory, an XNLI file and its language."""

    encoder: str
    head: str
    data: str
    lang: str
    name: str | None = None  # display name (default: from the spec)
    language: str | None = None  # filter for official multi-language files (default: lang)
    limit: int | None = None
    n_boot: int = 1000
    seed: int = 0
    device: str = "auto"
    cache_dir: str | None = None


def bootstrap_interval(
    correct: np.ndarray, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``correct`` (0/1 per test item)."""
    c = np.asarray(correct, dtype=np.float64)
    if len(c) == 0 or n_boot < 1:
        raise XProbeError("a bootstrap interval needs at least one item and one resample")
    rng = np_rng(seed, "xnli-bootstrap", len(c))
    means = np.empty(n_boot)
    for s in range(0, n_boot, 100):  # 100 resamples at a time bounds memory for large sets
        k = min(100, n_boot - s)
        means[s : s + k] = c[rng.integers(0, len(c), size=(k, len(c)))].mean(axis=1)
    tail = (1.0 - level) / 2 * 100
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return float(lo), float(hi)


def _tokenized(cfg: XNLIEval):
    from xprobe.mapping.parallel import moses_code, tokenize
    from xprobe.mapping.xnli import read_xnli
    from xprobe.nli.data import NLI_LABELS

    code = moses_code(cfg.lang)
    examples = read_xnli(cfg.data, language=cfg.language or cfg.lang, limit=cfg.limit).examples
    prem = [list(tokenize(e.premise, code)) for e in examples]
    hyp = [list(tokenize(e.hypothesis, code)) for e in examples]
    labels = np.array([NLI_LABELS.index(e.label) for e in examples], dtype=np.int64)
    return prem, hyp, labels


def evaluate_xnli(cfg: XNLIEval) -> dict[str, Any]:
    """Accuracy, bootstrap interval and provenance of ``cfg.encoder`` + ``cfg.head`` on the file."""
    from xprobe.encoders.neural import resolve_device
    from xprobe.encoders.spec import default_name
    from xprobe.nli.head import load_frozen_encoder, load_head, predict
    from xprobe.nli.vectors import cached_vectors, vector_cache_dir

    device = resolve_device(cfg.device)
    clf, meta = load_head(cfg.head, device=device)
    prem, hyp, labels = _tokenized(cfg)
    vocab = {t for s in prem + hyp for t in s}
    encoder = load_frozen_encoder(cfg.encoder, vocab, device, cfg.lang)
    if int(encoder.dim) != int(meta["dim"]):
        raise XProbeError(
            f"{cfg.head}: the NLI head reads {meta['dim']}-d vectors, encoder {cfg.encoder} gives "
            f"{encoder.dim}-d; use a head trained on this encoder's space (or its teacher's)"
        )
    cache = vector_cache_dir(cfg.cache_dir)
    u = np.array(cached_vectors(encoder, prem, cache, desc="xnli premises"), np.float32)
    v = np.array(cached_vectors(encoder, hyp, cache, desc="xnli hypotheses"), np.float32)
    correct = predict(clf, u, v) == labels
    lo, hi = bootstrap_interval(correct, cfg.n_boot, cfg.seed)
    majority = float(np.bincount(labels, minlength=3).max() / len(labels))
    return {
        "encoder": cfg.name or default_name(cfg.encoder),
        "encoder_spec": cfg.encoder,
        "encoder_id": encoder.id,
        "head": str(cfg.head),
        "head_encoder": meta.get("encoder", ""),
        "head_encoder_id": meta.get("encoder_id", ""),
        "language": cfg.lang,
        "data": str(cfg.data),
        "data_hash": sha256_file(cfg.data) if Path(cfg.data).is_file() else "",
        "n": len(labels),
        "accuracy": float(correct.mean()),
        "ci95": [lo, hi],
        "bootstrap": {"resamples": cfg.n_boot, "seed": cfg.seed, "method": "percentile"},
        "majority_acc": majority,
        "version": __version__,
    }


def write_xnli_record(path: str | os.PathLike[str], rec: dict[str, Any]) -> None:
    """Add ``rec`` to the JSON list in ``path`` (atomically), replacing the same measurement."""
    p = Path(path)
    items: list[dict[str, Any]] = []
    if p.is_file():
        try:
            items = json.loads(p.read_text("utf-8"))
            if not isinstance(items, list):
                raise ValueError("not a JSON list")
        except (ValueError, UnicodeDecodeError) as e:
            raise XProbeError(
                f"{p}: not an xnli results list ({e}); choose another --out"
            ) from None
    key = ("language", "encoder", "encoder_id", "head", "data_hash")
    items = [r for r in items if tuple(r.get(k) for k in key) != tuple(rec[k] for k in key)]
    items.append(rec)
    items.sort(key=lambda r: (str(r.get("language")), str(r.get("encoder"))))
    with atomic_write(p) as f:
        json.dump(items, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")

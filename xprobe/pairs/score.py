"""Score the pairs of a pairs folder: which side does each scorer prefer?

A scorer gives each side a log-probability; the grammatical side is preferred when its score is
higher. Four normalisations of the same scores, side by side (lm-evaluation-harness #3155: they
rank models differently): ``sum`` (the summed log-probability, what minimal-pair benchmarks
report), ``per_token`` (over the model's tokens), ``per_char`` and ``per_byte`` (over the
sentence's characters and UTF-8 bytes: comparable across tokenizers). Scorers: a language model
(:mod:`~xprobe.pairs.lm`), the bigram control trained on the training side
(:mod:`~xprobe.pairs.ngram`), and the length baseline (the shorter side in characters).

Every scorer scores every pair. The bigram control is cross-fitted: the pairs are dealt to folds by
their gold sentence (:attr:`~xprobe.pairs.model.Pair.fold`), and each fold is scored by a model
trained on the grammatical sides of the other folds, less any sentence that is a side of a pair of
the fold scored. A record per (scorer, phenomenon, normalisation) holds, per pair in file order,
``correct`` (1, 0, or 0.5 for a tie: the expected score of breaking it at random) and the
``margin`` (good minus bad, normalised; 0 for sides whose sums differ by less than ``TIE``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from xprobe import __version__
from xprobe.errors import XProbeError
from xprobe.pairs.lm import Score
from xprobe.pairs.model import CONTROL_FOLDS, Pair, pairs_path, read_pairs
from xprobe.pairs.ngram import BigramModel

__all__ = ["NORMALISATIONS", "score_folder"]

log = logging.getLogger(__name__)

NORMALISATIONS = ("sum", "per_token", "per_char", "per_byte")
# two sides whose summed log-probabilities differ by less than this are a tie: float32 noise
# (the same token ids scored in batches of other widths differ in the sixth digit)
TIE = 1e-4


class Scorer(Protocol):
    def score(self, sentences: Sequence[str]) -> list[Score]: ...


def normalised(score: Score, text: str, how: str) -> float:
    if how == "sum":
        return score.logprob
    if how == "per_token":
        return score.logprob / max(score.tokens, 1)
    if how == "per_char":
        return score.logprob / max(len(text), 1)
    return score.logprob / max(len(text.encode("utf-8")), 1)


class _Length:
    """The length baseline: minus the length in characters (the shorter side preferred)."""

    def score(self, sentences: Sequence[str]) -> list[Score]:
        return [Score(-float(len(s)), 1) for s in sentences]


def score_folder(
    folder: str | Path, model: Any | None, controls: bool = True
) -> list[dict[str, Any]]:
    """Records for every phenomenon of the pairs folder ``folder``: the language model
    ``model`` (a :class:`~xprobe.pairs.lm.LanguageModel`, or None) and, with ``controls``, the
    bigram and length controls."""
    folder = Path(folder)
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        raise XProbeError(f"{folder}: no manifest.json (not a pairs folder: `xprobe pairs`)")
    m = json.loads(manifest_path.read_text(encoding="utf-8"))
    records = []
    for name, entry in m["phenomena"].items():
        base = {"kind": "pairs", "language": m["language"], "phenomenon": name,
                "xprobe_version": __version__}  # fmt: skip
        if entry.get("applicable", True) is False:
            records.append({**base, "scorer": "n/a", "not_applicable": entry["reason"],
                            "na_kind": entry["kind"]})  # fmt: skip
            continue
        pairs = list(read_pairs(pairs_path(folder, name)))
        base.update(task=entry.get("task", ""), task_lines=entry.get("task_lines", {}))
        scorers: list[tuple[str, str, str, Scorer]] = []
        if model is not None:
            scorers.append((model.name, model.identity, model.kind, model))
        if controls:
            bigram = _CrossFitted(pairs)
            scorers.append(("bigram", f"bigram:{CONTROL_FOLDS}-fold", "control", bigram))
            scorers.append(("length", "length", "control", _Length()))
        for scorer, identity, kind, fn in scorers:
            records += _records(base, pairs, scorer, identity, kind, fn)
    return records


class _CrossFitted:
    """The bigram control, each pair scored by the model of the folds its sentence is not in."""

    def __init__(self, pairs: list[Pair]) -> None:
        self.fold = {}
        models = {}
        for k in range(CONTROL_FOLDS):
            mine = [p for p in pairs if p.fold == k]
            seen = {s for p in mine for s in (p.good, p.bad)}
            train = sorted({p.good for p in pairs if p.fold != k} - seen)
            models[k] = BigramModel(train)
            self.fold.update({s: k for p in mine for s in (p.good, p.bad)})
        self.models = models

    def score(self, sentences: Sequence[str]) -> list[Score]:
        return [self.models[self.fold[s]].score([s])[0] for s in sentences]


def _records(
    base: dict[str, Any], pairs: list[Pair], scorer: str, identity: str, kind: str, fn: Scorer
) -> list[dict[str, Any]]:
    good = fn.score([p.good for p in pairs])
    bad = fn.score([p.bad for p in pairs])
    out = []
    for how in NORMALISATIONS if kind != "control" or scorer == "bigram" else ("sum",):
        margins = [0.0 if abs(g.logprob - b.logprob) < TIE else
                   normalised(g, p.good, how) - normalised(b, p.bad, how)
                   for g, b, p in zip(good, bad, pairs, strict=True)]  # fmt: skip
        correct = [1.0 if d > 0 else 0.0 if d < 0 else 0.5 for d in margins]
        out.append({
            **base, "scorer": scorer, "scorer_id": identity, "scorer_kind": kind,
            "normalisation": how, "n": len(pairs), "ties": sum(d == 0 for d in margins),
            "value": sum(correct) / len(correct) if correct else 0.0,
            "items": [f"{p.split}:{p.source.rsplit('/', 1)[-1]}:{p.line}" for p in pairs],
            "probe_items": [p.item for p in pairs], "correct": correct,
            "margin": [round(d, 6) for d in margins],
        })  # fmt: skip
    return out

"""The n-gram control: what surface statistics alone give on the pairs.

A word bigram model, interpolated with add-one unigrams (Jelinek-Mercer, weight 0.7 on the
bigram), cross-fitted (:mod:`~xprobe.pairs.score`): each pair is scored by a model trained on the
grammatical sides of the other folds' pairs only: where it prefers the grammatical side far above
chance, the pairs carry a surface cue that a language model needs no grammar for.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable

from xprobe.pairs.lm import Score

__all__ = ["BigramModel"]

LAMBDA = 0.7


class BigramModel:
    """Bigram log-probabilities over whitespace tokens, with sentence boundaries."""

    def __init__(self, sentences: Iterable[str]) -> None:
        self.unigrams: Counter[str] = Counter()
        self.bigrams: Counter[tuple[str, str]] = Counter()
        for s in sentences:
            toks = ["<s>", *s.split(" "), "</s>"]
            self.unigrams.update(toks[1:])
            self.bigrams.update(itertools.pairwise(toks))
        self.context: Counter[str] = Counter()
        for (v, _), c in self.bigrams.items():
            self.context[v] += c
        self.total = sum(self.unigrams.values())
        self.vocab = len(self.unigrams) + 1  # + an unknown word

    def score(self, sentences: Iterable[str]) -> list[Score]:
        out = []
        for s in sentences:
            toks = ["<s>", *s.split(" "), "</s>"]
            lp = 0.0
            for v, w in itertools.pairwise(toks):
                uni = (self.unigrams[w] + 1) / (self.total + self.vocab)
                ctx = self.context[v]
                p = LAMBDA * self.bigrams[(v, w)] / ctx + (1 - LAMBDA) * uni if ctx else uni
                lp += math.log(p)
            out.append(Score(lp, len(toks) - 1))
        return out

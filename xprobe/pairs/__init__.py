"""Minimal pairs beside the probing sets: does a model *use* what its vectors encode?

A probing folder written with provenance already holds minimal pairs: every perturbed line of
BShift (``I``), SOMO (``C``) and CoordInv (``I``) has a known original, the gold sentence its
provenance names (:mod:`~xprobe.pairs.perturbed`). Agreement pairs swap the main clause's
agreeing verb for an attested form of the same lemma whose Number (or Person, or Gender) differs
from its subject's (:mod:`~xprobe.pairs.agreement`). :func:`build_pairs` writes them, one TSV per
phenomenon, with each pair's split taken from the probing set (leak-free with the probe);
:mod:`~xprobe.pairs.score` scores them with a causal or masked language model (summed
log-probability, four normalisations, cached), an n-gram control trained on the training side
only, and the length baseline.

Example::

    >>> m = build_pairs("probing/en", "pairs/en")  # doctest: +SKIP
    >>> m["phenomena"]["bigram_shift"]["pairs"]  # doctest: +SKIP
    6181
"""

from __future__ import annotations

from xprobe.pairs.build import build_pairs
from xprobe.pairs.model import PHENOMENA, Pair, read_pairs

__all__ = ["PHENOMENA", "Pair", "build_pairs", "read_pairs"]

"""The one small interface every probing task implements.

A task module defines a module-level ``TASK = TaskSpec(...)``. It does no I/O and keeps no
counters: quotas, balance, lexical splits and exclusivity live in :mod:`xprobe.extract.pipeline`.

For each sentence the extractor asks ``spec.candidate(sentence, ctx, rng)``. The task answers None
(the sentence is not usable) or a :class:`Candidate`: one :class:`Variant` for a classification
task (SentLen, Tense...), or the original and the perturbed sentence for a perturbation task
(BShift, SOMO, CoordInv), of which the extractor writes exactly one.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from xprobe.languages import LanguageProfile
from xprobe.ud import Sentence

__all__ = [
    "Candidate",
    "Context",
    "CorpusStats",
    "TaskSpec",
    "Variant",
    "fold_key",
    "sequence_hash",
]


class Variant(NamedTuple):
    """A sentence as it would be written: its surface tokens, its label, its lexical key.

    ``key`` is the word that must occur in one split only (Tense: the main-verb form; SubjNum:
    the subject form; SOMO: the replacement word), or None. A NamedTuple, as
    :class:`~xprobe.ud.Word`: every task builds one or two for most sentences, and a tuple is
    built about ten times faster than a frozen dataclass (just as immutable).
    """

    label: str
    tokens: tuple[str, ...]
    key: str | None = None


class Candidate(NamedTuple):
    """What a task can make of one sentence.

    ``variants`` holds one variant (classification) or the original and the perturbed sentence.
    ``stratum`` names a cell that classes are balanced within (TreeDepth: the length bin; CoordInv:
    first clause longer / equal / shorter); "" when the task has none.
    """

    variants: tuple[Variant, ...]
    stratum: str = ""


@dataclass
class CorpusStats:
    """The frequency pass: counts over the whole corpus (surface forms, as written)."""

    forms: Counter[str] = field(default_factory=Counter)
    bigrams: Counter[tuple[str, str]] = field(default_factory=Counter)
    upos: dict[str, Counter[str]] = field(default_factory=dict)  # form -> UPOS counts
    sentences: int = 0  # distinct sentences (a repeated token sequence counts once)
    tokens: int = 0  # surface tokens of the whole corpus (relative frequency windows)
    duplicates: int = 0  # sentences that repeat an earlier one's tokens: not counted, not used
    dedup_saturated: bool = False  # the table of sentences seen was full: later repeats missed
    # sequence_hash of every sentence offered to the tasks (None: unknown), so that a
    # perturbation that gives a sentence of the corpus is not taken for a perturbed one
    attested: Container[int] | None = None

    def is_attested(self, tokens: Sequence[str]) -> bool:
        """Whether ``tokens``, case-folded and written, read as a sentence of the corpus."""
        return self.attested is not None and sequence_hash(tokens) in self.attested


def fold_key(key: str) -> str:
    """A lexical key as splits compare it: case-folded, Turkish capitals included.

    ``str.casefold`` turns "İnsanlar" into "i" + U+0307 (a combining dot) + "nsanlar" and "Irmak"
    into "irmak", while lower-case Turkish writes "insanlar" and "ırmak": the dot is dropped after
    "i" and dotless "ı" folds to "i", so each pair is one key (merging "ırmak" with an "irmak"
    only keeps more words out of two splits, never fewer).

    >>> fold_key("İnsanlar") == fold_key("insanlar"), fold_key("Irmak") == fold_key("ırmak")
    (True, True)
    """
    folded = key.casefold()
    if "\u0307" in folded:
        folded = folded.replace("i\u0307", "i")
    return folded.replace("ı", "i")


def sequence_hash(tokens: Sequence[str]) -> int:
    """A 64-bit hash of a case-folded token sequence as written, its tokens joined by single
    spaces (``CorpusStats.attested`` holds these): a word written with spaces (Vietnamese "học
    sinh") makes token sequences that differ read the same, and the reader sees the text."""
    data = " ".join(tokens).casefold().encode("utf-8", "surrogateescape")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


@dataclass(frozen=True)
class Context:
    """What a task sees besides the sentence: the profile, its parameters, the corpus counts,
    and whatever its ``prepare`` computed from them (``data``)."""

    profile: LanguageProfile
    params: Any
    stats: CorpusStats
    data: Any = None


def _no_prepare(ctx: Context) -> Any:
    return None


@dataclass(frozen=True)
class TaskSpec:
    """A probing task as metadata plus one function.

    name: the short name used on the command line and in results (``SentLen``).
    file: the SentEval file stem (``sentence_length`` -> ``sentence_length.txt``).
    labels: the label set in label order, or None when ``prepare`` decides it (WC's words);
        ``labels_of(ctx)`` then returns it.
    params: a dataclass whose fields are the task's parameters with their defaults; a profile's
        ``[tasks.<file>]`` table and ``--param file.name=value`` flags override them.
    candidate: ``(sentence, ctx, rng) -> Candidate | None``.
    prepare: ``ctx -> data`` run once after the frequency pass (WC's targets, SOMO's index).
    uses_bigrams: whether the frequency pass must count bigrams for this task.
    needs_tree: whether ``candidate`` reads the tree (heads, relations); SentLen, WC, BShift and
        SOMO read only tokens and tags, so a sentence that was tagged and not parsed serves them.
    tag_filter: ``(sentence, ctx) -> bool`` on tags only (FORM, LEMMA, UPOS, XPOS, FEATS,
        length; never heads or relations): False when the sentence cannot be a candidate, whatever
        its tree; None when the task has no such filter (every sentence is parsed for it).
        Conservative: ``candidate`` never accepts a sentence the filter rejects (tests check it
        on the gold treebanks), so parsing only what passes loses no candidate.
    """

    name: str
    file: str
    labels: tuple[str, ...] | None
    params: type
    candidate: Callable[[Sentence, Context, random.Random], Candidate | None]
    prepare: Callable[[Context], Any] = _no_prepare
    uses_bigrams: bool = False
    description: str = ""
    # Declared strata get equal shares of each (split, label) quota (CoordInv's thirds:
    # ("longer", "equal", "shorter")). When empty, strata are data-driven: the extractor keeps
    # every label at the same count within each stratum the data offers (TreeDepth's length bins).
    strata: tuple[str, ...] = ()
    needs_tree: bool = True
    tag_filter: Callable[[Sentence, Context], bool] | None = None
    # the declared strata under the task's params, when a param chooses them (CoordInv's
    # balance: thirds or halves); None: always ``strata``
    strata_for: Callable[[Any], tuple[str, ...]] | None = None

    def strata_of(self, params: Any) -> tuple[str, ...]:
        """The declared strata under ``params`` (``strata`` unless ``strata_for`` says)."""
        return self.strata if self.strata_for is None else self.strata_for(params)

    def labels_of(self, ctx: Context) -> tuple[str, ...]:
        """The label set in label order (an open set is kept in ``ctx.data.labels``)."""
        if self.labels is not None:
            return self.labels
        return tuple(ctx.data.labels)

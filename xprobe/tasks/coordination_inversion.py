"""CoordInv: whether two coordinated main clauses were swapped (``I``) or not (``O``).

Eligibility (docs TASKS.md), relations compared on their base name:

* the sentence contains none of the profile's double-quote strings (``profile.quotes``), as for
  BShift;
* exactly one word in the sentence has relation ``cc`` (``profile.cc_rel``), and it is a surface
  token on its own, tagged with one of ``profile.cc_upos`` (``CCONJ``; the tag filter,
  :func:`tag_filter`: on the 23 gold treebanks every `cc` of an eligible sentence is CCONJ, but
  Spanish *mientras* (ADV) and Vietnamese *nhưng*, *còn* (SCONJ), which those profiles list);
* the root has exactly one ``conj`` dependent ``C``; ``C`` has its own ``nsubj`` dependent
  (``profile.subj_rel``, subtypes count) and is the head of that ``cc`` word;
* the root is a clause too: it has a dependent whose base relation is in
  ``profile.clause_rels`` (``nsubj``, ``csubj``, ``cop``) or its UPOS is in
  ``profile.clause_upos`` (``VERB``, ``AUX``: an imperative counts, a bare noun phrase such as
  "Any major dischord and we all suffer ." does not).

Clause spans, on surface tokens ``0..n-1`` with the ``cc`` token at ``k``:

* *final*: the longest run of tokens at the end whose forms are in ``profile.sentence_final``
  (``.``, ``!``, ``?`` ...), starting at ``e`` (``e = n`` when there is none);
* *separator*: token ``k-1`` when it is a one-word punctuation token (``profile.punct_upos``)
  whose form is one of ``profile.separators`` (``,`` ``;`` ``:`` dashes ...), **wherever the
  parser attached it** (a comma hung on a word of the first clause would otherwise stay behind
  and the inverted sentence would end in ", ."); otherwise none, and ``s = k`` (with a separator
  ``s = k-1``). A closing bracket is not a separator: it stays with its clause;
* *first clause* = tokens ``0..s-1``, *second clause* = tokens ``k+1..e-1``; the first clause
  must not end in a separator either (", , and").

Both spans must be non-empty and contiguous: every word of the second clause lies in ``C``'s
subtree and no word of the first clause does (so a dependent of the root after the second
conjunct, or a multiword token split across clauses, rules the sentence out; non-projective
cases fall out the same way). The second clause must begin with a word, not punctuation
(Turkish "Hava güzeldi ama , nedense ...": the inverted line would begin ", Nedense").

*Prefix*: the punctuation tokens that open the sentence before the first clause's first word
(a dialogue dash "- ", Spanish "¿") belong to the whole sentence and stay in front, as the
final punctuation stays at the end. The ``I`` variant is ``prefix + second + separator + cc +
first + final``: "¿ Vienes tú y voy yo ?" -> "¿ Voy yo y vienes tú ?".

Case: unless the sentence begins (at its first non-punctuation token) with a lower-case letter,
the second clause's first non-punctuation token gets an upper-case first letter, and the first
clause's one, if it starts with an upper-case letter, a lower-case one, except when it is a proper
noun (``profile.proper_upos``) or, with ``case_from_counts`` (default), when the corpus writes it
capitalised more often than not in the middle of sentences (German nouns, English "I", acronyms;
counted from the bigrams' right-hand words after a word, so sentence-initial capitals, and
those after a dialogue dash, a colon or an opening quote, do not count).

A sentence whose inversion is a sentence of the corpus (case-folded tokens compared) is not
eligible: the inverted sentence would be an original labelled ``I``.

``stratum`` compares the original first clause with the second, in tokens: ``longer``, ``equal``
or ``shorter``. No lexical key. ``balance = "halves"`` (default ``"thirds"``) drops sentences
whose clauses are equally long and declares the strata ``longer`` and ``shorter`` only: each
class is then split in halves, and the clause order a reader sees still does not predict the
label (an ``I`` line of a "longer" sentence shows the shorter clause first), with 2 x the rarer
of the two strata instead of 3 x the rarest of three (equal clauses are rare: docs/tasks.md).

Example: "The cat slept , and the dog barked ." -> "The dog barked , and the cat slept ."
"""

from __future__ import annotations

import operator
import random
from collections import Counter
from dataclasses import dataclass

from xprobe.errors import XProbeError
from xprobe.languages import LanguageProfile
from xprobe.tasks.base import Candidate, Context, TaskSpec, Variant
from xprobe.tasks.common import base_rel, has_quote, punct_mask
from xprobe.ud import Sentence, SurfaceToken, Word


@dataclass(frozen=True)
class Params:
    # keep the old first word capitalised when the corpus mostly writes it so mid-sentence
    case_from_counts: bool = True
    # "thirds": longer / equal / shorter; "halves": longer / shorter, equal clauses not used
    balance: str = "thirds"


STRATA = {"thirds": ("longer", "equal", "shorter"), "halves": ("longer", "shorter")}


def strata_for(params: Params) -> tuple[str, ...]:
    """The declared strata under ``balance``."""
    return STRATA[params.balance]


@dataclass(frozen=True)
class Clauses:
    """Surface-token boundaries: prefix = [0, p), first = [p, s), separator = [s, k), cc = k,
    second = [k+1, e), final = [e, n)."""

    s: int
    k: int
    e: int
    p: int = 0


_DEPREL = operator.itemgetter(7)  # Word.deprel


def _in_subtree(heads: tuple[int, ...], top: int) -> list[bool]:
    """For each word (0-based), whether it lies in the subtree of word ``top`` (1-based).

    O(n); a cycle (impossible in a checked tree) counts as outside rather than looping."""
    n = len(heads)
    state = [0] * (n + 1)  # 0 unknown, 1 inside, 2 outside, 3 on the current path; 1-based
    state[top] = 1
    state[0] = 2
    for start in range(1, n + 1):
        path = []
        node = start
        while state[node] == 0:
            state[node] = 3
            path.append(node)
            node = heads[node - 1]
        value = 1 if state[node] == 1 else 2
        for p in path:
            state[p] = value
    return [state[i] == 1 for i in range(1, n + 1)]


def find_clauses(sentence: Sentence, ctx: Context) -> Clauses | None:
    """The clause boundaries of an eligible sentence, or None."""
    prof = ctx.profile
    words = sentence.words
    rels = list(map(base_rel, map(_DEPREL, words)))  # in C: most sentences stop at the count
    if rels.count(prof.cc_rel) != 1:
        return None
    cc = rels.index(prof.cc_rel) + 1
    heads = sentence.heads
    root = heads.index(0) + 1  # a checked tree has one root
    conj = 0
    for i, rel in enumerate(rels):
        if rel == prof.conj_rel and heads[i] == root:
            if conj:
                return None
            conj = i + 1
    if not conj or words[cc - 1].head != conj:
        return None
    if not any(w.head == conj and base_rel(w.deprel) == prof.subj_rel for w in words):
        return None
    if words[root - 1].upos not in prof.clause_upos and not any(
        w.head == root and base_rel(w.deprel) in prof.clause_rels for w in words
    ):
        return None  # the first conjunct is not a clause
    inside = _in_subtree(heads, conj)
    surface = sentence.surface
    tok_in = []
    for t in surface:
        flag = inside[t.first]
        if any(inside[j] != flag for j in range(t.first + 1, t.last + 1)):
            return None  # a multiword token split across the clauses
        tok_in.append(flag)
    k = next(i for i, t in enumerate(surface) if t.first <= cc - 1 <= t.last)
    if surface[k].first != surface[k].last:
        return None
    e = len(surface)
    while e > k + 1 and surface[e - 1].form in prof.sentence_final:
        e -= 1
    s = k
    if k >= 2 and _is_separator(surface[k - 1], words, prof):
        s = k - 1  # wherever the parser attached it
    if s < 1 or e <= k + 1 or _is_separator(surface[s - 1], words, prof):
        return None
    if any(tok_in[:s]) or not all(tok_in[k + 1 : e]):
        return None
    punct = punct_mask(sentence, prof.punct_upos)
    p = next((i for i in range(s) if not punct[i]), None)
    if p is None or punct[k + 1]:
        return None  # a first clause of punctuation only; a second one opening with it
    return Clauses(s, k, e, p)


def _is_separator(tok: SurfaceToken, words: tuple[Word, ...], prof: LanguageProfile) -> bool:
    """Whether a surface token is one-word punctuation that separates clauses (``,`` ``;`` ...)."""
    return (
        tok.first == tok.last
        and words[tok.first].upos in prof.punct_upos
        and tok.form in prof.separators
    )


def prepare(ctx: Context) -> Counter[str] | None:
    """Sentence-internal counts: how often each form follows another token (bigram right words),
    so that sentence-initial capitals do not count; None when ``case_from_counts`` is off."""
    if ctx.params.balance not in STRATA:
        raise XProbeError(
            f"CoordInv: balance must be one of {', '.join(STRATA)}, got {ctx.params.balance!r}"
        )
    if not ctx.params.case_from_counts:
        return None
    internal: Counter[str] = Counter()
    wordy: dict[str, bool] = {}  # per left form (a tenth as many as bigrams)
    for (left, right), count in ctx.stats.bigrams.items():
        after_word = wordy.get(left)
        if after_word is None:
            after_word = wordy[left] = any(map(str.isalnum, left))
        if after_word:  # after a word: "- Nedense" is a line start
            internal[right] += count
    return internal


def _first_word(punct: list[bool], start: int, end: int) -> int | None:
    for i in range(start, end):
        if not punct[i]:
            return i
    return None


def _keep_case(sentence: Sentence, ctx: Context, i: int, form: str, lowered: str) -> bool:
    if sentence.words[sentence.surface[i].first].upos in ctx.profile.proper_upos:
        return True
    internal = ctx.data
    if internal is None:
        return False
    return internal.get(lowered, 0) < internal.get(form, 0)


def invert(sentence: Sentence, ctx: Context, c: Clauses) -> tuple[str, ...]:
    """The sentence with its two clauses swapped around the conjunction, case moved."""
    tokens = list(sentence.tokens)
    punct = punct_mask(sentence, ctx.profile.punct_upos)
    i1 = _first_word(punct, c.p, c.s)
    i2 = _first_word(punct, c.k + 1, c.e)
    if i1 is not None and i2 is not None and not tokens[i1][:1].islower():
        old = tokens[i1]
        if old[:1].isupper():
            lowered = old[:1].lower() + old[1:]
            if not _keep_case(sentence, ctx, i1, old, lowered):
                tokens[i1] = lowered
        tokens[i2] = tokens[i2][:1].upper() + tokens[i2][1:]
    return (
        *tokens[: c.p],
        *tokens[c.k + 1 : c.e],
        *tokens[c.s : c.k + 1],
        *tokens[c.p : c.s],
        *tokens[c.e :],
    )


def tag_filter(sentence: Sentence, ctx: Context) -> bool:
    """Tags only: no quote, and a one-word token tagged ``profile.cc_upos`` (CCONJ) after a
    word (the first clause) and before a token that is not punctuation (the second clause's
    first word). Part of the rule: :func:`candidate` takes nothing this rejects."""
    prof = ctx.profile
    if has_quote(" ".join(sentence.tokens), prof.quotes):
        return False
    words, surface = sentence.words, sentence.surface
    punct = punct_mask(sentence, prof.punct_upos)
    seen_word = False
    for k, t in enumerate(surface[:-1]):
        cc = t.first == t.last and words[t.first].upos in prof.cc_upos
        if seen_word and cc and not punct[k + 1]:
            return True
        seen_word = seen_word or not punct[k]
    return False


def candidate(sentence: Sentence, ctx: Context, rng: random.Random) -> Candidate | None:
    # the tree's rule first: it rejects most sentences at once (one ``cc`` word), while the tag
    # filter walks every surface token; a candidate is what both accept, in either order
    got = tree_candidate(sentence, ctx)
    if got is None or not tag_filter(sentence, ctx):
        return None
    return got


def tree_candidate(sentence: Sentence, ctx: Context) -> Candidate | None:
    """The rule on the tree, without the tag filter's ``cc_upos`` (the gold tests compare the
    two: the filter must keep every sentence this accepts)."""
    tokens = sentence.tokens
    if has_quote(" ".join(tokens), ctx.profile.quotes):
        return None
    c = find_clauses(sentence, ctx)
    if c is None:
        return None
    inverted = invert(sentence, ctx, c)
    if inverted == tokens or ctx.stats.is_attested(inverted):  # identical clauses; an original
        return None
    n1, n2 = c.s - c.p, c.e - c.k - 1
    stratum = "longer" if n1 > n2 else "equal" if n1 == n2 else "shorter"
    if stratum not in STRATA[ctx.params.balance]:
        return None
    return Candidate((Variant("O", tokens), Variant("I", inverted)), stratum=stratum)


TASK = TaskSpec(
    name="CoordInv",
    file="coordination_inversion",
    labels=("O", "I"),
    params=Params,
    candidate=candidate,
    tag_filter=tag_filter,
    prepare=prepare,
    uses_bigrams=True,
    strata=STRATA["thirds"],
    strata_for=strata_for,
    description="whether two coordinated main clauses were swapped",
)

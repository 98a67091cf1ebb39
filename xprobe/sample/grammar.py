"""Abstract sentences of the sample grammar, and the seeded rules that generate and transform them.

An abstract sentence (:class:`Sent`) says *what* is said: a main clause (subject, verb or
copular adjective, object, adverbials, an adverbial clause) and optionally a second, coordinated
clause with its own subject. The realisers (:mod:`xprobe.sample.realize`) turn it into English
and German words with their UD annotation, so both languages stay aligned. The gold facts the
probing tasks look at (tense, subject and object number, coordination) are read off the abstract
sentence by :func:`gold`, independently of the realised tree, which lets tests compare the two.

Example::

    >>> from xprobe.sample.lexicon import build_lexicon, LexiconSizes
    >>> g = Grammar(build_lexicon(1, LexiconSizes(10, 5, 5, 5)))
    >>> s = g.sentence(random.Random(0), target_bin=2)
    >>> sorted(gold(s))
    ['coord', 'obj', 'subj', 'tense']
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field

from xprobe.sample.lexicon import Lexicon, Zipf

__all__ = ["NP", "PP", "Clause", "Grammar", "Pron", "Sent", "gold", "nli_pair"]

N_PREPS = 8  # of, with, in, near, behind, from, at, to (see realize.PREPS)
N_MARKS = 4  # because, while, although, if
N_CCS = 3  # and, but, or
N_TIME = 4  # yesterday, earlier (past) / now, today (present)
N_FREQ = 4  # often, again, rarely, always
N_PRONS = 6  # I, you, he, she, we, they


TOPICS = 50  # lexeme i belongs to topic i % TOPICS
TOPIC_SHARE = 0.7  # content words drawn from the sentence's topic


class _Topical:
    """Zipfian draws over ``n`` lexemes, mostly (``TOPIC_SHARE``) within the current topic."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.all = Zipf(n, 1.0)
        self.within = Zipf(max(1, n // TOPICS), 1.0)
        self.topic = -1

    def draw(self, r: random.Random) -> int:
        if self.topic >= 0 and self.n >= TOPICS and r.random() < TOPIC_SHARE:
            return min(self.n - 1, self.within.draw(r) * TOPICS + self.topic)
        return self.all.draw(r)


@dataclass
class PP:
    prep: int
    np: NP


@dataclass
class NP:
    noun: int
    plural: bool
    definite: bool
    adjs: list[tuple[int, bool]] = field(default_factory=list)  # (adjective, intensified)
    pp: PP | None = None


@dataclass
class Pron:
    index: int  # into realize.PRONOUNS


@dataclass
class Clause:
    subj: NP | Pron
    past: bool
    verb: int = -1  # index into trans (when obj) or intrans; -1: copular clause
    adj: int = -1  # predicate adjective of a copular clause
    obj: NP | None = None
    obl: PP | None = None
    neg: bool = False
    time: int = -1  # time adverb (0, 1 past; 2, 3 present)
    front: bool = False  # time adverb first
    freq: int = -1
    intens: int = -1  # intensifier of a predicate adjective
    advcl: tuple[int, Clause] | None = None  # (subordinator, clause)


@dataclass
class Sent:
    main: Clause
    coord: tuple[int, bool, Clause] | None = None  # (conjunction, comma before it, clause)


def gold(s: Sent) -> dict[str, str]:
    """What the probing tasks should find: Tense, SubjNum, ObjNum labels and coordination."""
    c = s.main
    out = {"tense": "PAST" if c.past else "PRES", "coord": "yes" if s.coord else "no"}
    out["subj"] = "-" if isinstance(c.subj, Pron) else ("NNS" if c.subj.plural else "NN")
    out["obj"] = "-" if c.obj is None else ("NNS" if c.obj.plural else "NN")
    return out


class Grammar:
    """Seeded generation over a :class:`~xprobe.sample.lexicon.Lexicon` with Zipfian choices."""

    def __init__(self, lex: Lexicon) -> None:
        self.lex = lex
        self.z_noun = _Topical(len(lex.nouns))
        self.z_trans = _Topical(len(lex.trans))
        self.z_intrans = _Topical(len(lex.intrans))
        self.z_adj = _Topical(len(lex.adjs))

    def set_topic(self, r: random.Random) -> None:
        """Pick the topic of the next sentence: its content words come mostly from that topic's
        share of the lexicon, which gives words distinct co-occurrences (and word vectors of two
        languages a shape in common, so that they can be mapped onto each other)."""
        t = r.randrange(TOPICS)
        for z in (self.z_noun, self.z_trans, self.z_intrans, self.z_adj):
            z.topic = t

    # ------------------------------------------------------------------ phrases

    def np(self, r: random.Random, rich: float, depth: int = 0) -> NP:
        adjs: list[tuple[int, bool]] = []
        while len(adjs) < 2 and r.random() < 0.25 + 0.3 * rich:
            adjs.append((self.z_adj.draw(r), r.random() < 0.2))
        pp = None
        if depth < 4 and r.random() < (0.15 + 0.4 * rich) * (0.8**depth):
            pp = PP(r.randrange(N_PREPS), self.np(r, rich, depth + 1))
        return NP(self.z_noun.draw(r), r.random() < 0.45, r.random() < 0.7, adjs, pp)

    def clause(self, r: random.Random, rich: float, sub: bool = False) -> Clause:
        subj: NP | Pron = Pron(r.randrange(N_PRONS)) if r.random() < 0.2 else self.np(r, rich)
        c = Clause(subj, r.random() < 0.5)
        kind = r.random()
        if kind < 0.12:
            c.adj = self.z_adj.draw(r)
            c.intens = r.randrange(3) if r.random() < 0.3 else -1
        elif kind < 0.7:
            c.verb = self.z_trans.draw(r)
            c.obj = self.np(r, rich)
        else:
            c.verb = self.z_intrans.draw(r)
        if c.adj < 0 and r.random() < 0.2 + 0.4 * rich:
            c.obl = PP(r.randrange(N_PREPS), self.np(r, rich, 1))
        c.neg = r.random() < 0.06 and (c.obj is None or c.obj.definite)
        if r.random() < 0.3:
            c.time = (0 if c.past else 2) + r.randrange(2)
            c.front = not sub and r.random() < 0.4
        if r.random() < 0.15:
            c.freq = r.randrange(N_FREQ)
        if not sub and r.random() < 0.1 + 0.35 * rich:
            c.advcl = (r.randrange(N_MARKS), self.clause(r, rich * 0.5, sub=True))
        return c

    def sentence(self, r: random.Random, target_bin: int = -1) -> Sent:
        """One sentence; ``target_bin`` (0..5) sets how rich it tends to be."""
        rich = (
            r.random() if target_bin < 0 else min(1.0, max(0.0, target_bin / 5 + r.gauss(0, 0.15)))
        )
        s = Sent(self.clause(r, rich))
        if r.random() < 0.15 + 0.35 * rich:
            # a third of the time the second clause mirrors the first one's shape (same length)
            second = self.relex(r, s.main) if r.random() < 0.33 else self.clause(r, rich * 0.7)
            s.coord = (r.randrange(N_CCS), r.random() < 0.7, second)
        return s

    def relex(self, r: random.Random, c: Clause) -> Clause:
        """A clause of the same shape as ``c`` (same phrases, same length in English) with new
        words and a tense and subject of its own."""
        new = copy.deepcopy(c)
        new.advcl = None
        new.past = r.random() < 0.5
        if new.time >= 0:
            new.time = (0 if new.past else 2) + r.randrange(2)
        if new.adj >= 0:
            new.adj = self.z_adj.draw(r)
        elif new.obj is not None:
            new.verb = self.z_trans.draw(r)
        else:
            new.verb = self.z_intrans.draw(r)
        for np_, _ in _nps(new):
            np_.noun = self.z_noun.draw(r)
            np_.adjs = [(self.z_adj.draw(r), i) for _, i in np_.adjs]
        return new

    def flat(self, r: random.Random) -> Sent:
        """A one-clause sentence of tree depth 3: no nested phrase, no intensifier, no
        adverbial or coordinated clause (see :meth:`grow` with ``keep_flat``)."""
        c = self.clause(r, 0.0, sub=True)
        c.intens = -1
        for np_, _ in _nps(c):
            np_.pp = None
            np_.adjs = [(a, False) for a, _ in np_.adjs]
        return Sent(c)

    def grow(self, r: random.Random, s: Sent, deeper: bool, keep_flat: bool = False) -> None:
        """Add one modifier to ``s``. ``deeper``: a prepositional phrase at the end of the most
        deeply nested noun phrase (the tree gets deeper); otherwise a flat one if one still fits
        (an adjective, an adverb, a prepositional phrase on the verb, a coordinated clause)."""
        mains = [s.main] + ([s.coord[2]] if s.coord else [])
        levels = [(c, 1) for c in mains] + [(c.advcl[1], 2) for c in mains if c.advcl]
        nps = [(np_, lvl + k) for c, lvl in levels for np_, k in _nps(c)]
        if not deeper and self._flat(r, s, mains, [np_ for np_, _ in nps], keep_flat):
            return
        if keep_flat:
            return
        free = [c for c in mains if c.advcl is None]
        if free and (not nps or r.random() < 0.15):
            r.choice(free).advcl = (r.randrange(N_MARKS), self.clause(r, 0.0, sub=True))
        elif nps:
            np_ = max(nps, key=lambda x: x[1])[0]
            bare = r.random() < 0.4  # "of kings": a bare plural keeps the phrase short
            noun = NP(self.z_noun.draw(r), bare or r.random() < 0.45, not bare and r.random() < 0.7)
            np_.pp = PP(r.randrange(N_PREPS), noun)
        else:
            s.main.obl = PP(r.randrange(N_PREPS), NP(self.z_noun.draw(r), False, True))

    def _flat(
        self, r: random.Random, s: Sent, mains: list[Clause], nps: list[NP], keep_flat: bool
    ) -> bool:
        """Add a flat modifier; False when the chosen kind does not fit any more. With
        ``keep_flat`` nothing that deepens the tree (a coordinated clause, an intensifier)."""
        op = r.randrange(5)
        c = r.choice(mains)
        if op == 0 and s.coord is None and not keep_flat:
            s.coord = (r.randrange(N_CCS), r.random() < 0.7, self.clause(r, 0.0))
        elif op == 1 and c.obl is None and c.adj < 0:
            c.obl = PP(r.randrange(N_PREPS), NP(self.z_noun.draw(r), r.random() < 0.45, True))
        elif op == 2 and c.freq < 0:
            c.freq = r.randrange(N_FREQ)
        elif op == 3 and c.time < 0:
            c.time = (0 if c.past else 2) + r.randrange(2)
        elif nps and len((np_ := r.choice(nps)).adjs) < 2:
            np_.adjs.append((self.z_adj.draw(r), not keep_flat and r.random() < 0.2))
        else:
            return False
        return True

    # ------------------------------------------------------------------ NLI

    def nli_pair(
        self, r: random.Random, premise: Sent, label: str | None = None
    ) -> tuple[Sent, str] | None:
        """A hypothesis for ``premise`` and its label, built by rule (see :func:`nli_pair`)."""
        return nli_pair(self, r, premise, label)


def _nps(c: Clause) -> list[tuple[NP, int]]:
    """The noun phrases of a clause, nested ones included, with their nesting level."""
    out: list[tuple[NP, int]] = []
    todo = [(np_, 1) for np_ in (c.subj, c.obj) if isinstance(np_, NP)]
    if c.obl is not None:
        todo.append((c.obl.np, 1))
    while todo:
        np_, k = todo.pop()
        out.append((np_, k))
        if np_.pp is not None:
            todo.append((np_.pp.np, k + 1))
    return out


def _droppable(c: Clause) -> list[str]:
    out = []
    if c.obl:
        out.append("obl")
    if c.time >= 0:
        out.append("time")
    if c.freq >= 0:
        out.append("freq")
    if c.advcl:
        out.append("advcl")
    for np_ in (c.subj, c.obj):
        if isinstance(np_, NP) and (np_.adjs or np_.pp):
            out.append("subj" if np_ is c.subj else "obj")
    return out


def _drop(r: random.Random, c: Clause, what: str) -> None:
    if what == "obl":
        c.obl = None
    elif what == "time":
        c.time, c.front = -1, False
    elif what == "freq":
        c.freq = -1
    elif what == "advcl":
        c.advcl = None
    else:
        np_ = c.subj if what == "subj" else c.obj
        assert isinstance(np_, NP)
        if np_.adjs and (not np_.pp or r.random() < 0.5):
            np_.adjs.pop(r.randrange(len(np_.adjs)))
        else:
            np_.pp = None


def nli_pair(
    g: Grammar, r: random.Random, premise: Sent, label: str | None = None
) -> tuple[Sent, str] | None:
    """Entailment drops a modifier or a conjunct; contradiction negates the main clause, puts the
    antonym of a predicate adjective or changes the number of a definite subject (SNLI's
    convention: "the dog" vs "the dogs"); neutral changes the tense (without a time adverb), adds
    a modifier, an adverbial clause or a new coordinated clause. Returns None when the chosen rule
    does not apply to ``premise``."""
    h = copy.deepcopy(premise)
    label = label or r.choice(("entailment", "contradiction", "neutral"))
    c = h.main
    if label == "entailment":
        if h.coord and h.coord[0] == 0 and r.random() < 0.4:  # "A and B" entails A and B
            return (Sent(h.coord[2]) if r.random() < 0.5 else Sent(c)), label
        options = _droppable(c)
        if not options or c.neg:  # under negation, dropping a modifier does not entail
            return None
        _drop(r, c, r.choice(options))
        return h, label
    if label == "contradiction":
        if h.coord and h.coord[0] == 2:  # "A or B" does not contradict "not A"
            return None
        h.coord = None
        antonym = g.lex.adjs[c.adj].antonym if c.adj >= 0 else -1
        x = r.random()
        if antonym >= 0 and x < 0.5:
            c.adj = antonym
        elif isinstance(c.subj, NP) and c.subj.definite and x < 0.7:
            c.subj.plural = not c.subj.plural  # SNLI's convention: "the dog" vs "the dogs"
        else:
            if c.obj is not None and not c.obj.definite:
                return None
            c.neg = not c.neg
        return h, label
    if r.random() < 0.3 and c.time < 0:  # neutral: a past event says nothing of the present
        c.past = not c.past
        return h, label
    if h.coord is None and r.random() < 0.5:
        h.coord = (0, True, g.clause(r, 0.2))
    elif c.advcl is None:
        c.advcl = (r.randrange(N_MARKS), g.clause(r, 0.2, sub=True))
    elif isinstance(c.subj, NP) and len(c.subj.adjs) < 2:
        c.subj.adjs.insert(0, (g.z_adj.draw(r), False))
    else:
        return None
    return h, label

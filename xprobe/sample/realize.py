"""Realising abstract sentences as English and German words with gold UD annotation.

Each language is a named realiser over the same abstract sentence (:mod:`xprobe.sample.grammar`),
registered in :data:`REALISERS`; the closed-class words are tables. English: SVO with do-support
under negation. German: verb-second main clauses (``Gestern sah der Hund ...``), verb-final
subordinate clauses after a comma, case-inflected articles and adjectives, and preposition +
article contractions (``im``, ``zum``, ``vom``...) as UD multiword tokens.

Example::

    >>> from xprobe.sample.lexicon import build_lexicon, LexiconSizes
    >>> from xprobe.sample.grammar import Clause, NP, Sent
    >>> lex = build_lexicon(1, LexiconSizes(0, 0, 0, 0))
    >>> s = Sent(Clause(NP(0, False, True), past=False, verb=0, obj=NP(1, True, True)))
    >>> realise(lex, s, "en").text, realise(lex, s, "de").text
    ('The dog sees the cats .', 'Der Hund sieht die Katzen .')
"""

from __future__ import annotations

from collections.abc import Callable

from xprobe.sample.grammar import NP, PP, Clause, Pron, Sent
from xprobe.sample.lexicon import Lexicon, Verb, de_adj, slot
from xprobe.sample.tree import Node, to_sentence
from xprobe.ud import Sentence

__all__ = ["REALISERS", "realise", "shape"]

PREPS = {
    "en": ("of", "with", "in", "near", "behind", "from", "at", "to"),
    "de": ("von", "mit", "in", "bei", "hinter", "aus", "an", "zu"),
}
MARKS = {"en": ("because", "while", "although", "if"), "de": ("weil", "während", "obwohl", "wenn")}
CCS = {"en": ("and", "but", "or"), "de": ("und", "aber", "oder")}
TIME = {
    "en": ("yesterday", "earlier", "now", "today"),
    "de": ("gestern", "früher", "jetzt", "heute"),
}
FREQ = {"en": ("often", "again", "rarely", "always"), "de": ("oft", "wieder", "selten", "immer")}
INTENS = {"en": ("very", "quite", "rather"), "de": ("sehr", "ziemlich", "recht")}
NOT = {"en": "not", "de": "nicht"}
# (English, German, person, number, German gender)
PRONOUNS = (
    ("I", "ich", 1, "Sing", ""),
    ("you", "du", 2, "Sing", ""),
    ("he", "er", 3, "Sing", "Masc"),
    ("she", "sie", 3, "Sing", "Fem"),
    ("we", "wir", 1, "Plur", ""),
    ("they", "sie", 3, "Plur", ""),
)
EN_BE = {
    "Pres": ("am", "are", "is", "are", "are", "are"),
    "Past": ("was", "were", "was") + ("were",) * 3,
}
DE_BE = {
    "Pres": ("bin", "bist", "ist", "sind", "seid", "sind"),
    "Past": ("war", "warst", "war", "waren", "wart", "waren"),
}
DE_DEF = {
    "Nom": {"Masc": "der", "Fem": "die", "Neut": "das", "Plur": "die"},
    "Acc": {"Masc": "den", "Fem": "die", "Neut": "das", "Plur": "die"},
    "Dat": {"Masc": "dem", "Fem": "der", "Neut": "dem", "Plur": "den"},
}
DE_INDEF = {
    "Nom": {"Masc": "ein", "Fem": "eine", "Neut": "ein"},
    "Acc": {"Masc": "einen", "Fem": "eine", "Neut": "ein"},
    "Dat": {"Masc": "einem", "Fem": "einer", "Neut": "einem"},
}
# adjective endings after a definite article / an indefinite article / no article (plural)
DE_WEAK = {"Nom": ("e", "e", "e", "en"), "Acc": ("en", "e", "e", "en"), "Dat": ("en",) * 4}
DE_MIXED = {"Nom": ("er", "e", "es", ""), "Acc": ("en", "e", "es", ""), "Dat": ("en",) * 4}
DE_STRONG = {"Nom": "e", "Acc": "e", "Dat": "en"}
GENDERS = ("Masc", "Fem", "Neut", "Plur")
DE_CONTRACT = {("von", "dem"): "vom", ("in", "dem"): "im", ("bei", "dem"): "beim"}
DE_CONTRACT |= {("an", "dem"): "am", ("zu", "dem"): "zum", ("zu", "der"): "zur"}


def _agr(subj: NP | Pron) -> tuple[int, str]:
    if isinstance(subj, Pron):
        p = PRONOUNS[subj.index]
        return p[2], p[3]
    return 3, "Plur" if subj.plural else "Sing"


def _fin(person: int, number: str, tense: str) -> dict[str, str]:
    return {
        "Mood": "Ind",
        "Number": number,
        "Person": str(person),
        "Tense": tense,
        "VerbForm": "Fin",
    }


def _punct(form: str, head: Node) -> Node:
    return Node(form, form, "PUNCT", head=head, rel="punct")


def _adv(form: str, head: Node, upos: str = "ADV", fs: dict[str, str] | None = None) -> Node:
    return Node(form, form, upos, fs, head=head, rel="advmod")


class _Realiser:
    """Shared driver: a realiser supplies ``np``, ``pp`` and ``clause`` for its language."""

    lang = ""

    def __init__(self, lex: Lexicon) -> None:
        self.lex = lex

    def sentence(self, s: Sent, comments: list[str]) -> Sentence:
        return to_sentence(self.nodes(s), comments)

    def nodes(self, s: Sent) -> list[Node]:
        """The words of ``s`` in order, linked to their heads."""
        out: list[Node] = []
        root = self.clause(s.main, out, None, "root")
        if s.coord is not None:
            cc, comma, second = s.coord
            tail: list[Node] = []
            conj = self.clause(second, tail, root, "conj")
            if comma:
                out.append(_punct(",", conj))
            out.append(Node(CCS[self.lang][cc], CCS[self.lang][cc], "CCONJ", head=conj, rel="cc"))
            out.extend(tail)
        out.append(_punct(".", root))
        return out

    def clause(
        self, c: Clause, out: list[Node], head: Node | None, rel: str, mark: int = -1
    ) -> Node:
        """Append clause ``c`` to ``out`` (an adverbial clause when ``mark`` >= 0)."""
        raise NotImplementedError

    def np(self, np_: NP, out: list[Node], head: Node, rel: str, prep: int = -1) -> Node:
        raise NotImplementedError

    def subject(self, subj: NP | Pron, out: list[Node], pred: Node) -> None:
        if isinstance(subj, NP):
            self.np(subj, out, pred, "nsubj")
            return
        en, de, person, number, gender = PRONOUNS[subj.index]
        fs = {"Case": "Nom", "Number": number, "Person": str(person), "PronType": "Prs"}
        form = en if self.lang == "en" else de
        if gender and self.lang == "de":
            fs["Gender"] = gender
        out.append(Node(form, form if form == "I" else form.lower(), "PRON", fs, pred, "nsubj"))

    def _pred(self, c: Clause, tense: str, person: int, number: str) -> tuple[Node, Node | None]:
        """The predicate node (verb or adjective) and the finite node (verb, cop or aux)."""
        raise NotImplementedError


class English(_Realiser):
    lang = "en"

    def np(self, np_: NP, out: list[Node], head: Node, rel: str, prep: int = -1) -> Node:
        n = self.lex.nouns[np_.noun]
        num = "Plur" if np_.plural else "Sing"
        noun = Node(n.en_pl if np_.plural else n.en_sg, n.en_sg, "NOUN", {"Number": num}, head, rel)
        pre: list[Node] = []
        for a, intens in np_.adjs:
            adj = Node(
                self.lex.adjs[a].en, self.lex.adjs[a].en, "ADJ", {"Degree": "Pos"}, noun, "amod"
            )
            if intens:
                pre.append(_adv(INTENS["en"][a % 3], adj))
            pre.append(adj)
        if prep >= 0:
            out.append(Node(PREPS["en"][prep], PREPS["en"][prep], "ADP", head=noun, rel="case"))
        if np_.definite:
            out.append(
                Node("the", "the", "DET", {"Definite": "Def", "PronType": "Art"}, noun, "det")
            )
        elif not np_.plural:
            nxt = (pre[0] if pre else noun).form
            art = "an" if nxt[0] in "aeiou" else "a"
            out.append(Node(art, "a", "DET", {"Definite": "Ind", "PronType": "Art"}, noun, "det"))
        out.extend(pre)
        out.append(noun)
        if np_.pp is not None:
            self.np(np_.pp.np, out, noun, "nmod", np_.pp.prep)
        return noun

    def clause(
        self, c: Clause, out: list[Node], head: Node | None, rel: str, mark: int = -1
    ) -> Node:
        tense = "Past" if c.past else "Pres"
        person, number = _agr(c.subj)
        pred, fin = self._pred(c, tense, person, number)
        pred.head, pred.rel = head, rel
        if mark >= 0:
            out.append(Node(MARKS["en"][mark], MARKS["en"][mark], "SCONJ", head=pred, rel="mark"))
        if c.front:
            out.append(_adv(TIME["en"][c.time], pred))
        self.subject(c.subj, out, pred)
        if c.adj >= 0:
            assert fin is not None
            out.append(fin)
            if c.neg:
                out.append(_adv(NOT["en"], pred, "PART", {"Polarity": "Neg"}))
            if c.freq >= 0:
                out.append(_adv(FREQ["en"][c.freq], pred))
            if c.intens >= 0:
                out.append(_adv(INTENS["en"][c.intens], pred))
            out.append(pred)
        else:
            if fin is not None:
                out.append(fin)
                out.append(_adv(NOT["en"], pred, "PART", {"Polarity": "Neg"}))
            if c.freq >= 0:
                out.append(_adv(FREQ["en"][c.freq], pred))
            out.append(pred)
            if c.obj is not None:
                self.np(c.obj, out, pred, "obj")
        if c.obl is not None:
            self.np(c.obl.np, out, pred, "obl", c.obl.prep)
        if c.time >= 0 and not c.front:
            out.append(_adv(TIME["en"][c.time], pred))
        if c.advcl is not None:
            self.clause(c.advcl[1], out, pred, "advcl", c.advcl[0])
        return pred

    def _pred(self, c: Clause, tense: str, person: int, number: str) -> tuple[Node, Node | None]:
        fs = _fin(person, number, tense)
        k = slot(person, number)
        if c.adj >= 0:
            a = self.lex.adjs[c.adj].en
            pred = Node(a, a, "ADJ", {"Degree": "Pos"})
            be = EN_BE[tense][k]
            return pred, Node(be, "be", "AUX", fs, head=pred, rel="cop")
        v = self._verb(c)
        if c.neg:
            pred = Node(v.en_base, v.en_base, "VERB", {"VerbForm": "Inf"})
            do = "did" if tense == "Past" else ("does" if k == 2 else "do")
            return pred, Node(do, "do", "AUX", fs, head=pred, rel="aux")
        form = v.en_past if tense == "Past" else (v.en_s3 if k == 2 else v.en_base)
        return Node(form, v.en_base, "VERB", fs), None

    def _verb(self, c: Clause) -> Verb:
        return self.lex.trans[c.verb] if c.obj is not None else self.lex.intrans[c.verb]


class German(_Realiser):
    lang = "de"

    def np(self, np_: NP, out: list[Node], head: Node, rel: str, prep: int = -1) -> Node:
        case = {"nsubj": "Nom", "obj": "Acc"}.get(rel, "Dat")  # all prepositions take the dative
        n = self.lex.nouns[np_.noun]
        num = "Plur" if np_.plural else "Sing"
        g = "Plur" if np_.plural else n.gender
        form = (n.de_dat_pl if case == "Dat" else n.de_pl) if np_.plural else n.de_sg
        fs = {"Case": case, "Gender": n.gender, "Number": num}
        noun = Node(form, n.de_sg, "NOUN", fs, head, rel)
        det = None
        if np_.definite:
            det = DE_DEF[case][g]
            endings = DE_WEAK[case]
        elif not np_.plural:
            det = DE_INDEF[case][g]
            endings = DE_MIXED[case]
        if prep >= 0:
            p = PREPS["de"][prep]
            mwt = DE_CONTRACT.get((p, det or ""), "")
            out.append(Node(p, p, "ADP", head=noun, rel="case", mwt=mwt))
        if det is not None:
            dfs = {**fs, "Definite": "Def" if np_.definite else "Ind", "PronType": "Art"}
            out.append(Node(det, "der" if np_.definite else "ein", "DET", dfs, noun, "det"))
        for a, intens in np_.adjs:
            end = endings[GENDERS.index(g)] if det is not None else DE_STRONG[case]
            stem = self.lex.adjs[a].de
            adj = Node(de_adj(stem, end), stem, "ADJ", {**fs, "Degree": "Pos"}, noun, "amod")
            if intens:
                out.append(_adv(INTENS["de"][a % 3], adj))
            out.append(adj)
        out.append(noun)
        if np_.pp is not None:
            self.np(np_.pp.np, out, noun, "nmod", np_.pp.prep)
        return noun

    def clause(
        self, c: Clause, out: list[Node], head: Node | None, rel: str, mark: int = -1
    ) -> Node:
        tense = "Past" if c.past else "Pres"
        person, number = _agr(c.subj)
        pred, fin = self._pred(c, tense, person, number)
        pred.head, pred.rel = head, rel
        finite = fin if fin is not None else pred
        sub = mark >= 0
        if sub:  # ", weil der Hund die Katze sah": comma, subordinator, verb last
            out.append(_punct(",", pred))
            out.append(Node(MARKS["de"][mark], MARKS["de"][mark], "SCONJ", head=pred, rel="mark"))
            self.subject(c.subj, out, pred)
        elif c.front:  # verb second: "Gestern sah der Hund ..."
            out.append(_adv(TIME["de"][c.time], pred))
            out.append(finite)
            self.subject(c.subj, out, pred)
        else:
            self.subject(c.subj, out, pred)
            out.append(finite)
        if c.time >= 0 and not c.front:
            out.append(_adv(TIME["de"][c.time], pred))
        if c.freq >= 0:
            out.append(_adv(FREQ["de"][c.freq], pred))
        if c.obj is not None:
            self.np(c.obj, out, pred, "obj")
        if c.neg:
            out.append(_adv(NOT["de"], pred, "PART", {"Polarity": "Neg"}))
        if c.obl is not None:
            self._pp(c.obl, out, pred)
        if c.adj >= 0:
            if c.intens >= 0:
                out.append(_adv(INTENS["de"][c.intens], pred))
            out.append(pred)
        if sub:
            out.append(finite)
        if c.advcl is not None:
            self.clause(c.advcl[1], out, pred, "advcl", c.advcl[0])
        return pred

    def _pp(self, pp: PP, out: list[Node], head: Node) -> None:
        self.np(pp.np, out, head, "obl", pp.prep)

    def _pred(self, c: Clause, tense: str, person: int, number: str) -> tuple[Node, Node | None]:
        fs = _fin(person, number, tense)
        k = slot(person, number)
        if c.adj >= 0:
            a = self.lex.adjs[c.adj].de
            pred = Node(a, a, "ADJ", {"Degree": "Pos"})
            return pred, Node(DE_BE[tense][k], "sein", "AUX", fs, head=pred, rel="cop")
        v = self.lex.trans[c.verb] if c.obj is not None else self.lex.intrans[c.verb]
        form = (v.de_past if tense == "Past" else v.de_pres)[k]
        return Node(form, v.de_inf, "VERB", fs), None


REALISERS: dict[str, Callable[[Lexicon], _Realiser]] = {"en": English, "de": German}


def realise(lex: Lexicon, s: Sent, lang: str, comments: list[str] | None = None) -> Sentence:
    """The sentence ``s`` in language ``lang`` as a UD :class:`~xprobe.ud.Sentence`."""
    return REALISERS[lang](lex).sentence(s, list(comments or []))


def shape(lex: Lexicon, s: Sent, lang: str) -> tuple[int, int]:
    """Surface length (a multiword token counts once) and tree depth of ``s`` in ``lang``."""
    nodes = REALISERS[lang](lex).nodes(s)
    best = 0
    for n in nodes:  # a node's depth: the nodes from it up to the root (a few at most)
        d, m = 0, n
        while m is not None:
            d += 1
            m = m.head
        if d > best:
            best = d
    return len(nodes) - sum(1 for n in nodes if n.mwt), best

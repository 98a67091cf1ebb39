"""The sample's bilingual lexicon: a core of real English/German words plus seeded pseudo-words.

Every lexeme has an English and a German side with its inflected forms, so one abstract sentence
can be realised in both languages. Core words come first (most frequent); pseudo-words made of
language-typical syllables fill the long tail, giving thousands of word forms with regular
morphology (plural nouns, past forms, German adjective endings) and Zipfian frequencies.

Example::

    >>> lex = build_lexicon(7, LexiconSizes(nouns=50, trans=20, intrans=10, adjs=20))
    >>> lex.nouns[0].en_sg, lex.nouns[0].de_pl
    ('dog', 'Hunde')
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass, field

__all__ = ["Adj", "Lexicon", "LexiconSizes", "Noun", "Verb", "Zipf", "build_lexicon"]

# Person/number slots of verb paradigms: 1sg 2sg 3sg 1pl 2pl 3pl.
SLOTS = ((1, "Sing"), (2, "Sing"), (3, "Sing"), (1, "Plur"), (2, "Plur"), (3, "Plur"))


def slot(person: int, number: str) -> int:
    return SLOTS.index((person, number))


@dataclass(frozen=True, slots=True)
class Noun:
    en_sg: str
    en_pl: str
    de_sg: str
    de_pl: str
    gender: str  # German gender: Masc, Fem, Neut

    @property
    def de_dat_pl(self) -> str:
        return self.de_pl if self.de_pl.endswith(("n", "s")) else self.de_pl + "n"


@dataclass(frozen=True, slots=True)
class Verb:
    en_base: str
    en_s3: str
    en_past: str
    de_inf: str
    de_pres: tuple[str, ...]  # six slots
    de_past: tuple[str, ...]
    transitive: bool


@dataclass(frozen=True, slots=True)
class Adj:
    en: str
    de: str  # stem; attributive forms add -e/-en/-er/-es
    antonym: int = -1  # index of the antonym in Lexicon.adjs, or -1


# --------------------------------------------------------------------------- morphology


def en_s(word: str) -> str:
    """English -s: plural nouns and 3rd person singular verbs."""
    if word.endswith(("s", "sh", "ch", "x", "z")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def en_ed(word: str) -> str:
    """English regular past."""
    if word.endswith("e"):
        return word + "d"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ied"
    return word + "ed"


def de_weak(stem: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Present and past paradigms of a regular (weak) German verb stem."""
    e = "e" if stem.endswith(("t", "d")) else ""
    st = "t" if stem.endswith(("s", "z", "ß")) else "st"
    pres = (stem + "e", stem + e + st, stem + e + "t", stem + "en", stem + e + "t", stem + "en")
    past = tuple(stem + e + "te" + end for end in ("", "st", "", "n", "t", "n"))
    return pres, past


def de_plural(sg: str, gender: str) -> str:
    if sg.endswith("e"):
        return sg + "n"
    if gender == "Fem":
        return sg + ("n" if sg.endswith(("el", "er")) else "en")
    return sg + "e"


def de_adj(stem: str, ending: str) -> str:
    """Attributive German adjective: stem + ending, without doubling a final e."""
    if not ending:
        return stem
    return stem + (ending[1:] if stem.endswith("e") else ending)


# --------------------------------------------------------------------------- the core lexicon

_CORE_NOUNS = """dog dogs Hund Hunde Masc|cat cats Katze Katzen Fem|girl girls Mädchen Mädchen Neut
|man men Mann Männer Masc|woman women Frau Frauen Fem|child children Kind Kinder Neut
|king kings König Könige Masc|house houses Haus Häuser Neut|garden gardens Garten Gärten Masc
|city cities Stadt Städte Fem|river rivers Fluss Flüsse Masc|book books Buch Bücher Neut
|table tables Tisch Tische Masc|teacher teachers Lehrer Lehrer Masc|bird birds Vogel Vögel Masc
|tree trees Baum Bäume Masc|car cars Auto Autos Neut|letter letters Brief Briefe Masc
|friend friends Freund Freunde Masc|horse horses Pferd Pferde Neut|mouse mice Maus Mäuse Fem
|window windows Fenster Fenster Neut|school schools Schule Schulen Fem
|street streets Straße Straßen Fem|door doors Tür Türen Fem|apple apples Apfel Äpfel Masc
|song songs Lied Lieder Neut|ship ships Schiff Schiffe Neut|village villages Dorf Dörfer Neut
|mountain mountains Berg Berge Masc|bridge bridges Brücke Brücken Fem
|flower flowers Blume Blumen Fem|doctor doctors Arzt Ärzte Masc"""

# en base, en past (or "" for regular), German infinitive; strong German verbs give paradigms.
_CORE_TRANS = """see saw sehen|find found finden|visit - besuchen|paint - malen|hear heard hören
|love - lieben|build built bauen|ask - fragen|cook - kochen|show - zeigen|praise - loben
|fetch - holen|fill - füllen|share - teilen|lead led führen|steer - lenken|save - retten
|seek sought suchen|buy bought kaufen"""
_CORE_INTRANS = """sleep slept schlafen|walk - laufen|laugh - lachen|play - spielen|live - wohnen
|cry - weinen|dream - träumen|cough - husten|work - arbeiten|talk - reden|wait - warten
|dance - tanzen"""
_STRONG_DE = {
    "sehen": ("sehe siehst sieht sehen seht sehen", "sah sahst sah sahen saht sahen"),
    "finden": (
        "finde findest findet finden findet finden",
        "fand fandst fand fanden fandet fanden",
    ),
    "schlafen": (
        "schlafe schläfst schläft schlafen schlaft schlafen",
        "schlief schliefst schlief schliefen schlieft schliefen",
    ),
    "laufen": ("laufe läufst läuft laufen lauft laufen", "lief liefst lief liefen lieft liefen"),
}
_CORE_ADJS = """big groß small klein|old alt young jung|happy froh sad traurig|loud laut quiet still
|rich reich poor arm|cold kalt warm warm|fast schnell slow langsam|red rot green grün
|tired müde hungry hungrig|strong stark wild wild|new neu famous berühmt|clever klug brave tapfer"""


def _core_nouns() -> list[Noun]:
    out = []
    for item in _CORE_NOUNS.replace("\n", "").split("|"):
        en_sg, en_pl, de_sg, de_pl, gender = item.split()
        out.append(Noun(en_sg, en_pl, de_sg, de_pl, gender))
    return out


def _core_verbs(table: str, transitive: bool) -> list[Verb]:
    out = []
    for item in table.replace("\n", "").split("|"):
        base, past, de_inf = item.split()
        stem = de_inf[:-2]
        pres, de_past = de_weak(stem)
        if de_inf in _STRONG_DE:
            p, q = _STRONG_DE[de_inf]
            pres, de_past = tuple(p.split()), tuple(q.split())
        past = en_ed(base) if past == "-" else past
        out.append(Verb(base, en_s(base), past, de_inf, pres, de_past, transitive))
    return out


def _core_adjs() -> list[Adj]:
    out: list[Adj] = []
    for item in _CORE_ADJS.replace("\n", "").split("|"):
        en1, de1, en2, de2 = item.split()
        i = len(out)
        out += [Adj(en1, de1, i + 1), Adj(en2, de2, i)]
    return out


# --------------------------------------------------------------------------- pseudo-words

_ONSETS_EN = "b bl br c cl cr d dr f fl fr g gl gr h j l m n p pl pr s sl sn sp st t tr v w"
_ONSETS_DE = "b bl br d f fl fr g gr h k kl kr l m n p pf r s sch schl schw st str t w z"
_VOWELS_EN = "a e i o u ee oo ai ea ou"
_VOWELS_DE = "a e i o u ei au ie ä ö ü"
_SYLLABLES = {
    "en": (
        _ONSETS_EN.split(" "),
        _VOWELS_EN.split(" "),
        ["", "", "n", "m", "l", "r", "t", "st", "nd", "mp", "nk", "ck", "sh", "rn"],
    ),
    "de": (
        _ONSETS_DE.split(" "),
        _VOWELS_DE.split(" "),
        ["", "", "n", "m", "l", "r", "rt", "lt", "nk", "ng", "ck", "ch", "rn", "lm"],
    ),
}


def pseudo_word(r: random.Random, lang: str, syllables: int) -> str:
    onsets, vowels, codas = _SYLLABLES[lang]
    parts = []
    for i in range(syllables):
        parts.append(r.choice(onsets) + r.choice(vowels))
        if i == syllables - 1 or r.random() < 0.15:
            parts.append(r.choice(codas))
    return "".join(parts)


@dataclass(frozen=True)
class LexiconSizes:
    """How many pseudo-lexemes to add to the core, per class."""

    nouns: int = 1500
    trans: int = 450
    intrans: int = 150
    adjs: int = 300


@dataclass
class Lexicon:
    """Lexemes by class, most frequent first (index = frequency rank within the class)."""

    nouns: list[Noun]
    trans: list[Verb]
    intrans: list[Verb]
    adjs: list[Adj]
    used: dict[str, set[str]] = field(default_factory=dict)

    def n_forms(self, lang: str) -> int:
        return len(self.used.get(lang, ()))


class _Namer:
    """Fresh pseudo-words that collide with no form already in use (case-insensitive)."""

    def __init__(self, r: random.Random, used: dict[str, set[str]]) -> None:
        self.r = r
        self.used = used

    def fresh(self, lang: str, make: object) -> tuple[str, ...]:
        while True:
            stem = pseudo_word(self.r, lang, self.r.choice((1, 2, 2, 2)))
            if not 3 <= len(stem) <= 9 or stem.endswith(("e", "t", "d")):
                continue
            forms = make(stem)  # type: ignore[operator]
            low = {f.lower() for f in forms}
            if low & self.used[lang] or len(low) < len(set(forms)):
                continue
            self.used[lang] |= low
            return forms


def build_lexicon(seed: int, sizes: LexiconSizes = LexiconSizes()) -> Lexicon:
    """The core lexicon plus ``sizes`` pseudo-lexemes per class, seeded."""
    from xprobe.files import rng

    r = rng(seed, "sample", "lexicon")
    lex = Lexicon(_core_nouns(), _core_verbs(_CORE_TRANS, True), [], _core_adjs())
    lex.intrans = _core_verbs(_CORE_INTRANS, False)
    used: dict[str, set[str]] = {"en": set(), "de": set()}
    for n in lex.nouns:
        used["en"] |= {n.en_sg, n.en_pl}
        used["de"] |= {n.de_sg.lower(), n.de_pl.lower(), n.de_dat_pl.lower()}
    for v in lex.trans + lex.intrans:
        used["en"] |= {v.en_base, v.en_s3, v.en_past}
        used["de"] |= set(v.de_pres) | set(v.de_past)
    for a in lex.adjs:
        used["en"].add(a.en)
        used["de"] |= {de_adj(a.de, e) for e in ("", "e", "en", "er", "es")}
    used["en"] |= set(CLOSED["en"])
    used["de"] |= {w.lower() for w in CLOSED["de"]}
    namer = _Namer(r, used)
    for _ in range(sizes.nouns):
        gender = r.choice(("Masc", "Masc", "Fem", "Fem", "Neut"))
        (en_sg, en_pl) = namer.fresh("en", lambda s: (s, en_s(s)))
        de = namer.fresh("de", lambda s, g=gender: _de_noun_forms(s.capitalize(), g))
        lex.nouns.append(Noun(en_sg, en_pl, de[0], de[1], gender))
    for target, count, trans in (
        (lex.trans, sizes.trans, True),
        (lex.intrans, sizes.intrans, False),
    ):
        for _ in range(count):
            base, s3, past = namer.fresh("en", lambda s: (s, en_s(s), en_ed(s)))
            de = namer.fresh("de", lambda s: (s + "en", *de_weak(s)[0], *de_weak(s)[1]))
            target.append(Verb(base, s3, past, de[0], tuple(de[1:7]), tuple(de[7:13]), trans))
    for _ in range(sizes.adjs):
        (en,) = namer.fresh("en", lambda s: (s,))
        de = namer.fresh("de", lambda s: tuple(de_adj(s, e) for e in ("", "e", "en", "er", "es")))
        lex.adjs.append(Adj(en, de[0]))
    lex.used = used
    return lex


def _de_noun_forms(sg: str, gender: str) -> tuple[str, ...]:
    pl = de_plural(sg, gender)
    dat = pl if pl.endswith(("n", "s")) else pl + "n"
    return (sg, pl) if dat == pl else (sg, pl, dat)


# Closed-class words per language (kept out of the pseudo-word space).
_CLOSED_EN = """the a an of with in near behind from at to and but or because while although
if i you he she we they it am is are was were do does did not very quite rather yesterday
earlier now today often again rarely always"""
_CLOSED_DE = """der die das den dem des ein eine einen einem einer eines von mit in bei hinter aus
an zu im am zum zur vom beim und aber oder weil während obwohl wenn ich du er sie wir es bin
bist ist sind seid war warst waren wart nicht sehr ziemlich recht gestern früher jetzt heute
oft wieder selten immer kein"""
CLOSED = {"en": _CLOSED_EN.split(), "de": _CLOSED_DE.split()}


class Zipf:
    """Draw an index in ``0..n-1`` with probability proportional to ``1 / (i + 2) ** s``."""

    def __init__(self, n: int, s: float = 1.0) -> None:
        total = 0.0
        self.cum: list[float] = []
        for i in range(n):
            total += 1.0 / (i + 2) ** s
            self.cum.append(total)
        self.total = total

    def draw(self, r: random.Random) -> int:
        return min(bisect.bisect_left(self.cum, r.random() * self.total), len(self.cum) - 1)

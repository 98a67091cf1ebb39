"""Agreement pairs from gold trees: the main clause's agreeing verb in another, attested form.

In each gold sentence, the verb that carries agreement is the finite root (a ``VERB`` or
``AUX``), else the root's finite ``aux`` or ``cop`` (the profile's ``aux_rels`` and
``finite_feature``); its subject is the root's one ``nsubj`` (the profile's ``subj_rel``). For
each agreement feature the verb carries (Number; Person and Gender where the language marks them
on the verb) and on which the subject agrees with it in gold (a subject noun without ``Person``
is third person), the ungrammatical side replaces the verb by a form of the same lemma and part
of speech whose features are the verb's with only that feature changed, **attested** with
exactly those features in the treebank itself (the most frequent such form; ties by the form).
A form equal to the verb's (syncretism: English "put") makes no pair; a verb inside a multiword
token is left alone. The one change made to an attested form: it is capitalised when it replaces
a capitalised sentence-initial verb.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator

from xprobe.languages import LanguageProfile
from xprobe.ud import Sentence, Word

__all__ = ["AGREEMENT_SOURCE", "FEATURES", "Lexicon", "agreement_pairs"]

# what an agreement pair needs, for an n/a reason (% the feature)
AGREEMENT_SOURCE = (
    "sentences whose main-clause verb agrees with its one subject in %s and has an attested form "
    "with only that feature changed"
)
FEATURES = {"agreement_number": "Number", "agreement_person": "Person",
            "agreement_gender": "Gender"}  # fmt: skip


def _split_feats(feats: str, name: str) -> tuple[str, str | None]:
    """(the other features, the value of ``name``)."""
    if feats == "_":
        return "_", None
    rest, value = [], None
    for item in feats.split("|"):
        key, _, v = item.partition("=")
        if key == name:
            value = v
        else:
            rest.append(item)
    return "|".join(rest) or "_", value


class Lexicon:
    """Forms seen per (lemma, UPOS, the other features, one feature's value)."""

    def __init__(self, feature: str) -> None:
        self.feature = feature
        self.forms: dict[tuple[str, str, str], dict[str, Counter[str]]] = defaultdict(
            lambda: defaultdict(Counter)
        )
        self.verbs_marked = 0  # finite verbs carrying the feature

    def add(self, sentences: Iterable[Sentence], profile: LanguageProfile) -> None:
        verbs = (*profile.verb_upos, "AUX")
        for s in sentences:
            for w in s.words:
                if w.upos not in verbs:
                    continue
                rest, value = _split_feats(w.feats, self.feature)
                if value is not None:
                    self.forms[(w.lemma, w.upos, rest)][value][w.form] += 1
                    self.verbs_marked += profile.finite_feature in w.feats.split("|")

    def other(self, w: Word) -> tuple[str, str] | None:
        """(value, form): the attested form of ``w``'s lemma with only the feature changed."""
        rest, value = _split_feats(w.feats, self.feature)
        seen = self.forms.get((w.lemma, w.upos, rest), {})
        best: tuple[int, str, str] | None = None
        for v, forms in sorted(seen.items()):
            if v == value:
                continue
            count, form = max((c, f) for f, c in sorted(forms.items(), reverse=True))
            if best is None or count > best[0]:
                best = (count, v, form)
        return None if best is None else (best[1], best[2])


def _agreeing_verb(s: Sentence, profile: LanguageProfile) -> tuple[Word, Word] | None:
    """(the verb carrying agreement, its subject) of the main clause, or None."""
    root = next((w for w in s.words if w.head == 0), None)
    if root is None:
        return None
    kids = [w for w in s.words if w.head == root.id]
    subjects = [w for w in kids if w.base_deprel == profile.subj_rel]
    if len(subjects) != 1:
        return None
    finite = profile.finite_feature
    if root.upos in (*profile.verb_upos, "AUX") and finite in root.feats.split("|"):
        return root, subjects[0]
    auxes = [w for w in kids if w.base_deprel in profile.aux_rels and finite in w.feats.split("|")]
    return (auxes[0], subjects[0]) if auxes else None


def _subject_value(subject: Word, feature: str, profile: LanguageProfile) -> str | None:
    value = subject.feat(feature)
    if value is None and feature == "Person" and subject.upos in (*profile.noun_upos, "PROPN"):
        return "3"
    return value


def agreement_pairs(
    sentences: Iterable[Sentence], lexicon: Lexicon, profile: LanguageProfile
) -> Iterator[tuple[Sentence, str, str]]:
    """(gold sentence, the ungrammatical text, what changed) for every sentence that gives a
    pair for ``lexicon.feature``."""
    feature = lexicon.feature
    for s in sentences:
        found = _agreeing_verb(s, profile)
        if found is None:
            continue
        verb, subject = found
        value = verb.feat(feature)
        if value is None or _subject_value(subject, feature, profile) != value:
            continue
        other = lexicon.other(verb)
        if other is None:
            continue
        new_value, form = other
        at = s.surface_index_of_word()[verb.id - 1]
        token = s.surface[at]
        if token.first != token.last or form.casefold() == verb.form.casefold():
            continue
        if at == 0 and verb.form[:1].isupper() and form[:1].islower():
            form = form[:1].upper() + form[1:]
        tokens = list(s.tokens)
        tokens[at] = form
        change = f"{verb.form} -> {form} {feature}={value}->{new_value}"
        yield s, " ".join(tokens), change

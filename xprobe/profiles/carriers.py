"""Where a treebank that does not annotate what a task's rule reads may still carry it.

A draft (:mod:`xprobe.profiles.draft`) that finds a task not applicable because the treebank
never has what the rule reads (kind ``annotation``) looks for a likely carrier of the category
elsewhere in the annotation and, where it finds one, says so in the reason and names the rule of
:mod:`xprobe.tasks.past_present` that could read it; a person then reviews the profile and
selects the rule. For Tense:

* finite auxiliaries or verbs (``VerbForm=Fin`` or a ``Mood``) without ``Tense`` while several
  forms share one lemma (Basque: past *zuen, zen, zuten* and present *du, da, dute*, lemmas
  *edun*, *izan*): rule ``listed``, the past forms listed in the profile (``past_forms``);
* a ``+``-segmented LEMMA or XPOS (Korean: ``하+었+습니다``, ``pvg+ep+ef``): rule ``segment``, a
  past morpheme inside the word (``past_segments``, ``segment_column``);
* ``Tense`` with past or future values but never ``Pres`` (Hebrew: the present is a participle,
  ``VerbForm=Part``): rule ``participle``.

Example::

    >>> tense_carriers(sentences, ("Pres",))  # doctest: +SKIP
    ['likely carrier: 14 finite AUX/VERB (VerbForm=Fin or a Mood) have no Tense while several
    forms share one lemma (izan: da, dira, zen; ...): rule "listed" could read them ...']
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from xprobe.ud import Sentence, Word

__all__ = ["finite_without_tense", "participle_present", "segmented", "tense_carriers"]

VERBAL = ("AUX", "VERB")
MIN_TOKENS = 5  # fewer carriers than this are not worth a rule
MIN_FORMS = 3  # distinct forms of one lemma: more than a single inflection pair


def _finite(w: Word) -> bool:
    return w.upos in VERBAL and (w.feat("VerbForm") == "Fin" or w.feat("Mood") is not None)


def finite_without_tense(sentences: Sequence[Sentence]) -> str | None:
    """Finite AUX/VERB without ``Tense`` whose lemmas each cover several forms, or None."""
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    n = 0
    for s in sentences:
        for w in s.words:
            if _finite(w) and w.feat("Tense") is None:
                forms[w.lemma].update([w.form.lower()])
                n += 1
    shared = sorted(
        ((lem, c) for lem, c in forms.items() if lem != "_" and len(c) >= MIN_FORMS),
        key=lambda x: (-sum(x[1].values()), x[0]),
    )
    if n < MIN_TOKENS or not shared:
        return None
    shown = "; ".join(
        f"{lem}: {', '.join(f for f, _ in sorted(c.items(), key=lambda x: (-x[1], x[0]))[:6])}"
        for lem, c in shared[:3]
    )
    return (
        f"likely carrier: {n} finite {'/'.join(VERBAL)} (VerbForm=Fin or a Mood) have no Tense "
        f'while several forms share one lemma ({shown}): rule "listed" could read them, with '
        "the past forms listed in the profile (past_forms = [...])"
    )


def _segmented(value: str) -> bool:
    parts = value.split("+")
    return len(parts) > 1 and all(parts)


def segmented(sentences: Sequence[Sentence]) -> str | None:
    """Roots whose LEMMA or XPOS is ``+``-segmented (``하+었+습니다``, ``pvg+ep+ef``), or None."""
    roots = [w for s in sentences for w in s.words if w.head == 0]
    found: dict[str, list[Word]] = {"LEMMA": [], "XPOS": []}
    for w in roots:
        if _segmented(w.lemma):
            found["LEMMA"].append(w)
        if _segmented(w.xpos):
            found["XPOS"].append(w)
    cols = [c for c, ws in found.items() if len(ws) >= MIN_TOKENS]
    if not cols:
        return None
    example = found[cols[0]][0]
    shown = " and ".join(
        f"{len(found[c])} of {len(roots)} roots have a +-segmented {c}" for c in cols
    )
    return (
        f"likely carrier: {shown} (e.g. {example.form}: LEMMA {example.lemma}, XPOS "
        f'{example.xpos}): rule "segment" could read a past morpheme inside them '
        f'(past_segments = [...], segment_column = "{cols[-1].lower()}")'
    )


def participle_present(sentences: Sequence[Sentence], pres: Sequence[str]) -> str | None:
    """``Tense`` with values but never a present one, and participles that may carry it."""
    tense: Counter[str] = Counter()
    parts = 0
    for s in sentences:
        for w in s.words:
            v = w.feat("Tense")
            if v is not None:
                tense[v] += 1
            if w.upos in VERBAL and w.feat("VerbForm") == "Part":
                parts += 1
    if not tense or any(v in tense for v in pres) or parts < MIN_TOKENS:
        return None
    values = ", ".join(v for v, _ in tense.most_common())
    return (
        f"likely carrier: FEATS Tense has {values} but never {', '.join(pres)}, and {parts} "
        f'{"/".join(VERBAL)} are participles (VerbForm=Part): rule "participle" could read '
        "them as the present"
    )


def tense_carriers(sentences: Sequence[Sentence], pres: Sequence[str]) -> list[str]:
    """Every likely carrier of tense found outside what the Tense rules read (``pres``: the
    profile's present values), each naming the rule that could read it."""
    found = [
        finite_without_tense(sentences),
        segmented(sentences),
        participle_present(sentences, pres),
    ]
    return [f for f in found if f is not None]

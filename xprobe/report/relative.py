"""Pair each encoder of a language with its reference-language counterpart (X-Probe Figure 4).

A mapped student is paired with the encoder it was mapped from: its records carry the teacher's
``encoder_id`` in ``mapped_from`` (written by ``probe`` from the checkpoint's own metadata), so
``de-bilstm-max`` pairs with ``en-bilstm-max`` whatever the folders are called. Without that
field, an encoder pairs with the reference encoder of the same name (a bag of vectors or a
multilingual encoder probed in both languages). An encoder that pairs neither way pairs *by
kind* with the one reference encoder of its kind: a bag of vectors (``bov:``/``pmeans:``) over
each language's own vectors is named after its vector file (``bov-en``, ``bov-fi``), but its
``encoder_id`` gives its pooling and casing (``bov-mean:<vectors>:cased``), which must agree
(:func:`encoder_kind`). Pairs are made only between tables of the same dataset, classifier and
setting; what does not pair is reported with how to name it, never dropped silently.

Example::

    pairs, unpaired = pair_rows(de_table, en_table)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xprobe.report.tables import Table

__all__ = ["Pair", "encoder_kind", "left_out_note", "pair_rows", "reference_table"]

_BOV_ID = re.compile(r"(bov-[A-Za-z]+):[^:]*:(lc|cased)")


@dataclass
class Pair:
    """Row ``row`` of the language table against row ``ref_row`` of the reference table."""

    label: str
    row: int
    ref_row: int
    how: str  # "teacher", "name" or "kind (...)"


def reference_table(table: Table, tables: list[Table], reference: str) -> Table | None:
    """The reference-language table with the same dataset, classifier and setting."""
    want = (table.dataset, table.classifier, reference, table.setting_key())
    for t in tables:
        if (t.dataset, t.classifier, t.language, t.setting_key()) == want:
            return t
    return None


def _mapped_from(table: Table, i: int) -> str | None:
    for cell in table.rows[i][1]:
        for e in cell:
            if e.get("mapped_from"):
                return str(e.get("mapped_from"))
    return None


def encoder_kind(encoder_id: str) -> str | None:
    """The kind of a bag-of-vectors encoder from its id (``bov-mean:<fp>:cased`` -> ``bov-mean``,
    ``... (lower-cased)`` for ``:lc``); None for other encoders."""
    m = _BOV_ID.fullmatch(encoder_id)
    if m is None:
        return None
    return m.group(1) + (" (lower-cased)" if m.group(2) == "lc" else "")


def pair_rows(table: Table, ref: Table) -> tuple[list[Pair], list[str]]:
    """Pairs of (language row, reference row) for encoder rows; the labels left unpaired."""
    nb = len(table.rows) - len(table.encoder_rows)  # baseline rows come first
    rb = len(ref.rows) - len(ref.encoder_rows)
    by_id = {eid: rb + j for j, (_, eid) in enumerate(ref.encoder_rows)}
    by_name: dict[str, list[int]] = {}
    for j, (name, _) in enumerate(ref.encoder_rows):
        by_name.setdefault(name, []).append(rb + j)
    pairs, left = [], []
    for i, (name, eid) in enumerate(table.encoder_rows):
        label = table.rows[nb + i][0]
        teacher = _mapped_from(table, nb + i)
        if teacher is not None and teacher in by_id:
            j = by_id[teacher]
            mapped = f"{table.language}, mapped from {ref.language} {ref.rows[j][0]}"
            pairs.append(Pair(f"{label} ({mapped})", nb + i, j, "teacher"))
        elif teacher is None and len(by_name.get(name, [])) == 1:
            pairs.append(Pair(label, nb + i, by_name[name][0], "name"))
        else:
            left.append((i, name, eid, teacher))
    pairs += _by_kind(table, ref, [x for x in left if x[3] is None], {p.ref_row for p in pairs})
    pairs.sort(key=lambda p: p.row)
    done = {p.row for p in pairs}
    unpaired = [_why(table.rows[nb + i][0], name, teacher, ref.language)
                for i, name, _, teacher in left if nb + i not in done]  # fmt: skip
    return pairs, unpaired


def _by_kind(table: Table, ref: Table, left: list, taken: set[int]) -> list[Pair]:
    """Pairs of rows with no teacher and no same-name counterpart, by :func:`encoder_kind`,
    where the kind names exactly one row on each side."""
    nb = len(table.rows) - len(table.encoder_rows)
    rb = len(ref.rows) - len(ref.encoder_rows)
    mine: dict[str, list[int]] = {}
    for i, _, eid, _ in left:
        if (kind := encoder_kind(str(eid))) is not None:
            mine.setdefault(kind, []).append(nb + i)
    theirs: dict[str, list[int]] = {}
    for j, (_, eid) in enumerate(ref.encoder_rows):
        if rb + j not in taken and (kind := encoder_kind(str(eid))) is not None:
            theirs.setdefault(kind, []).append(rb + j)
    pairs = []
    for kind, rows in mine.items():
        if len(rows) == 1 and len(theirs.get(kind, [])) == 1:
            row, j = rows[0], theirs[kind][0]
            pairs.append(
                Pair(f"{table.rows[row][0]} vs {ref.rows[j][0]}", row, j, f"kind ({kind})")
            )
    return sorted(pairs, key=lambda p: p.row)


def _why(label: str, name: str, teacher: str | None, ref_lang: str) -> str:
    if teacher is not None:
        return f"{label} (its teacher {teacher} was not probed in {ref_lang} with this setting)"
    return (
        f"{label} (no teacher recorded and no single {ref_lang} encoder named {name} or of its "
        f"kind; to pair it, probe both with one name: `--name NAME` or `[name=NAME]` in the "
        "encoder spec)"
    )


def left_out_note(t: Table, ref: Table, shown: frozenset[str] = frozenset()) -> str:
    """A note naming the tasks of either table that the other lacks (e.g. a task the probe did
    not score in the reference language: X-Probe's English TreeDepth, whose te is a copy of va),
    but those ``shown`` in the figure as n/a."""
    sides = (([x for x in t.tasks if x not in {*ref.tasks, *shown}], ref.language),
             ([x for x in ref.tasks if x not in {*t.tasks, *shown}], t.language))  # fmt: skip
    notes = [f"{', '.join(x)}: no {lang} result (not probed, or dropped when scoring; see the "
             "probe's warnings)" for x, lang in sides if x]  # fmt: skip
    return f"\nLeft out of this figure: {'; '.join(notes)}.\n" if notes else ""

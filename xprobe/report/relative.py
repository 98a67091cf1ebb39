"""Pair each encoder of a language with its reference-language counterpart (X-Probe Figure 4).

A mapped student is paired with the encoder it was mapped from: its records carry the teacher's
``encoder_id`` in ``mapped_from`` (written by ``probe`` from the checkpoint's own metadata), so
``de-bilstm-max`` pairs with ``en-bilstm-max`` whatever the folders are called. Without that
field, an encoder pairs with the reference encoder of the same name (a bag of vectors or a
multilingual encoder probed in both languages). Pairs are made only between tables of the same
dataset, classifier and setting; what does not pair is reported, never dropped silently.

Example::

    pairs, unpaired = pair_rows(de_table, en_table)
"""

from __future__ import annotations

from dataclasses import dataclass

from xprobe.report.tables import Table

__all__ = ["Pair", "pair_rows", "reference_table"]


@dataclass
class Pair:
    """Row ``row`` of the language table against row ``ref_row`` of the reference table."""

    label: str
    row: int
    ref_row: int
    how: str  # "teacher" or "name"


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


def pair_rows(table: Table, ref: Table) -> tuple[list[Pair], list[str]]:
    """Pairs of (language row, reference row) for encoder rows; the labels left unpaired."""
    nb = len(table.rows) - len(table.encoder_rows)  # baseline rows come first
    rb = len(ref.rows) - len(ref.encoder_rows)
    by_id = {eid: rb + j for j, (_, eid) in enumerate(ref.encoder_rows)}
    by_name: dict[str, list[int]] = {}
    for j, (name, _) in enumerate(ref.encoder_rows):
        by_name.setdefault(name, []).append(rb + j)
    pairs, unpaired = [], []
    for i, (name, _eid) in enumerate(table.encoder_rows):
        label = table.rows[nb + i][0]
        teacher = _mapped_from(table, nb + i)
        if teacher is not None and teacher in by_id:
            j = by_id[teacher]
            pairs.append(Pair(f"{label} vs {ref.rows[j][0]}", nb + i, j, "teacher"))
        elif teacher is None and len(by_name.get(name, [])) == 1:
            pairs.append(Pair(label, nb + i, by_name[name][0], "name"))
        else:
            why = (
                f"its teacher {teacher} was not probed in {ref.language} with this setting"
                if teacher is not None
                else f"no teacher recorded and no single {ref.language} encoder named {name}"
            )
            unpaired.append(f"{label} ({why})")
    return pairs, unpaired

"""Tasks that do not apply, in the report: "n/a" with a footnote mark, never a gap, never prose.

The probe writes, for a task that ``extract`` marked not applicable, records with
``not_applicable`` (the reason), its ``kind`` (``language``, ``annotation`` or ``corpus``) and no
value (:mod:`xprobe.probe.not_applicable`). They are taken out before the numbers are grouped
(:func:`split_records`) into :class:`NotApplicables`: one footnote mark per reason (``n/a³``),
used by every table and heatmap of that dataset and language (:func:`add_na_columns`: the
task's column is kept, "n/a" in each row, the mark on the ``n_test`` row), and one table of
reasons at the end of report.md (:meth:`NotApplicables.section`). A record written before kinds
shows its reason alone.

Example::

    records, na = split_records(records)
    na.mark("ud", "ta", "Tense")   # 'n/a¹'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from xprobe.report.md import md_table
from xprobe.report.tables import Table, order_tasks

__all__ = ["NotApplicable", "NotApplicables", "add_na_columns", "split_records"]

_SUP = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True)
class NotApplicable:
    """Why a task does not apply: the reason and its kind (``""``: a record before kinds)."""

    reason: str
    kind: str = ""


@dataclass
class NotApplicables:
    """(dataset, language, task) -> why; a footnote mark per distinct (kind, reason)."""

    cells: dict[tuple[str, str, str], NotApplicable] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._marks: dict[NotApplicable, str] = {}
        for key in sorted(self.cells):
            why = self.cells[key]
            self._marks.setdefault(why, str(len(self._marks) + 1).translate(_SUP))

    def mark(self, dataset: str, language: str, task: str) -> str:
        """``n/a`` with the footnote mark of its reason; "" when the task applies."""
        why = self.cells.get((dataset, language, task))
        return "" if why is None else "n/a" + self._marks[why]

    def section(self) -> list[str]:
        """report.md's table of reasons (kind ``language``: the language has no such category;
        ``annotation``: the treebank does not annotate what the rule reads; ``corpus``: too few
        candidates), one row per mark."""
        if not self.cells:
            return []
        rows = [[self._marks[why], ds, lang, task, why.kind or "unknown", why.reason]
                for (ds, lang, task), why in sorted(self.cells.items())]  # fmt: skip
        head = ["mark", "dataset", "language", "task", "kind", "reason"]
        return [
            "## Tasks that do not apply\n\nA cell `n/a` carries the mark of its reason. Kind "
            "`language`: a reviewed profile says the language has no such category; "
            "`annotation`: the treebank does not annotate what the task's rule reads; "
            "`corpus`: too few candidates.\n\n" + md_table(head, rows)
        ]


def split_records(
    records: Iterable[dict[str, Any]],
) -> tuple[list[dict[str, Any]], NotApplicables]:
    """(records with a value, the n/a ones as :class:`NotApplicables`)."""
    keep: list[dict[str, Any]] = []
    na: dict[tuple[str, str, str], NotApplicable] = {}
    for r in records:
        if "not_applicable" in r:
            why = NotApplicable(str(r["not_applicable"]), str(r.get("kind") or ""))
            na[(r["dataset"], r["language"], r["task"])] = why
        else:
            keep.append(r)
    return keep, NotApplicables(na)


def add_na_columns(
    t: Table, header: list[str], body: list[list[str]], na: NotApplicables
) -> tuple[list[str], list[list[str]]]:
    """The table's header and rows with a column for each n/a task of its dataset and language
    that it lacks, in task order: "n/a" in every row, the marked "n/a¹" on the ``n_test`` row
    (else the first)."""
    mine = {task for (ds, lang, task) in na.cells
            if (ds, lang) == (t.dataset, t.language) and task not in header[1:]}  # fmt: skip
    if not mine:
        return header, body
    tasks = order_tasks(set(header[1:]) | mine)
    old = {name: i for i, name in enumerate(header)}
    names = [row[0] for row in body]
    said = names.index("n_test") if "n_test" in names else 0
    rows = []
    for i, row in enumerate(body):
        cells = [row[0]]
        for task in tasks:
            if task in mine:
                cells.append(na.mark(t.dataset, t.language, task) if i == said else "n/a")
            else:
                cells.append(row[old[task]])
        rows.append(cells)
    return [header[0], *tasks], rows

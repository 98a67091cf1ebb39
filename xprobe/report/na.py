"""Tasks that do not apply to a language, in the report: a cell "n/a (reason)", never a gap.

The probe writes, for a task that ``extract`` marked not applicable, records with
``not_applicable`` (the reason), its ``kind`` (``language``, ``annotation`` or ``corpus``) and no
value (:mod:`xprobe.probe.not_applicable`). They are taken out before the numbers are grouped
(:func:`split_records`); every table of that dataset and language then gets the task's column:
"n/a" in each row, "n/a (kind: reason)" on its n_test row (:func:`add_na_columns`), and
report.md lists them with their kind (:func:`na_section`). A record written before kinds shows
its reason alone.

Example::

    >>> header, body = add_na_columns(t, ["encoder", "SentLen"], [["bov", "61.0"]], na)
    ... # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from xprobe.languages import na_text
from xprobe.report.tables import Table, order_tasks

__all__ = ["NotApplicable", "add_na_columns", "na_section", "split_records"]


@dataclass(frozen=True)
class NotApplicable:
    """Why a task does not apply: the reason and its kind (``""``: a record before kinds)."""

    reason: str
    kind: str = ""

    def __str__(self) -> str:
        return na_text(self.reason, self.kind)


def split_records(
    records: Iterable[dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[tuple[str, str, str], NotApplicable]]:
    """(records with a value, ``{(dataset, language, task): NotApplicable}`` of the n/a ones)."""
    keep: list[dict[str, Any]] = []
    na: dict[tuple[str, str, str], NotApplicable] = {}
    for r in records:
        if "not_applicable" in r:
            why = NotApplicable(str(r["not_applicable"]), str(r.get("kind") or ""))
            na[(r["dataset"], r["language"], r["task"])] = why
        else:
            keep.append(r)
    return keep, na


def add_na_columns(
    t: Table,
    header: list[str],
    body: list[list[str]],
    na: dict[tuple[str, str, str], NotApplicable],
) -> tuple[list[str], list[list[str]]]:
    """The table's header and rows with a column for each n/a task of its dataset and language
    that it lacks, in task order: "n/a" in every row, "n/a (kind: reason)" on the ``n_test``
    row."""
    mine = {task: why for (ds, lang, task), why in na.items()
            if (ds, lang) == (t.dataset, t.language) and task not in header[1:]}  # fmt: skip
    if not mine:
        return header, body
    tasks = order_tasks(set(header[1:]) | set(mine))
    old = {name: i for i, name in enumerate(header)}
    new_header = [header[0], *tasks]
    # the reason once per column, on the n_test row (else the first row): every row repeating a
    # reason of a few lines made the tables of a study with many encoders unreadable
    names = [row[0] for row in body]
    said = names.index("n_test") if "n_test" in names else 0
    rows = []
    for i, row in enumerate(body):
        cells = [row[0]]
        for task in tasks:
            if task in mine:
                cells.append(f"n/a ({mine[task]})" if i == said else "n/a")
            else:
                cells.append(row[old[task]])
        rows.append(cells)
    return new_header, rows


def na_section(na: dict[tuple[str, str, str], NotApplicable]) -> list[str]:
    """A report.md section listing the tasks that do not apply, with their kinds and reasons
    (kind ``language``: the language has no such category; ``annotation``: the treebank does
    not annotate what the rule reads; ``corpus``: too few candidates)."""
    if not na:
        return []
    lines = [
        "## Tasks that do not apply\n",
        "Kind `language`: a reviewed profile says the language has no such category; "
        "`annotation`: the treebank does not annotate what the task's rule reads; `corpus`: "
        "too few candidates.\n",
        "| dataset | language | task | kind | reason |",
    ]
    lines.append("|---|---|---|---|---|")
    for (ds, lang, task), why in sorted(na.items()):
        lines.append(f"| {ds} | {lang} | {task} | {why.kind or 'unknown'} | {why.reason} |")
    return ["\n".join(lines) + "\n"]

"""A minimal pair and its file: one TSV per phenomenon, a row per pair.

Columns: ``split`` (tr/va/te, from the probing set), ``good`` (the gold sentence), ``bad`` (its
minimal change), ``source`` and ``line`` (the treebank file and line of the gold sentence),
``item`` (the 1-based line of the probing task file the pair comes from; ``_`` for agreement),
``change`` (what differs: ``swap 3-4``, ``ist -> sind Number=Sing->Plur``). Texts are the
probing files' surface tokens joined by single spaces.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from xprobe.errors import InputError
from xprobe.files import atomic_write, read_lines

__all__ = ["COLUMNS", "CONTROL_FOLDS", "PHENOMENA", "Pair", "read_pairs", "write_pairs"]

# phenomenon -> (the probing task it comes from, the label of its perturbed lines); agreement
# pairs come from the gold trees, not from a task
PHENOMENA: dict[str, tuple[str, str]] = {
    "bigram_shift": ("bigram_shift", "I"),
    "odd_man_out": ("odd_man_out", "C"),
    "coordination_inversion": ("coordination_inversion", "I"),
    "agreement_number": ("", ""),
    "agreement_person": ("", ""),
    "agreement_gender": ("", ""),
}
COLUMNS = ("split", "good", "bad", "source", "line", "item", "change")
CONTROL_FOLDS = 5  # the n-gram control is cross-fitted: trained on four folds, scores the fifth


@dataclass(frozen=True)
class Pair:
    split: str
    good: str
    bad: str
    source: str
    line: int
    item: int | None
    change: str

    @property
    def fold(self) -> int:
        """The control's fold of the pair: its gold sentence's, from its file's name and line
        (so that every pair of one sentence is in one fold)."""
        from xprobe.files import derive_seed

        return derive_seed(0, Path(self.source).name, self.line) % CONTROL_FOLDS

    def row(self) -> str:
        item = "_" if self.item is None else str(self.item)
        cells = (self.split, self.good, self.bad, self.source, str(self.line), item, self.change)
        return "\t".join(cells) + "\n"


def write_pairs(path: str | os.PathLike[str], pairs: Iterable[Pair]) -> int:
    """Write ``pairs`` atomically; returns how many."""
    n = 0
    with atomic_write(path) as f:
        for p in pairs:
            f.write(p.row())
            n += 1
    return n


def read_pairs(path: str | os.PathLike[str]) -> Iterator[Pair]:
    """The pairs of a phenomenon file; a malformed row is an :class:`InputError` naming it."""
    for n, line in read_lines(path):
        cells = line.rstrip("\n").split("\t")
        if len(cells) != len(COLUMNS):
            raise InputError(str(path), n, f"expected {len(COLUMNS)} tab-separated columns "
                             f"({', '.join(COLUMNS)}), found {len(cells)}")  # fmt: skip
        split, good, bad, source, ln, item, change = cells
        numbered = ln.isdigit() and (item.isdigit() or item == "_")
        if split not in ("tr", "va", "te") or not numbered:
            raise InputError(str(path), n, "expected split tr/va/te, a line number and an item "
                             "number or _")  # fmt: skip
        yield Pair(split, good, bad, source, int(ln), None if item == "_" else int(item), change)


def pairs_path(folder: str | os.PathLike[str], phenomenon: str) -> Path:
    return Path(folder) / f"{phenomenon}.tsv"

"""Pairs from the perturbed lines of a probing folder: BShift ``I``, SOMO ``C``, CoordInv ``I``.

Each such line is a gold sentence changed by the task's rule; its provenance row names the gold
sentence (treebank file and line), which is the grammatical side. The pair keeps the line's split
and its place in the task file, so that the probe's verdict on the same item can be read beside
the language model's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from xprobe.errors import InputError, XProbeError
from xprobe.files import read_lines
from xprobe.pairs.model import Pair
from xprobe.ud import Sentence

__all__ = ["describe_change", "perturbed_pairs"]


def perturbed_pairs(
    folder: Path, task: str, label: str, gold: dict[tuple[str, int], Sentence]
) -> Iterator[Pair]:
    """The pairs of ``task``'s lines labelled ``label``; ``gold``: the sentences of the
    provenance's sources by (file, line) (:func:`xprobe.pairs.build.gold_sentences`)."""
    lines = folder / f"{task}.txt"
    prov = folder / f"{task}.provenance.tsv"
    if not prov.is_file():
        raise XProbeError(
            f"{folder}: {task} has no provenance ({prov.name}); extract with --provenance (or "
            "--protocol cv:K) to build its pairs"
        )
    rows = read_lines(lines)
    for (n, line), (_, p) in _together(rows, read_lines(prov), lines, prov):
        split, lab, text = line.rstrip("\n").split("\t", 2)
        cells = p.rstrip("\n").split("\t")
        if len(cells) < 4 or cells[0] != split or cells[1] != lab:
            raise InputError(str(prov), n, f"does not match line {n} of {lines.name}")
        if lab != label:
            continue
        source, ln = cells[2], int(cells[3])
        sentence = gold.get((source, ln))
        if sentence is None:
            raise InputError(str(prov), n, f"names {source}:{ln}, where no sentence starts")
        good = sentence.text
        if good != text:
            yield Pair(split, good, text, source, ln, n, describe_change(good, text))


def _together(rows, prov_rows, lines: Path, prov: Path):  # type: ignore[no-untyped-def]
    """The task file's rows with their provenance rows; a file one line short is an error
    naming both (zip would drop the unmatched lines silently)."""
    try:
        yield from zip(rows, prov_rows, strict=True)
    except ValueError:
        why = f"does not have one row per line of {lines.name}"
        raise InputError(str(prov), None, why) from None


def describe_change(good: str, bad: str) -> str:
    """Where two token sequences differ: ``3: a b -> b a`` (1-based first differing token)."""
    g, b = good.split(" "), bad.split(" ")
    i = 0
    while i < min(len(g), len(b)) and g[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(g), len(b)) - i and g[-1 - j] == b[-1 - j]:
        j += 1
    left, right = g[i : len(g) - j], b[i : len(b) - j]
    return f"{i + 1}: {' '.join(left)} -> {' '.join(right)}"

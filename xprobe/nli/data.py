"""NLI pair readers: SNLI/MultiNLI jsonl(.gz), SNLI/MultiNLI txt with a header, plain tsv.

Layouts, chosen from the file name and first line:

- ``*.jsonl`` / ``*.jsonl.gz``: one JSON object per line with ``sentence1``, ``sentence2``,
  ``gold_label`` (SNLI 1.0, MultiNLI 1.0).
- ``*.txt`` / ``*.tsv`` whose first line is a header naming ``gold_label``, ``sentence1`` and
  ``sentence2`` columns (the SNLI/MultiNLI txt distribution).
- any other tab-separated file: ``premise<TAB>hypothesis<TAB>label`` (XNLI as exported by
  XTREME); a first line whose third field is not a label is taken as a header and skipped.

Labels are ``entailment``/``neutral``/``contradiction`` (``contradictory``, XNLI's spelling, is
accepted); pairs whose gold label is ``-``, empty or missing are dropped and counted.

Tokenisation: sentences are tokenised with the Moses tokenizer (sacremoses, ``escape=False``)
of the given language (default English), the tokenizer the probing sets were made with; the
SNLI ``*_binary_parse`` fields (PTB tokens: ``do n't``) are not used, so that NLI training and
probing see the same tokens. ``tokenizer="whitespace"`` splits on spaces (pre-tokenised text).

Example::

    pairs = list(read_nli("snli_1.0_dev.jsonl.gz"))
    pairs[0].premise[:3], pairs[0].label      # (['Two', 'women', 'are'], 1)
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from xprobe.errors import InputError, XProbeError
from xprobe.files import open_text

__all__ = [
    "NLI_LABELS",
    "IndexedPairs",
    "NLIPair",
    "ReadCounts",
    "index_pairs",
    "make_tokenizer",
    "padded_batch",
    "read_nli",
    "read_pairs",
]

log = logging.getLogger(__name__)

NLI_LABELS = ("entailment", "neutral", "contradiction")
_LABEL_INDEX = {name: i for i, name in enumerate(NLI_LABELS)} | {"contradictory": 2}
_NO_LABEL = {"", "-"}


@dataclass(frozen=True)
class NLIPair:
    """A tokenised premise/hypothesis pair and its label index into :data:`NLI_LABELS`."""

    premise: list[str]
    hypothesis: list[str]
    label: int


@dataclass
class ReadCounts:
    """What a reader kept and dropped."""

    kept: int = 0
    no_label: int = 0
    by_label: dict[str, int] = field(default_factory=dict)


def make_tokenizer(kind: str = "moses", lang: str = "en") -> Callable[[str], list[str]]:
    """A ``str -> tokens`` function: ``"moses"`` (sacremoses, unescaped) or ``"whitespace"``."""
    if kind == "whitespace":
        return str.split
    if kind != "moses":
        raise XProbeError(f"unknown tokenizer {kind!r}: use 'moses' or 'whitespace'")
    from sacremoses import MosesTokenizer

    tok = MosesTokenizer(lang=lang)
    return lambda text: tok.tokenize(text, escape=False)


def read_nli(
    path: str | os.PathLike[str],
    tokenize: Callable[[str], list[str]] | None = None,
    counts: ReadCounts | None = None,
) -> Iterator[NLIPair]:
    """Stream the labelled pairs of ``path`` (see the module docstring for layouts)."""
    p = Path(path)
    if not p.is_file():
        raise XProbeError(f"{p}: NLI file not found")
    tokenize = tokenize or make_tokenizer()
    counts = counts if counts is not None else ReadCounts()
    rows = _json_rows(p) if ".jsonl" in p.suffixes or p.suffix == ".jsonl" else _tsv_rows(p)
    for lineno, premise, hypothesis, label in rows:
        label = label.strip()
        if label in _NO_LABEL:
            counts.no_label += 1
            continue
        if label not in _LABEL_INDEX:
            raise InputError(str(p), lineno, f"unknown label {label!r}; expected {NLI_LABELS}")
        counts.kept += 1
        counts.by_label[label] = counts.by_label.get(label, 0) + 1
        yield NLIPair(tokenize(premise), tokenize(hypothesis), _LABEL_INDEX[label])
    if counts.no_label:
        log.info("%s: dropped %d pairs without a gold label", p, counts.no_label)


def _json_rows(p: Path) -> Iterator[tuple[int, str, str, str]]:
    with open_text(p) as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                yield lineno, obj["sentence1"], obj["sentence2"], str(obj.get("gold_label", ""))
            except (json.JSONDecodeError, KeyError, TypeError) as e:
                raise InputError(str(p), lineno, f"expected an NLI JSON object ({e})") from None


def _tsv_rows(p: Path) -> Iterator[tuple[int, str, str, str]]:
    with open_text(p) as f:
        columns = (0, 1, 2)
        for lineno, line in enumerate(f, 1):
            fields = line.rstrip("\n").rstrip("\r").split("\t")
            if lineno == 1:
                header = {name.strip(): i for i, name in enumerate(fields)}
                if {"gold_label", "sentence1", "sentence2"} <= header.keys():
                    columns = (header["sentence1"], header["sentence2"], header["gold_label"])
                    continue
                if len(fields) >= 3 and fields[2].strip() not in _LABEL_INDEX | {"-": 0}:
                    continue  # some other header line, e.g. "premise hypo label"
            if not line.strip():
                continue
            if len(fields) <= max(columns):
                raise InputError(
                    str(p), lineno, f"expected at least {max(columns) + 1} tab-separated fields"
                )
            yield lineno, fields[columns[0]], fields[columns[1]], fields[columns[2]]


@dataclass
class IndexedPairs:
    """Pairs as row-index arrays into the vectors table (OOV already dropped)."""

    premises: list[np.ndarray]
    hypotheses: list[np.ndarray]
    labels: np.ndarray


def read_pairs(
    paths: list[str], tokenize: Callable[[str], list[str]], limit: int | None = None
) -> list[NLIPair]:
    """The labelled pairs of ``paths`` in order (the first ``limit`` when given); never empty."""
    pairs: list[NLIPair] = []
    for path in paths:
        for pair in read_nli(path, tokenize):
            if limit is not None and len(pairs) >= limit:
                return pairs
            pairs.append(pair)
    if not pairs:
        raise XProbeError(f"{', '.join(paths)}: no labelled NLI pairs")
    return pairs


def index_pairs(pairs: list[NLIPair], index: dict[str, int], lowercase: bool) -> IndexedPairs:
    """Pairs as arrays of rows of a vectors table (``index``); words without a row dropped."""

    def ids(tokens: list[str]) -> np.ndarray:
        keys = (t.lower() for t in tokens) if lowercase else tokens
        return np.array([i for k in keys if (i := index.get(k)) is not None], dtype=np.int64)

    return IndexedPairs(
        [ids(p.premise) for p in pairs],
        [ids(p.hypothesis) for p in pairs],
        np.array([p.label for p in pairs], dtype=np.int64),
    )


def padded_batch(table, seqs: list[np.ndarray]):
    """Embedded ``(B, T, d)`` rows of ``table`` for id sequences, and their lengths.

    The last row of ``table`` is the padding (zero) row; empty sentences get one padding step.
    """
    import torch

    pad = table.shape[0] - 1
    lengths = [max(1, len(s)) for s in seqs]
    idx = np.full((len(seqs), max(lengths)), pad, dtype=np.int64)
    for i, s in enumerate(seqs):
        idx[i, : len(s)] = s
    return table[torch.from_numpy(idx).to(table.device)], torch.tensor(lengths, device=table.device)

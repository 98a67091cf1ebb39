"""Words to keep vectors for: the sentences of probing files or plain text (``--vocab-from``).

An encoder trained on NLI keeps only the vectors of the words it needs; any other word is
skipped when it encodes (``.vec`` files have no subwords). ``train-nli --vocab-from`` therefore
adds the words of the texts the encoder will be probed on. Three line layouts are read, decided
by the first non-empty line of each file (every later line must follow it):

* SentEval (what ``xprobe extract`` writes): ``split<TAB>label<TAB>sentence``, split ``tr``,
  ``va`` or ``te``; the sentence is the *last* field;
* X-Probe (Ravishankar et al.'s release): ``sentence<TAB>label``; the sentence is the first;
* plain text: one tokenised sentence per line, no tab.

A folder stands for every ``*.txt`` / ``*.txt.gz`` file under it (a SentEval folder, an X-Probe
language folder with its ``TASK/{va,te}.txt``); other files (``manifest.json``, provenance
files) are not read.

Example::

    words = read_vocabulary(["probing/en", "xprobe/en"])
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from xprobe.errors import InputError, XProbeError
from xprobe.files import read_lines

__all__ = ["LAYOUTS", "probing_sentences", "read_vocabulary", "text_files"]

SPLITS = ("tr", "va", "te")
LAYOUTS = {
    "senteval": "split<TAB>label<TAB>sentence (SentEval)",
    "xprobe": "sentence<TAB>label (X-Probe)",
    "text": "one sentence per line, no tab",
}


def text_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The files to read: each path itself, or a folder's ``*.txt``/``*.txt.gz`` files, sorted."""
    out: list[Path] = []
    for path in paths:
        p = Path(path)
        if p.is_dir():
            out += sorted(
                f for f in p.rglob("*") if f.is_file() and f.name.endswith((".txt", ".txt.gz"))
            )
        elif p.is_file():
            out.append(p)
        else:
            raise XProbeError(f"{p}: --vocab-from file not found")
    return out


def _layout(parts: list[str]) -> str | None:
    if len(parts) >= 3:
        return "senteval" if parts[0] in SPLITS else None
    return "xprobe" if len(parts) == 2 else "text"


def probing_sentences(path: str | os.PathLike[str]) -> Iterator[str]:
    """The sentence of every non-empty line of one file (layout decided by its first line)."""
    layout = None
    for lineno, line in read_lines(path):
        if not line.strip():
            continue
        parts = line.rstrip("\r\n").split("\t")
        found = _layout(parts)
        if layout is None:
            if found is None:
                raise InputError(str(path), lineno, f"expected {' or '.join(LAYOUTS.values())}")
            layout = found
        elif found != layout:
            raise InputError(
                str(path), lineno, f"expected {LAYOUTS[layout]} as on the file's first line"
            )
        yield parts[-1] if layout == "senteval" else parts[0]


def read_vocabulary(paths: Iterable[str | os.PathLike[str]]) -> set[str]:
    """The whitespace tokens of the sentences of ``paths`` (files or folders, see above)."""
    words: set[str] = set()
    for f in text_files(paths):
        for sentence in probing_sentences(f):
            words.update(sentence.split())
    return words

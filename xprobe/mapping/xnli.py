"""XNLI readers: the official XNLI 1.0 files and plain ``premise<TAB>hypothesis<TAB>label`` files.

Official ``xnli.dev.tsv`` / ``xnli.test.tsv`` start with a header naming their columns
(``language``, ``gold_label``, ``sentence1``, ``sentence2``, ...); all 15 languages are in one
file, so pass ``language`` to keep one. The plain layout (e.g. the XTREME export,
``dev-de.tsv``) has no header and one language per file. Labels are ``entailment``,
``neutral``, ``contradiction``; rows with another gold label (``-``) are skipped and counted.

The official files can be read straight from the archive ``xprobe download xnli`` fetches, by
naming the member after the archive: ``xnli/XNLI-1.0.zip/XNLI-1.0/xnli.dev.tsv``.

Example::

    dev = read_xnli("XNLI-1.0/xnli.dev.tsv", language="de")
    dev.examples[0].premise, dev.examples[0].label
"""

from __future__ import annotations

import io
import logging
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from xprobe.errors import InputError, XProbeError
from xprobe.files import open_text

__all__ = ["XNLI_LABELS", "NLIExample", "XNLISet", "read_xnli"]

log = logging.getLogger(__name__)

XNLI_LABELS = ("entailment", "neutral", "contradiction")
_OFFICIAL_COLUMNS = ("language", "gold_label", "sentence1", "sentence2")


@dataclass(frozen=True)
class NLIExample:
    """One premise/hypothesis pair with its gold label (language when the file says)."""

    premise: str
    hypothesis: str
    label: str
    language: str | None = None


@dataclass
class XNLISet:
    """The examples read, and how many rows were skipped for a missing gold label."""

    examples: list[NLIExample] = field(default_factory=list)
    skipped: int = 0
    source: str = ""

    def __len__(self) -> int:
        return len(self.examples)


def _official_row(cols: dict[str, int], parts: list[str], path: str, lineno: int) -> NLIExample:
    if len(parts) <= max(cols[c] for c in _OFFICIAL_COLUMNS):
        raise InputError(path, lineno, f"expected at least {len(cols)} tab-separated columns")
    return NLIExample(
        parts[cols["sentence1"]],
        parts[cols["sentence2"]],
        parts[cols["gold_label"]],
        parts[cols["language"]],
    )


def _open_xnli(path: str) -> IO[str]:
    """Open a file, or a member of a zip archive written as ``ARCHIVE.zip/inner/path``."""
    if Path(path).is_file():
        return open_text(path)
    for parent in Path(path).parents:
        if parent.suffix == ".zip" and parent.is_file():
            member = Path(path).relative_to(parent).as_posix()
            archive = zipfile.ZipFile(parent)
            try:
                return io.TextIOWrapper(archive.open(member), encoding="utf-8")
            except KeyError:
                archive.close()
                raise XProbeError(f"{parent}: no member {member}") from None
    raise XProbeError(f"{path}: XNLI file not found")


def read_xnli(
    path: str | os.PathLike[str], language: str | None = None, limit: int | None = None
) -> XNLISet:
    """Read an XNLI file of either layout; keep ``language`` only (official layout).

    For a plain file ``language`` is recorded on each example but cannot filter anything.
    ``limit`` keeps the first N usable examples. Raises on malformed rows, naming file and line,
    and when a language filter leaves nothing (listing the languages present).
    """
    path = str(path)
    out = XNLISet(source=path)
    cols: dict[str, int] | None = None
    seen_langs: set[str] = set()
    with _open_xnli(path) as f:
        for lineno, line in enumerate(f, 1):
            parts = line.rstrip("\n").rstrip("\r").split("\t")
            if lineno == 1 and "gold_label" in parts:
                missing = [c for c in _OFFICIAL_COLUMNS if c not in parts]
                if missing:
                    raise InputError(path, 1, f"header lacks columns {', '.join(missing)}")
                cols = {name: i for i, name in enumerate(parts)}
                continue
            if not line.strip():
                continue
            if cols is not None:
                ex = _official_row(cols, parts, path, lineno)
                seen_langs.add(ex.language or "")
                if language is not None and ex.language != language:
                    continue
            elif len(parts) != 3:
                raise InputError(path, lineno, "expected premise<TAB>hypothesis<TAB>label")
            else:
                ex = NLIExample(parts[0], parts[1], parts[2], language)
            if ex.label not in XNLI_LABELS:
                out.skipped += 1
                continue
            out.examples.append(ex)
            if limit is not None and len(out.examples) >= limit:
                break
    if not out.examples:
        where = f" for language {language!r} (present: {', '.join(sorted(seen_langs))})"
        raise XProbeError(f"{path}: no labelled examples{where if cols is not None else ''}")
    log.debug("%s: %d examples, %d skipped", path, len(out), out.skipped)
    return out

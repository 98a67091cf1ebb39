"""A Universal Dependencies release folder, read as languages: ``UD_*/*-ud-*.conllu``.

A release (``xprobe download ud --release 2.14``, or any folder laid out like one) holds one folder
per treebank, ``UD_English-EWT/en_ewt-ud-{train,dev,test}.conllu``. The language is the code that
starts each file name (``en`` of ``en_ewt``; two or three letters: ``grc``, ``qtd``), and every
treebank of one language is merged into it: :func:`read_release` gives one
:class:`ReleaseLanguage` per code, its files in a fixed order. The root may also be a folder that
holds one release (the cache's ``ud/``).

:func:`feature_conventions` compares the treebanks merged into one language: where one annotates
a feature the tasks read (``Tense``, ``Number``...) and another does not, the tasks that read it
see only the first one's sentences, which the user should know (a warning naming both).

Example::

    >>> langs = read_release(Path("ud-treebanks-v2.14"))            # doctest: +SKIP
    >>> [t.folder for t in langs["en"].treebanks]
    ['UD_English-EWT', 'UD_English-GUM', ...]
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from xprobe.errors import XProbeError

__all__ = [
    "FEATURES",
    "ReleaseError",
    "ReleaseLanguage",
    "Treebank",
    "feature_conventions",
    "read_release",
]

log = logging.getLogger(__name__)

# xx_treebank-ud-split.conllu; xx: the language (2-3 letters), treebank: letters and digits
FILE = re.compile(r"(?P<code>[a-z]{2,3})_(?P<treebank>[a-z0-9]+)-ud-(?P<split>[a-z]+)\.conllu")
SPLITS = ("train", "dev", "test")
# the features the tasks read (docs/tasks.md): a treebank without one changes what a task sees
FEATURES = ("Tense", "Number", "VerbForm", "Aspect", "Mood", "Person")


class ReleaseError(XProbeError):
    """A release folder that cannot be read as languages."""


@dataclass(frozen=True)
class Treebank:
    """One ``UD_*`` folder: its name, language code and CoNLL-U files (train, dev, test)."""

    folder: str
    code: str
    files: tuple[Path, ...]


@dataclass(frozen=True)
class ReleaseLanguage:
    """Every treebank of one language code in a release."""

    code: str
    name: str  # from the first treebank's folder: UD_Ancient_Greek-PROIEL -> "Ancient Greek"
    treebanks: tuple[Treebank, ...]

    @property
    def files(self) -> tuple[Path, ...]:
        return tuple(f for t in self.treebanks for f in t.files)


def read_release(root: Path) -> dict[str, ReleaseLanguage]:
    """The languages of the release folder ``root``, by code (sorted); a
    :class:`ReleaseError` (one line) for a folder with no treebank or a file name with no
    language code."""
    root = Path(root)
    if not root.is_dir():
        raise ReleaseError(f"{root}: no such folder (a UD release: UD_*/*-ud-*.conllu)")
    folders = sorted(p for p in root.glob("UD_*") if p.is_dir())
    if not folders:
        folders = sorted(p for p in root.glob("*/UD_*") if p.is_dir())
    treebanks = [tb for tb in (_treebank(f, root) for f in folders) if tb is not None]
    if not treebanks:
        raise ReleaseError(
            f"{root}: no treebank (expected UD_NAME/xx_treebank-ud-SPLIT.conllu files, as in a "
            "UD release)"
        )
    by_code: dict[str, list[Treebank]] = {}
    for tb in treebanks:
        by_code.setdefault(tb.code, []).append(tb)
    return {
        code: ReleaseLanguage(code, _language_name(tbs[0].folder), tuple(tbs))
        for code, tbs in sorted(by_code.items())
    }


def _treebank(folder: Path, root: Path) -> Treebank | None:
    files = sorted(p for p in folder.glob("*-ud-*.conllu") if p.is_file())
    if not files:
        return None
    codes = set()
    for f in files:
        m = FILE.fullmatch(f.name)
        if m is None:
            raise ReleaseError(
                f"{f.relative_to(root)}: the file name carries no language code (expected "
                "xx_treebank-ud-SPLIT.conllu, xx: the language's 2-3 letter code)"
            )
        codes.add(m.group("code"))
    if len(codes) > 1:
        raise ReleaseError(
            f"{folder.relative_to(root)}: files of several languages ({', '.join(sorted(codes))})"
            " in one treebank folder"
        )
    order = {s: i for i, s in enumerate(SPLITS)}
    files.sort(key=lambda p: (order.get(FILE.fullmatch(p.name).group("split"), 9), p.name))  # type: ignore[union-attr]
    return Treebank(folder.name, codes.pop(), tuple(files))


def _language_name(folder: str) -> str:
    name = folder.removeprefix("UD_").rsplit("-", 1)[0]
    return name.replace("_", " ") or folder


def feature_names(files: tuple[Path, ...]) -> Counter[str]:
    """How many words carry each FEATS name in ``files`` (a fast pass over the column)."""
    counts: Counter[str] = Counter()
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line or line[0] == "#" or line == "\n":
                    continue
                cols = line.split("\t", 6)
                if len(cols) < 6 or not cols[0].isdigit() or cols[5] == "_":
                    continue
                counts.update(kv.split("=", 1)[0] for kv in cols[5].split("|"))
    return counts


def feature_conventions(language: ReleaseLanguage) -> list[str]:
    """One warning per pair of merged treebanks whose FEATS conventions differ in a feature the
    tasks read (one annotates it, the other never does); empty for a single treebank."""
    if len(language.treebanks) < 2:
        return []
    names = {tb.folder: set(feature_names(tb.files)) for tb in language.treebanks}
    warnings = []
    folders = list(names)
    for i, a in enumerate(folders):
        for b in folders[i + 1 :]:
            only_a = sorted(set(FEATURES) & (names[a] - names[b]))
            only_b = sorted(set(FEATURES) & (names[b] - names[a]))
            disjoint = bool(names[a]) and bool(names[b]) and not names[a] & names[b]
            if not (only_a or only_b or disjoint):
                continue
            what = []
            if only_a:
                what.append(f"{', '.join(only_a)} only in {a}")
            if only_b:
                what.append(f"{', '.join(only_b)} only in {b}")
            if disjoint:
                what.append("no FEATS name in common")
            warnings.append(
                f"{language.code}: treebanks {a} and {b} annotate features differently "
                f"({'; '.join(what)}); merged anyway: a task that reads such a feature sees only "
                "the sentences of the treebank that has it"
            )
    return warnings

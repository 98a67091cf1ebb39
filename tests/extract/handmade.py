"""Small hand-made CoNLL-U fixtures: sentences written word by word in the tests themselves.

A word is ``(form, upos, feats, head, deprel)``; ``conllu(...)`` joins sentences into a file's
text, with ``# sent_id`` and ``# text`` comments.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

Word = tuple[str, str, str, int, str]


def block(sent_id: str, words: Sequence[Word]) -> str:
    """One sentence as CoNLL-U lines (no trailing blank line)."""
    lines = [f"# sent_id = {sent_id}", f"# text = {' '.join(w[0] for w in words)}"]
    for i, (form, upos, feats, head, rel) in enumerate(words, 1):
        lines.append(f"{i}\t{form}\t{form.lower()}\t{upos}\t_\t{feats}\t{head}\t{rel}\t_\t_")
    return "\n".join(lines)


def write(path: Path, sentences: Sequence[tuple[str, Sequence[Word]]]) -> Path:
    """Write ``(sent_id, words)`` sentences as one CoNLL-U file."""
    path.write_text("\n\n".join(block(i, w) for i, w in sentences) + "\n\n", encoding="utf-8")
    return path


def subject_sentence(subj: str, number: str, verb: str, rest: Sequence[str]) -> list[Word]:
    """``The SUBJ VERB REST... .``: a noun subject of the root verb, the rest its objects."""
    words: list[Word] = [
        ("The", "DET", "_", 2, "det"),
        (subj, "NOUN", f"Number={number}", 3, "nsubj"),
        (verb, "VERB", "Tense=Past", 0, "root"),
    ]
    words += [(w, "NOUN", "Number=Sing", 3, "obj") for w in rest]
    words.append((".", "PUNCT", "_", 3, "punct"))
    return words


NOUNS = ("cattle", "grain", "bread", "cake", "fence", "wall", "valley", "town", "essay", "test")


def short_and_long(path: Path, n: int = 16) -> Path:
    """``n`` subject sentences ``s0``..: the first half short (5..8 tokens), the second half
    long (13..16 tokens)."""
    sents = []
    for i in range(n):
        k = 1 + i % 4 if i < n // 2 else 9 + i % 4
        rest = [NOUNS[(i + j) % len(NOUNS)] for j in range(k)]
        sents.append((f"s{i}", subject_sentence(f"farmer{i}", "Sing", "sold", rest)))
    return write(path, sents)

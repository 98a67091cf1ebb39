"""The sample's bilingual dictionary (MUSE format: ``en de`` per line), most frequent first.

Pairs are the aligned forms of each lexeme that occur in the generated English and German text: noun
singular and plural, verb 3rd-person present, plural present and past, adjective. Sorted by the
English word's count (ties by the word), then split: every fifth pair for testing
(``en-de.test.txt``, so that test words span all frequencies: the sample's rarest words are too
rare for their vectors to mean much), the rest for training (``en-de.train.txt``); ``en-de.txt``
holds all.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from xprobe.files import atomic_write
from xprobe.sample.lexicon import Lexicon, de_adj

__all__ = ["dictionary_pairs", "write_dictionary"]


def dictionary_pairs(lex: Lexicon, en_text: list[str], de_text: list[str]) -> list[tuple[str, str]]:
    """(English, German) pairs of forms attested on both sides, most frequent English first.

    Each English form is paired with the most frequent attested German form among its
    translations (an adjective with its most used ending, a plural with its dative form if that
    is the only one seen)."""
    en_counts: Counter[str] = Counter()
    de_counts: Counter[str] = Counter()
    for line in en_text:
        en_counts.update(line.split())
    for line in de_text:
        de_counts.update(line.split())
    options: dict[str, tuple[str, ...]] = {}
    for n in lex.nouns:
        options.setdefault(n.en_sg, (n.de_sg,))
        options.setdefault(n.en_pl, (n.de_pl, n.de_dat_pl))
    for v in lex.trans + lex.intrans:
        options.setdefault(v.en_s3, (v.de_pres[2],))
        options.setdefault(v.en_base, (v.de_pres[5], v.de_pres[0], v.de_pres[1]))
        options.setdefault(v.en_past, (v.de_past[2], v.de_past[5]))
    for a in lex.adjs:
        options.setdefault(a.en, tuple(de_adj(a.de, e) for e in ("", "e", "en", "er", "es")))
    pairs = []
    for en, des in options.items():
        best = max(des, key=lambda d: (de_counts[d], -des.index(d)))
        if en_counts[en] > 0 and de_counts[best] > 0:
            pairs.append((en, best))
    pairs.sort(key=lambda p: (-en_counts[p[0]], p[0]))
    return pairs


def write_dictionary(
    out: Path, lex: Lexicon, en_text: list[str], de_text: list[str]
) -> dict[str, int]:
    """Write ``en-de.txt``, ``en-de.train.txt`` and ``en-de.test.txt`` (every fifth pair)."""
    pairs = dictionary_pairs(lex, en_text, de_text)
    test = pairs[4::5]  # every fifth pair: frequent and rare words alike
    train = [p for i, p in enumerate(pairs) if i % 5 != 4]
    for name, rows in (("en-de.txt", pairs), ("en-de.train.txt", train), ("en-de.test.txt", test)):
        with atomic_write(out / name) as f:
            for en, de in rows:
                f.write(f"{en} {de}\n")
    return {"dictionary": len(pairs), "dictionary-train": len(train), "dictionary-test": len(test)}

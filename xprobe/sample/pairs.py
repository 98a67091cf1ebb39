"""Aligned English/German sentences from the sample grammar, spread evenly over SentLen's bins:
the generator shared by the sample's treebanks, dumps, parallel text and NLI pairs."""

from __future__ import annotations

import random
from collections.abc import Iterator

from xprobe.sample.grammar import Grammar, Sent, gold
from xprobe.sample.realize import realise, shape
from xprobe.ud import Sentence

__all__ = ["BINS", "sentence_pairs"]

BINS = ((5, 8), (9, 12), (13, 16), (17, 20), (21, 25), (26, 28))


def sentence_pairs(
    g: Grammar, r: random.Random, n: int, part: str, max_bin: int = 5
) -> Iterator[tuple[Sent, Sentence, Sentence]]:
    """``n`` aligned (abstract, English, German) sentences, English lengths spread evenly over
    the SentLen bins ``0..max_bin``, both sides 5..28 tokens, each side a valid UD tree.

    Each sentence draws a length bin; generated sentences wait in per-bin queues until a draw
    asks for their bin, so nothing generated for one bin is wasted on another.
    """
    queues: list[list[Sent]] = [[] for _ in BINS]
    for i in range(n):
        target = r.randrange(max_bin + 1)
        while True:
            while not queues[target]:
                lo, want = BINS[target][0], r.randint(3, 8)  # length bin, tree depth aimed at
                g.set_topic(r)
                flat = want == 3 or want >= 6  # deep trees in short sentences start flat
                s = g.flat(r) if flat else g.sentence(r, max(0, target - 3))
                length, depth = shape(g.lex, s, "en")
                for _ in range(40):  # grow towards the bin; overshoots serve other bins
                    if length >= lo and (depth >= want or length + 3 > BINS[target][1]):
                        break
                    g.grow(r, s, deeper=depth < want, keep_flat=want == 3)
                    length, depth = shape(g.lex, s, "en")
                for b, (low, high) in enumerate(BINS):
                    if low <= length <= high:
                        queues[b].append(s)
            s = queues[target].pop()
            ids = [f"# sent_id = {part}-{i + 1:06d}", "# xprobe_gold = " + _gold_str(s)]
            de = realise(g.lex, s, "de", ids)
            if 5 <= len(de.surface) <= 28:  # German is sometimes longer: take another
                yield s, realise(g.lex, s, "en", ids), de
                break


def _gold_str(s: Sent) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(gold(s).items()))

"""NLI pairs built by rule from generated sentences: SNLI-style English jsonl and XNLI-style tsv.

Labels come from :func:`xprobe.sample.grammar.nli_pair` (entailment: a modifier or a conjunct
dropped; contradiction: negation or an antonym; neutral: something added), cycling through the
three labels so that they are balanced. The XNLI-style files hold the *same* abstract pairs
realised in English and in German, line for line.

Example (one line of ``nli/snli_sample_train.jsonl``)::

    {"annotator_labels": ["neutral"], "captionID": "1", "gold_label": "neutral", "pairID": "1n",
     "sentence1": "The dog sleeps.", "sentence2": "The dog sleeps, and the cat saw a king."}
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from xprobe.files import atomic_write, rng
from xprobe.sample.grammar import Grammar, Sent
from xprobe.sample.pairs import sentence_pairs
from xprobe.sample.realize import realise

__all__ = ["LABELS", "nli_rows", "write_nli", "write_xnli"]

LABELS = ("entailment", "contradiction", "neutral")


def nli_rows(g: Grammar, r: random.Random, n: int) -> Iterator[tuple[Sent, Sent, str]]:
    """``n`` (premise, hypothesis, label) triples, labels in turn, premises of 5..20 tokens."""
    produced = 0
    for premise, _, _ in sentence_pairs(g, r, 1 << 62, "nli", max_bin=3):
        if produced == n:
            return
        pair = g.nli_pair(r, premise, LABELS[produced % 3])
        if pair is not None:
            yield premise, pair[0], pair[1]
            produced += 1


def _text(g: Grammar, s: Sent, lang: str) -> str:
    return realise(g.lex, s, lang).comment("text") or ""


def write_nli(
    out: Path, g: Grammar, seed: int, sizes: Any, text: dict[str, list[str]]
) -> dict[str, int]:
    """``out/snli_sample_{train,dev,test}.jsonl``; appends the tokenised sentences to ``text``."""
    counts = {}
    for split, n in (("train", sizes.nli_train), ("dev", sizes.nli_dev), ("test", sizes.nli_test)):
        r = rng(seed, "sample", "nli", split)
        with atomic_write(out / f"snli_sample_{split}.jsonl") as f:
            for i, (p, h, label) in enumerate(nli_rows(g, r, n)):
                ps, hs = realise(g.lex, p, "en"), realise(g.lex, h, "en")
                text["en"] += [ps.text, hs.text]
                row = {
                    "annotator_labels": [label],
                    "captionID": f"{split}{i}",
                    "gold_label": label,
                    "pairID": f"{split}{i}{label[0]}",
                    "sentence1": ps.comment("text"),
                    "sentence2": hs.comment("text"),
                }
                f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
        counts[f"nli-{split}"] = n
    return counts


def write_xnli(
    out: Path, g: Grammar, seed: int, sizes: Any, text: dict[str, list[str]]
) -> dict[str, int]:
    """``out/{en,de}.{dev,test}.tsv``: ``premise<TAB>hypothesis<TAB>label``, aligned by line."""
    counts = {}
    for split, n in (("dev", sizes.xnli_dev), ("test", sizes.xnli_test)):
        rows = list(nli_rows(g, rng(seed, "sample", "xnli", split), n))
        for lang in ("en", "de"):
            with atomic_write(out / f"{lang}.{split}.tsv") as f:
                for p, h, label in rows:
                    ps, hs = realise(g.lex, p, lang), realise(g.lex, h, lang)
                    text[lang] += [ps.text, hs.text]
                    f.write(f"{ps.comment('text')}\t{hs.comment('text')}\t{label}\n")
        counts[f"xnli-{split}"] = n
    return counts

"""Which tokenisation gives correct UD parses? Token F1, UPOS and LAS against gold, from raw text.

Each gold sentence's ``# text`` is tokenised by a candidate strategy, tagged and parsed with the
same UDPipe model, and aligned with the gold words by character offsets (whitespace ignored; the
words of a multiword token get their own offsets when their forms spell the token, as in the
CoNLL 2018 evaluation). Words F1, UPOS accuracy (on aligned words) and LAS F1 are reported.

    .venv/bin/python benchmarks/eval_tokenization.py --lang en \\
        --gold ../shared/data/ud/en/en_ewt-ud-test.conllu --model ../shared/models/en-ewt.udpipe
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from xprobe.corpus.tokenize import MosesTokenizer
from xprobe.corpus.udpipe import Parser
from xprobe.languages import load_profile
from xprobe.ud import Sentence, parse_conllu, read_conllu

STRATEGIES = (
    "gold-horizontal",
    "moses-horizontal",
    "moses-presegmented",
    "moses+fix-horizontal",
    "moses+fix-presegmented",
    "udpipe-presegmented",
)


def word_keys(sent: Sentence) -> list[tuple[int, int, int]] | None:
    """Character-offset key of each word (whitespace removed); None if forms don't spell text."""
    keys: list[tuple[int, int, int]] = []
    pos = 0
    for tok in sent.surface:
        a, b = pos, pos + len(tok.form.replace(" ", ""))
        pos = b
        words = sent.words[tok.first : tok.last + 1]
        if len(words) > 1 and "".join(w.form for w in words) == tok.form:
            p = a
            for w in words:
                keys.append((p, p + len(w.form), 0))
                p += len(w.form)
        else:
            keys.extend((a, b, k) for k in range(len(words)))
    return keys


def score(gold: Sentence, system: Sentence, acc: dict[str, int]) -> None:
    gk, sk = word_keys(gold), word_keys(system)
    acc["gold"] += len(gk)
    acc["system"] += len(sk)
    sindex = {k: i for i, k in enumerate(sk)}
    for gi, k in enumerate(gk):
        si = sindex.get(k)
        if si is None:
            continue
        acc["words"] += 1
        gw, sw = gold.words[gi], system.words[si]
        acc["upos"] += gw.upos == sw.upos
        ghead = gk[gw.head - 1] if gw.head else None
        shead = sk[sw.head - 1] if sw.head else None
        if ghead == shead:
            acc["uas"] += 1
            acc["las"] += gw.base_deprel == sw.base_deprel


def f1(correct: int, gold: int, system: int) -> float:
    return 200.0 * correct / (gold + system) if gold + system else 0.0


def run(strategy: str, golds: list[Sentence], model: str, moses_lang: str) -> dict[str, float]:
    mode = "presegmented" if strategy.endswith("presegmented") else "horizontal"
    parser = Parser(model, mode)
    tok = MosesTokenizer(moses_lang, fixups="+fix" in strategy)
    acc = dict.fromkeys(("gold", "system", "words", "upos", "uas", "las"), 0)
    skipped = 0
    t0 = time.perf_counter()
    for g in golds:
        text = g.comment("text") or g.text
        if strategy.startswith("gold"):
            line = " ".join(g.tokens)
        elif strategy.startswith("moses"):
            line = " ".join(tok.tokenize(text))
        else:
            line = text
        out = list(parse_conllu(parser.process(line + "\n")))
        if len(out) != 1 or "".join(out[0].tokens) != "".join(g.tokens).replace(" ", ""):
            skipped += 1
            acc["gold"] += len(g.words)
            continue
        score(g, out[0], acc)
    dt = time.perf_counter() - t0
    return {
        "words_f1": round(f1(acc["words"], acc["gold"], acc["system"]), 2),
        "upos_acc": round(100.0 * acc["upos"] / max(acc["words"], 1), 2),
        "uas_f1": round(f1(acc["uas"], acc["gold"], acc["system"]), 2),
        "las_f1": round(f1(acc["las"], acc["gold"], acc["system"]), 2),
        "unaligned_sentences": skipped,
        "seconds": round(dt, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--lang", required=True, help="language profile (its moses_lang is used)")
    ap.add_argument("--gold", required=True, help="gold CoNLL-U with # text comments")
    ap.add_argument("--model", required=True, help="UDPipe model file")
    ap.add_argument("--strategies", default=",".join(STRATEGIES), help="comma-separated subset")
    ap.add_argument("--limit", type=int, default=0, help="first N sentences only (0 = all)")
    ap.add_argument("--json", default="", help="write the results here as JSON")
    a = ap.parse_args()
    golds = list(read_conllu(a.gold))
    if a.limit:
        golds = golds[: a.limit]
    moses_lang = load_profile(a.lang).moses_lang
    results = {}
    print(
        f"{'strategy':26} {'words F1':>8} {'UPOS':>6} {'UAS':>6} {'LAS':>6} {'unal.':>5} {'s':>6}"
    )
    for s in a.strategies.split(","):
        r = results[s] = run(s, golds, a.model, moses_lang)
        print(
            f"{s:26} {r['words_f1']:8.2f} {r['upos_acc']:6.2f} {r['uas_f1']:6.2f} "
            f"{r['las_f1']:6.2f} {r['unaligned_sentences']:5d} {r['seconds']:6.1f}"
        )
    if a.json:
        Path(a.json).write_text(
            json.dumps(
                {"gold": a.gold, "model": a.model, "n": len(golds), "results": results}, indent=2
            )
            + "\n"
        )


if __name__ == "__main__":
    main()

"""Per-task cost of ``candidate()``: microseconds per sentence for each of the nine tasks.

Reads the shared gold treebanks of one language (all files in ``../shared/data/ud/LANG``), counts
surface forms, bigrams and UPOS as the frequency pass does, runs every task's ``prepare`` once and
then its ``candidate`` on every 5..28-token sentence (parsing excluded), and prints a table:
microseconds per sentence, sentences per second, and how many sentences each task accepts.
Times are process CPU time (best of ``--repeat`` runs), which a shared, loaded machine disturbs
less than wall-clock time.
The windows are the defaults; ``--param task.name=value`` changes them.

Example::

    .venv/bin/python benchmarks/bench_tasks.py --lang en --repeat 3 --json out.json
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import random
import time
from collections import Counter
from pathlib import Path

from xprobe.languages import load_profile
from xprobe.tasks import TASKS, Context, CorpusStats, resolve_params
from xprobe.ud import Sentence, read_conllu

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("XPROBE_SHARED", REPO.parent / "shared")) / "data" / "ud"


def count(sentences: list[Sentence]) -> CorpusStats:
    """Surface forms, bigrams and (form, UPOS) counts, as the extractor's frequency pass."""
    stats = CorpusStats(sentences=len(sentences))
    pairs: Counter[tuple[str, str]] = Counter()
    for s in sentences:
        tokens = s.tokens
        stats.forms.update(tokens)
        stats.bigrams.update(itertools.pairwise(tokens))
        for t in s.surface:
            pairs[t.form, "+".join(s.words[w].upos for w in range(t.first, t.last + 1))] += 1
    for (form, tag), c in pairs.items():
        stats.upos.setdefault(form, Counter())[tag] = c
    return stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="en", help="language code: profile and ud/LANG folder")
    ap.add_argument("--repeat", type=int, default=3, help="timing runs per task; the best counts")
    ap.add_argument(
        "--param", action="append", default=[], help="task parameter: file.name=value (repeat)"
    )
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args()

    profile = load_profile(args.lang)
    files = sorted((SHARED / args.lang).glob("*.conllu"))
    sentences = [s for f in files for s in read_conllu(f)]
    stats = count(sentences)
    used = [s for s in sentences if 5 <= len(s.tokens) <= 28]
    overrides: dict[str, dict[str, str]] = {}
    for p in args.param:
        key, _, value = p.partition("=")
        task, _, name = key.partition(".")
        overrides.setdefault(task, {})[name] = value

    rows = []
    total = 0.0
    for name, spec in TASKS.items():
        ctx = Context(profile, resolve_params(spec, profile, overrides.get(spec.file)), stats)
        t0 = time.perf_counter()
        ctx = dataclasses.replace(ctx, data=spec.prepare(ctx))
        prep = time.perf_counter() - t0
        best = float("inf")
        accepted = 0
        for _ in range(args.repeat):
            rng = random.Random(0)
            t0 = time.process_time()
            out = [spec.candidate(s, ctx, rng) for s in used]
            best = min(best, time.process_time() - t0)
            accepted = sum(c is not None for c in out)
        us = best / len(used) * 1e6
        total += us
        rows.append({"task": name, "us_per_sentence": round(us, 2), "accepted": accepted,
                     "prepare_s": round(prep, 3)})  # fmt: skip
    print(f"{args.lang}: {len(used)} sentences of 5..28 tokens from {len(files)} files")
    print(f"{'task':10} {'us/sent':>8} {'sent/s':>9} {'accepted':>9} {'prepare s':>9}")
    for r in rows:
        rate = 1e6 / r["us_per_sentence"]
        print(
            f"{r['task']:10} {r['us_per_sentence']:8.2f} {rate:9.0f} {r['accepted']:9d} "
            f"{r['prepare_s']:9.3f}"
        )
    print(f"{'all nine':10} {total:8.2f} {1e6 / total:9.0f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"lang": args.lang, "sentences": len(used), "tasks": rows,
                       "all_us_per_sentence": round(total, 2)}, f, indent=1)  # fmt: skip


if __name__ == "__main__":
    main()

"""Parse volume of the rounds with and without the tag filter (issue 29).

Builds plain text (one sentence a line) from real Wikipedia sentences, the X-Probe English
SentLen files (``va`` then ``te``: unselected sentences, unlike the other tasks' files, which
hold only their task's candidates), and runs the rounds
(:func:`xprobe.extract.rounds.build_language`) twice on it (all nine tasks, or ``--tasks``),
with the tag filter on and off. Reports per round the sentences read, tagged and parsed and the
tasks still short, then the sentences parsed per line written, for
CoordInv and for all tasks together, and whether the two runs wrote the same files.

    .venv/bin/python benchmarks/bench_tag_filter.py --sentences 20000 --sizes 2000,200,200 \\
        --first 4000 --shard-size 1000 --model ../shared/models/en-ewt.udpipe

``--json`` writes the figures (with the load average before and after).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from xprobe.corpus.filters import FilterConfig
from xprobe.corpus.pipeline import CorpusConfig
from xprobe.extract.pipeline import ExtractConfig
from xprobe.extract.rounds import Rounds, build_language

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"


def sentences(n: int) -> list[str]:
    from sacremoses import MosesDetokenizer

    detok = MosesDetokenizer("en")
    out: list[str] = []
    for split in ("va", "te"):
        path = SHARED / "data" / "xprobe" / "en" / "sentence_length" / f"{split}.txt"
        for line in path.open(encoding="utf-8"):
            out.append(detok.detokenize(line.split("\t", 1)[0].split()))
            if len(out) >= n:
                return out
    return out


def run(text: Path, work: Path, args: argparse.Namespace, flag: bool) -> dict:
    corpus = CorpusConfig(
        lang="en", out=work / "parsed", inputs=(text,), model=args.model, workers=args.workers,
        shard_size=args.shard_size, filters=FilterConfig(min_tokens=5, max_tokens=28),
        progress=False,
    )  # fmt: skip
    sizes = tuple(int(x) for x in args.sizes.split(","))
    extract = ExtractConfig(
        lang="en", out=work / "probing", inputs=[], sizes=sizes, allow_partial=True,
        progress=False, tasks=args.tasks or None,
    )  # type: ignore[arg-type]  # fmt: skip
    t0 = time.perf_counter()
    man = build_language(corpus, extract, Rounds(first=args.first, tag_filter=flag))
    seconds = time.perf_counter() - t0
    done = man["rounds"]["done"]
    lines = {
        e["task"]: sum(w["total"] for w in e["written"].values())
        for e in man["tasks"].values()
        if "written" in e
    }
    parsed = done[-1]["sentences"]["parsed"]
    return {
        "tag_filter": flag,
        "seconds": round(seconds, 1),
        "rounds": [
            {k: r[k] for k in ("asked", "filter", "sentences", "partial", "parse_seconds")}
            for r in done
        ],
        "lines": lines,
        "parsed": parsed,
        "parsed_per_line_all": round(parsed / max(1, sum(lines.values())), 2),
        "parsed_per_line_coordinv": round(parsed / max(1, lines.get("CoordInv", 0)), 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sentences", type=int, default=20000)
    ap.add_argument("--sizes", default="2000,200,200")
    ap.add_argument("--first", type=int, default=4000)
    ap.add_argument("--shard-size", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--model", type=Path, default=SHARED / "models" / "en-ewt.udpipe")
    ap.add_argument("--tasks", nargs="*", default=[], help="default: all nine")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-tag-filter-"))
    try:
        text = work / "text.txt"
        text.write_text("\n".join(sentences(args.sentences)) + "\n", encoding="utf-8")
        load = [os.getloadavg()[0]]
        results = [run(text, work / str(flag), args, flag) for flag in (True, False)]
        load.append(os.getloadavg()[0])
        same = {
            p.name: p.read_bytes() == (work / "False" / "probing" / p.name).read_bytes()
            for p in sorted((work / "True" / "probing").glob("*.txt"))
        }
        for r in results:
            print(f"tag filter {'on' if r['tag_filter'] else 'off'}: {r['seconds']} s")
            for i, rd in enumerate(r["rounds"], 1):
                s = rd["sentences"]
                print(
                    f"  round {i}: asked {rd['asked']}, read {s['read']}, tagged {s['tagged']}, "
                    f"parsed {s['parsed']}, parse {rd['parse_seconds']} s, filter {rd['filter']}, "
                    f"short: {', '.join(rd['partial']) or '-'}"
                )
            print(f"  lines written: {r['lines']}")
            print(
                f"  parsed {r['parsed']}: {r['parsed_per_line_all']} per line (all tasks), "
                f"{r['parsed_per_line_coordinv']} per CoordInv line"
            )
        print("same files on and off:", {k: v for k, v in same.items()})
        print(f"load average (1 min) before/after: {load[0]:.2f} / {load[1]:.2f}")
        if args.json:
            data = {"runs": results, "same_files": same, "load": load, "args": vars(args)}
            args.json.write_text(json.dumps(data, indent=1, default=str) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Extraction throughput and memory: all nine tasks, both passes, one core.

The corpus is built from the shared UD treebanks (English EWT train+dev+test) repeated until it
has the requested number of sentences. So that repeated copies are not just dropped as duplicate
texts, copy ``r > 0`` renames every NOUN, VERB and ADJ form through a seeded permutation of that
part of speech's vocabulary (within frequency-sorted blocks of 50 forms, so the frequency profile
stays close to the original), and gets sent_ids prefixed ``r<r>-``. Trees and features are
unchanged. The corpus is written once to --work and reused.

Each size runs in its own subprocess, so that the peak RSS (``resource.getrusage``) is that
run's; a second, larger size checks that memory does not grow with the corpus. Sentences per
second count the sentences read (repeats of an earlier sentence's tokens included: extract
reads and checks them too).

``--conllu N``: also time ``conllu.parse_incr`` (the ``conllu`` package, the ``bench`` extra)
reading the same corpus file to its end, in its own subprocess, interleaved with the
extractions N times (extract, parse_incr, extract, ...), and report each size's ratio of the
medians of CPU seconds: parse_incr / extract (how many times faster extract is).

Example::

    python benchmarks/bench_extract.py --sentences 100000 200000 --sizes 2000,200,200
    python benchmarks/bench_extract.py --sentences 100000 --conllu 3
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data" / "ud" / "en"
SOURCES = ("en_ewt-ud-train.conllu", "en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu")
RENAMED = ("NOUN", "VERB", "ADJ")


def build_corpus(path: Path, sentences: int) -> int:
    """Write ``sentences`` sentences (repeated, varied EWT) to ``path``; returns the count."""
    from xprobe.ud import format_sentence, read_conllu

    source = [s for name in SOURCES for s in read_conllu(SHARED / name)]
    vocab: dict[str, Counter[str]] = {u: Counter() for u in RENAMED}
    for s in source:
        for w in s.words:
            if w.upos in vocab:
                vocab[w.upos][w.form] += 1
    written = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        copy = 0
        while written < sentences:
            mapping = _mapping(vocab, copy)
            for s in source:
                if written >= sentences:
                    break
                words = tuple(
                    w._replace(form=mapping[w.upos].get(w.form, w.form)) if w.upos in mapping else w
                    for w in s.words
                )
                comments = tuple(
                    f"# sent_id = r{copy}-{c.split('=', 1)[1].strip()}"
                    for c in s.comments
                    if c.startswith("# sent_id")
                )
                f.write(format_sentence(type(s)(words, s.multiword, comments, s.empty_nodes)))
                written += 1
            copy += 1
    return written


def _mapping(vocab: dict[str, Counter[str]], copy: int) -> dict[str, dict[str, str]]:
    if copy == 0:
        return {}
    out = {}
    for upos, counts in vocab.items():
        forms = [w for w, _ in sorted(counts.items(), key=lambda x: (-x[1], x[0]))]
        mapping = {}
        rnd = random.Random(f"{copy}-{upos}")
        for i in range(0, len(forms), 50):
            block = forms[i : i + 50]
            shuffled = block[:]
            rnd.shuffle(shuffled)
            mapping.update(zip(block, shuffled, strict=True))
        out[upos] = mapping
    return out


def run_one(
    corpus: Path, out: Path, sizes: str, profile: str | None, tasks: list[str] | None
) -> dict:
    """Extract all nine tasks from ``corpus`` in this process; returns the figures."""
    from xprobe.extract.pipeline import ExtractConfig, extract

    tr, va, te = (int(x) for x in sizes.split(","))
    cfg = ExtractConfig(
        lang="en", out=out, inputs=[str(corpus)], sizes=(tr, va, te), allow_partial=True,
        progress=False, tasks=tasks,
    )  # fmt: skip
    t0, c0 = time.perf_counter(), time.process_time()
    if profile:
        import cProfile

        ns = {"extract": extract, "cfg": cfg}
        cProfile.runctx("m = extract(cfg)", ns, ns, profile)
        manifest = ns["m"]
    else:
        manifest = extract(cfg)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    n = manifest["corpus"]["sentences"] + manifest["corpus"].get("duplicates", 0)  # all read
    return {
        "sentences": n,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "sent_per_s_wall": round(n / wall),
        "sent_per_s_cpu": round(n / cpu),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "forms": manifest["corpus"]["forms"],
        "bigrams": manifest["corpus"]["bigrams"],
        "pooled": sum(e.get("pooled", 0) for e in manifest["tasks"].values()),
        "written": {
            t: e.get("sentences", {}).get("taken", 0) for t, e in manifest["tasks"].items()
        },
        "partial": sorted(t for t, e in manifest["tasks"].items() if e.get("partial")),
        "not_applicable": sorted(
            t for t, e in manifest["tasks"].items() if e.get("applicable") is False
        ),
    }


def run_conllu(corpus: Path) -> dict:
    """Read ``corpus`` to its end with ``conllu.parse_incr`` here; returns the figures."""
    import conllu

    t0, c0 = time.perf_counter(), time.process_time()
    n = 0
    with open(corpus, encoding="utf-8") as f:
        for _ in conllu.parse_incr(f):
            n += 1
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"sentences": n, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "sent_per_s_cpu": round(n / cpu), "conllu": conllu_version()}  # fmt: skip


def conllu_version() -> str:
    from importlib.metadata import version

    return version("conllu")


def _child(args: list[str]) -> dict:
    res = subprocess.run([sys.executable, __file__, *args], check=True, capture_output=True,
                         text=True)  # fmt: skip
    return json.loads(res.stdout.strip().splitlines()[-1])


def _load() -> float:
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sentences",
        type=int,
        nargs="+",
        default=[100_000, 200_000],
        help="corpus sizes to run (default 100000 200000)",
    )
    parser.add_argument("--sizes", default="2000,200,200", help="TR,VA,TE per task")
    parser.add_argument(
        "--work",
        type=Path,
        default=Path("/tmp/xprobe-bench-extract"),
        help="where the corpora and outputs go",
    )
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("--profile", default=None, help="cProfile output of the first size")
    parser.add_argument("--tasks", nargs="+", default=None, help="tasks (default: all nine)")
    parser.add_argument(
        "--conllu", type=int, default=0, metavar="N",
        help="also time conllu.parse_incr on each corpus, interleaved with extract, N times each",
    )  # fmt: skip
    parser.add_argument("--one", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--one-conllu", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)  # fmt: skip
    if args.one is not None:  # child process: one extraction, figures as JSON on stdout
        print(json.dumps(run_one(args.one, args.work / f"out-{args.one.stem}", args.sizes,
                                 args.profile, args.tasks)))  # fmt: skip
        return 0
    if args.one_conllu is not None:  # child process: conllu.parse_incr over the corpus
        print(json.dumps(run_conllu(args.one_conllu)))
        return 0
    if not (SHARED / SOURCES[0]).exists():
        print(f"needs the shared treebanks in {SHARED}", file=sys.stderr)
        return 1
    rows = []
    for i, n in enumerate(args.sentences):
        corpus = args.work / f"corpus-{n}.conllu"
        if not corpus.exists():
            build_corpus(corpus, n)
        cmd = [sys.executable, __file__, "--one", str(corpus), "--sizes", args.sizes,
               "--work", str(args.work)]  # fmt: skip
        if args.tasks:
            cmd += ["--tasks", *args.tasks]
        if args.profile and i == 0:
            cmd += ["--profile", args.profile]
        if not args.conllu:
            res = subprocess.run(cmd, check=True, capture_output=True, text=True)
            rows.append(json.loads(res.stdout.strip().splitlines()[-1]))
            continue
        runs, parses = [], []
        for k in range(args.conllu):  # interleaved, so that load weighs on both alike
            load = _load()
            runs.append({**_child(cmd[2:]), "load": load})
            load = _load()
            parses.append({**_child(["--one-conllu", str(corpus)]), "load": load})
            print(f"{n}: run {k + 1}: extract {runs[-1]['cpu_s']} s (load {runs[-1]['load']}), "
                  f"parse_incr {parses[-1]['cpu_s']} s (load {parses[-1]['load']})",
                  flush=True)  # fmt: skip
        row = dict(runs[0])
        mid_x = statistics.median(r["cpu_s"] for r in runs)
        mid_c = statistics.median(r["cpu_s"] for r in parses)
        row.update(cpu_s=round(mid_x, 2), sent_per_s_cpu=round(row["sentences"] / mid_x),
                   conllu={"version": parses[0]["conllu"], "cpu_s": mid_c,
                           "ratio": round(mid_c / mid_x, 2), "runs": parses},
                   runs=runs)  # fmt: skip
        rows.append(row)
    print(f"{'sentences':>10} {'wall s':>8} {'cpu s':>8} {'sent/s wall':>12} {'sent/s cpu':>11} "
          f"{'peak RSS MB':>12} {'forms':>8} {'bigrams':>9} {'pooled':>8}")  # fmt: skip
    for r in rows:
        print(f"{r['sentences']:>10} {r['wall_s']:>8} {r['cpu_s']:>8} {r['sent_per_s_wall']:>12} "
              f"{r['sent_per_s_cpu']:>11} {r['peak_rss_mb']:>12} {r['forms']:>8} "
              f"{r['bigrams']:>9} {r['pooled']:>8}")  # fmt: skip
    for r in rows:
        print(f"written at {r['sentences']}: {r['written']}; partial: {r['partial']}")
    for r in rows:
        if "conllu" in r:
            c = r["conllu"]
            print(f"{r['sentences']}: extract {r['cpu_s']} s, conllu {c['version']} parse_incr "
                  f"{c['cpu_s']} s (CPU, medians of {len(r['runs'])}): extract "
                  f"{c['ratio']}x faster")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

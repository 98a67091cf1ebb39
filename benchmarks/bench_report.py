"""Cost and output of the report's evidence: intervals, controls, MDL, on real X-Probe data.

On the shared X-Probe sets (``../shared/data/xprobe/{en,de}``; va trains, te is halved into
validation and test) with a bag-of-vectors encoder per language over fastText skipgram vectors
trained here on the sets' own sentences (dim 50, 3 epochs, one thread, as the real-data tests):

1. warm the embedding cache (encoding is not what is compared);
2. time, side by side per language, one plain probe (``lr``, 1 seed), the same probe with
   ``--control`` and the ``mdl-lr`` probe (plain probe + online code), each on every task;
3. time the report's bootstrap intervals (all experiments) against the plain probe;
4. write the report (intervals, selectivity, MDL, relative to English) into ``--out``.

Example (the run in BENCHMARKS.md: four tasks)::

    python benchmarks/bench_report.py --out /tmp/bench-report --json /tmp/bench-report.json \
        --tasks sentence_length bigram_shift past_present subj_number
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

SHARED = Path(os.environ.get("XPROBE_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def train_vectors(lang: str, out: Path, folders: list[str] | None) -> Path:
    """fastText vectors on the sentences of the task folders used (kept for reruns)."""
    import fasttext

    vec = out / f"{lang}.vec"
    if vec.is_file():
        return vec
    fasttext.FastText.eprint = lambda *a, **k: None
    text = out / f"{lang}.txt"
    with open(text, "w", encoding="utf-8") as f:
        for task in sorted((SHARED / "data" / "xprobe" / lang).iterdir()):
            if folders and task.name not in folders:
                continue
            for split in ("va", "te"):
                for line in open(task / f"{split}.txt", encoding="utf-8"):
                    f.write(line.split("\t")[0] + "\n")
    model = fasttext.train_unsupervised(str(text), dim=50, epoch=3, minCount=2, thread=1,
                                        verbose=0)  # fmt: skip
    with open(vec, "w", encoding="utf-8") as f:
        f.write(f"{len(model.words)} 50\n")
        for w in model.words:
            f.write(w + " " + " ".join(f"{x:.5f}" for x in model.get_word_vector(w)) + "\n")
    return vec


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    from xprobe.probe.classifiers import TrainConfig
    from xprobe.probe.harness import ProbeOptions, run_probe
    from xprobe.probe.records import read_records
    from xprobe.report.build import write_report
    from xprobe.report.group import group_experiments
    from xprobe.report.stats import Stats

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--langs", nargs="+", default=["en", "de"])
    ap.add_argument("--tasks", nargs="+", default=None, help="task folders (default: all nine)")
    ap.add_argument("--json", type=Path)
    ap.add_argument(
        "--interleave",
        type=int,
        default=0,
        metavar="N",
        help="instead: time plain / --control / mdl-lr N times interleaved (min of each) on "
        "--tasks of the first language, reusing --out's vectors and cache",
    )
    args = ap.parse_args()
    if args.interleave:
        return interleaved(args)
    args.out.mkdir(parents=True, exist_ok=True)
    results = args.out / "results.jsonl"
    results.unlink(missing_ok=True)
    cfg = TrainConfig(max_epochs=30, lr=1e-2)
    rows = []
    for lang in args.langs:
        vec = train_vectors(lang, args.out, args.tasks)
        data = SHARED / "data" / "xprobe" / lang

        def probe(clf, control=False, out=results, lang=lang, vec=vec, data=data):
            opts = ProbeOptions(tasks=args.tasks, classifiers=(clf,), seeds=1, language=lang,
                                device="cpu", cache_dir=args.out / "cache", train=cfg,
                                name="bov-fasttext", control=control, force=True)  # fmt: skip
            run_probe(f"bov:{vec}", data, out, opts)

        probe("majority", out=args.out / "warm.jsonl")  # loads the data once
        probe("lr", out=args.out / "warm.jsonl")  # warms the embedding cache
        plain = timed(lambda probe=probe: probe("lr", out=args.out / "plain.jsonl"))
        control = timed(lambda probe=probe: probe("lr", control=True))
        mdl = timed(lambda probe=probe: probe("mdl-lr"))
        for clf in ("majority", "length", "nb-unigram"):
            probe(clf)
        exps = [e for e in group_experiments(read_records(args.out / "plain.jsonl"))
                if e.get("split") == "test"]  # fmt: skip
        boot = timed(lambda exps=exps: [Stats().interval(e) for e in exps])
        rows.append({"lang": lang, "plain_s": round(plain, 2), "control_s": round(control, 2),
                     "mdl_s": round(mdl, 2), "bootstrap_s": round(boot, 3),
                     "control_x": round(control / plain, 2), "mdl_x": round(mdl / plain, 2),
                     "bootstrap_pct": round(100 * boot / plain, 2)})  # fmt: skip
        print(json.dumps(rows[-1]))
    t_rep = timed(lambda: write_report(read_records(results), args.out / "report"))
    summary = {"rows": rows, "report_s": round(t_rep, 2), "cpu_threads": os.cpu_count()}
    print(json.dumps(summary))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1), encoding="utf-8")


def interleaved(args: argparse.Namespace) -> None:
    """Plain, control and MDL probes timed in turn (so that load drifts hit all three alike)."""
    from xprobe.probe.classifiers import TrainConfig
    from xprobe.probe.harness import ProbeOptions, run_probe
    from xprobe.probe.records import read_records
    from xprobe.report.group import group_experiments
    from xprobe.report.stats import Stats

    lang = args.langs[0]
    vec = train_vectors(lang, args.out, args.tasks)
    data = SHARED / "data" / "xprobe" / lang
    times: dict[str, list[float]] = {"plain": [], "control": [], "mdl": [], "bootstrap": []}
    for _ in range(args.interleave):
        for name, clf, control in (("plain", "lr", False), ("control", "lr", True),
                                   ("mdl", "mdl-lr", False)):  # fmt: skip
            out = args.out / f"il-{name}.jsonl"
            opts = ProbeOptions(tasks=args.tasks, classifiers=(clf,), seeds=1, language=lang,
                                device="cpu", cache_dir=args.out / "cache", control=control,
                                train=TrainConfig(max_epochs=30, lr=1e-2), force=True)  # fmt: skip
            times[name].append(timed(lambda o=opts, p=out: run_probe(f"bov:{vec}", data, p, o)))
        exps = [e for e in group_experiments(read_records(args.out / "il-plain.jsonl"))
                if e.get("split") == "test"]  # fmt: skip
        times["bootstrap"].append(timed(lambda exps=exps: [Stats().interval(e) for e in exps]))
        print(json.dumps({k: round(v[-1], 3) for k, v in times.items()}))
    best = {k: min(v) for k, v in times.items()}
    mins = {k: round(v, 3) for k, v in best.items()}
    summary = {"lang": lang, "tasks": args.tasks, "min_s": mins,
               "control_x": round(best["control"] / best["plain"], 2),
               "mdl_x": round(best["mdl"] / best["plain"], 2),
               "bootstrap_pct": round(100 * best["bootstrap"] / best["plain"], 2)}  # fmt: skip
    print(json.dumps(summary))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

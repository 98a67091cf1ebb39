"""Benchmarks of the six neural encoders and of NLI training.

Modes:
  throughput  sentences/s of ``encode`` per encoder (full X-Probe sizes unless overridden) on
              real sentences (X-Probe English probing set) over random 300-d vectors (the speed
              does not depend on the vector values)
  step        seconds per NLI training step (forward + backward + Adam) per encoder, batch 64
  nli         a real run: ``train_nli`` on SNLI dev (first 9,000 pairs train, the rest early
              stopping), SNLI test accuracy, wall time; vectors from --vectors

Examples:
  python benchmarks/bench_encoders.py throughput --n 512 --json /tmp/thr.json
  python benchmarks/bench_encoders.py step --steps 3 --json /tmp/step.json
  python benchmarks/bench_encoders.py nli --vectors en.bin --hidden 256 --layers 1 --epochs 3
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import time
from pathlib import Path

import numpy as np

SHARED = Path(os.environ.get("XPROBE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
SIZES = ("hidden", "layers", "heads", "attn_dim", "channels", "proj_dim")


def real_sentences(n: int) -> list[list[str]]:
    path = SHARED / "data" / "xprobe" / "en" / "bigram_shift" / "va.txt"
    with open(path, encoding="utf-8") as f:
        return [line.split("\t")[0].split() for _, line in zip(range(n), f, strict=False)]


def random_vectors(sents: list[list[str]], dim: int = 300):
    from xprobe.encoders.vectors import WordVectors

    words = sorted({w for s in sents for w in s})
    gen = np.random.default_rng(0)
    return WordVectors(
        words, gen.standard_normal((len(words), dim)).astype(np.float32), fingerprint="bench"
    )


def bench_throughput(args: argparse.Namespace) -> list[dict]:
    from xprobe.encoders.neural import ARCHITECTURES, random_encoder

    sents = real_sentences(args.n)
    vecs = random_vectors(sents)
    rows = []
    for arch in args.arch or ARCHITECTURES:
        enc = random_encoder(arch, vecs, **args.sizes)
        enc.encode(sents[:8])  # warm-up
        t0, c0 = time.perf_counter(), time.process_time()
        enc.encode(sents)
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        params = sum(p.numel() for p in enc.module.parameters())
        rows.append(
            {
                "arch": arch,
                "dim": enc.dim,
                "params": params,
                "sent_per_s": len(sents) / dt,
                "sent_per_cpu_s": len(sents) / cpu,
            }
        )
        print(
            f"{arch:12s} dim {enc.dim:5d} params {params:>10,d}  {len(sents) / dt:8.1f} sent/s"
            f"  ({len(sents) / cpu:8.1f} per CPU-second)"
        )
    return rows


def bench_step(args: argparse.Namespace) -> list[dict]:
    import torch

    from xprobe.encoders.neural import ARCHITECTURES, random_encoder
    from xprobe.nli.train import build_classifier, nli_features

    sents = real_sentences(2 * 64 * (args.steps + 1))
    vecs = random_vectors(sents)
    rows = []
    for arch in args.arch or ARCHITECTURES:
        enc = random_encoder(arch, vecs, **args.sizes)
        clf = build_classifier(enc.dim)
        opt = torch.optim.Adam([*enc.module.parameters(), *clf.parameters()], lr=1e-3)
        enc.module.train()
        times, cpu = [], []
        for step in range(args.steps + 1):
            batch = sents[step * 128 : (step + 1) * 128]
            t0, c0 = time.perf_counter(), time.process_time()
            u = enc.module(*enc.embed(batch[:64]))
            v = enc.module(*enc.embed(batch[64:]))
            y = torch.randint(0, 3, (64,))
            loss = torch.nn.functional.cross_entropy(clf(nli_features(u, v)), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        mean, mean_cpu = float(np.mean(times[1:])), float(np.mean(cpu[1:]))  # 1st: warm-up
        rows.append(
            {"arch": arch, "step_s": mean, "step_cpu_s": mean_cpu, "steps": args.steps, "batch": 64}
        )
        print(f"{arch:12s} {mean:7.3f} s/step, {mean_cpu:7.3f} CPU-s/step (batch 64)")
    return rows


def bench_nli(args: argparse.Namespace) -> dict:
    from xprobe.nli.train import TrainConfig, train_nli

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    with gzip.open(SHARED / "data" / "snli" / "snli_1.0_dev.jsonl.gz", "rt") as f:
        lines = f.readlines()
    (work / "train.jsonl").write_text("".join(lines[:9000]))
    (work / "dev.jsonl").write_text("".join(lines[9000:]))
    cfg = TrainConfig(
        arch=args.arch[0] if args.arch else "bilstm-max",
        vectors=args.vectors,
        train=[str(work / "train.jsonl")],
        dev=str(work / "dev.jsonl"),
        test=str(SHARED / "data" / "snli" / "snli_1.0_test.jsonl.gz"),
        out=str(work / "model"),
        epochs=args.epochs,
        patience=args.epochs,
        sizes=args.sizes,
        device="cpu",
        threads=args.threads,
        resume=(work / "model" / "train_state.pt").exists(),
    )
    t0 = time.perf_counter()
    summary = train_nli(cfg)
    summary["wall_s"] = time.perf_counter() - t0
    keep = ("best_dev_acc", "test_acc", "test_majority_acc", "epochs_run", "pairs", "wall_s")
    result = {k: summary[k] for k in keep} | {"sizes": args.sizes, "history": summary["history"]}
    print(json.dumps(result, indent=1))
    return result


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("mode", choices=("throughput", "step", "nli"))
    p.add_argument("--arch", nargs="*", help="encoders to run (default: all six)")
    p.add_argument("--n", type=int, default=512, help="sentences for throughput")
    p.add_argument("--steps", type=int, default=3, help="timed training steps per encoder")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (1)")
    p.add_argument("--vectors", help="word vectors for the nli mode")
    p.add_argument("--epochs", type=int, default=3, help="epochs for the nli mode")
    p.add_argument("--work", default="/tmp/bench_encoders", help="scratch dir for the nli mode")
    p.add_argument("--json", help="write the results here")
    for name in SIZES:
        p.add_argument(f"--{name.replace('_', '-')}", type=int, help=f"override {name}")
    args = p.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    args.sizes = {k: getattr(args, k) for k in SIZES if getattr(args, k) is not None}
    result = {"throughput": bench_throughput, "step": bench_step, "nli": bench_nli}[args.mode](args)
    if args.json:
        Path(args.json).write_text(json.dumps({"mode": args.mode, "result": result}, indent=1))


if __name__ == "__main__":
    main()

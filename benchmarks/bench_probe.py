"""Probe-classifier benchmark: xprobe's wide-grid trainer vs SentEval's classifier protocol.

SentEval's protocol is reimplemented faithfully (its ``SplitClassifier`` + ``PyTorchClassifier``
/ ``MLP``; the package cannot be installed here): for each L2 in ``[10**t for t in range(-5,
-1)]`` train ``Linear`` (nhid 0) or ``Linear-Dropout-Sigmoid-Linear`` with ``Adam(lr=1e-3,
weight_decay=l2)``, batch 64, ``epoch_size`` 4 passes between validation checks, stop after
``tenacity`` 5 checks without improvement (SentEval's counter is never reset) or 200 passes, keep
the best model by dev accuracy; pick the best L2 on dev, **retrain** with it and report test
accuracy. xprobe trains the same four L2 values as one wide model (``grid="senteval"``).

The data is synthetic 4096-d "embeddings" with a realistic spectrum (a 256-d latent factor model
plus noise) and labels from a noisy function of the latent factors, so accuracy is far from 100%.

Example (one binary task, 20k/10k/10k, 2 threads)::

    python benchmarks/bench_probe.py --n-train 20000 --classes 2 --threads 2 --json out.json

``--nine`` times xprobe alone on nine such tasks with the class counts of the nine probing tasks
(SentLen 6, WC 1,000, TreeDepth 5, the other six binary), each at ``--n-train/--n-dev/--n-test``:
the cost of probing one encoder on the whole benchmark::

    python benchmarks/bench_probe.py --nine --n-train 100000 --classifier mlp --json nine.json

``--certificate`` times converged ``lr`` with its certificate and with the gradient test alone
(``rtol`` infinite) on the same data, interleaved: the certificate's share of the time.

``--mdl`` times the MDL online code (``mdl-lr``: plain probe + ten prefix fits) against one
plain probe; ``--protocol senteval`` trains xprobe's side with SentEval's protocol; ``--quick``
is a smoke run (2000/500/500, 256-d). The xprobe row reports its peak memory growth as a
multiple of the embeddings (resource.getrusage; xprobe runs first in the process).

``--data v1`` draws the synthetic data with the generator used until 2026-11-25 (the 13.6x
figure of 2026-11-23): the same model, other random draws (the default ``v2`` draws float32
chunks, so generating needs no more memory than the data). SentEval's early stopping ends at a
different pass on each, so compare figures on the same ``--data`` only.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import time

import numpy as np


def make_data(n: int, dim: int, classes: int, seed: int, latent: int = 256):
    """X (n, dim) float32 and y: labels from a noisy linear function of latent factors.

    Built 8,192 rows at a time in float32, so generating the data does not need more memory
    than the data (older versions drew float64 noise: a 4x peak that hid the probe's own)."""
    g = np.random.default_rng(seed)
    mix = np.random.default_rng(1234).normal(size=(latent, dim)).astype(np.float32) / 16
    w = np.random.default_rng(99).normal(size=(latent, classes))
    x = np.empty((n, dim), dtype=np.float32)
    y = np.empty(n, dtype=np.int64)
    for a in range(0, n, 8192):
        m = min(8192, n - a)
        z = g.standard_normal((m, latent), dtype=np.float32)
        y[a : a + m] = (z @ w + 2.5 * g.normal(size=(m, classes))).argmax(1)
        np.matmul(z, mix, out=x[a : a + m])
        x[a : a + m] += 0.5 * g.standard_normal((m, dim), dtype=np.float32)
    return x, y


def make_data_v1(n: int, dim: int, classes: int, seed: int, latent: int = 256):
    """``--data v1``: the generator used until 2026-11-25 (and for the 13.6x figure of
    2026-11-23): the same model drawn in one piece with float64 noise (other rows; a 4x memory
    peak while generating)."""
    g = np.random.default_rng(seed)
    mix = np.random.default_rng(1234).normal(size=(latent, dim)).astype(np.float32) / 16
    w = np.random.default_rng(99).normal(size=(latent, classes))
    z = g.normal(size=(n, latent)).astype(np.float32)
    logits = z @ w + 2.5 * g.normal(size=(n, classes))
    y = logits.argmax(1)
    x = z @ mix + 0.5 * g.normal(size=(n, dim)).astype(np.float32)
    return x.astype(np.float32), y


def senteval_fit(xtr, ytr, xva, yva, l2, nhid, classes, seed=1111):
    """SentEval's PyTorchClassifier.fit (batch 64, Adam, epoch_size 4, tenacity 5).

    One deviation: SentEval sets ``loss_fn.size_average = False`` after construction, which
    modern torch ignores (the loss stays a batch mean), so a mean is what SentEval runs today.
    """
    import torch
    from torch import nn

    torch.manual_seed(seed)
    np.random.seed(seed)
    d = xtr.shape[1]
    if nhid == 0:
        model = nn.Sequential(nn.Linear(d, classes))
    else:
        model = nn.Sequential(nn.Linear(d, nhid), nn.Dropout(p=0.0), nn.Sigmoid(),
                              nn.Linear(nhid, classes))  # fmt: skip
    loss_fn = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters(), weight_decay=l2)
    xtr_t, ytr_t = torch.from_numpy(xtr), torch.from_numpy(ytr)
    nepoch, best, stop, count, best_model = 0, -1.0, False, 0, None
    while not stop and nepoch <= 200:
        model.train()
        for _ in range(4):  # epoch_size
            perm = torch.from_numpy(np.random.permutation(len(xtr)))
            for i in range(0, len(xtr), 64):
                idx = perm[i : i + 64]
                loss = loss_fn(model(xtr_t[idx]), ytr_t[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
        nepoch += 4
        acc = score(model, xva, yva)
        if acc > best:
            best, best_model = acc, copy.deepcopy(model)
        else:
            if count >= 5:  # tenacity
                stop = True
            count += 1
    return best_model, best, nepoch


def score(model, x, y) -> float:
    import torch

    model.eval()
    with torch.no_grad():
        pred = torch.cat([model(torch.from_numpy(x[i : i + 4096])).argmax(1)
                          for i in range(0, len(x), 4096)])  # fmt: skip
    return float((pred.numpy() == y).mean())


def senteval_split_classifier(xtr, ytr, xva, yva, xte, yte, nhid, classes):
    regs = [10**t for t in range(-5, -1)]
    devs, passes = [], 0
    for reg in regs:
        _, dev, ne = senteval_fit(xtr, ytr, xva, yva, reg, nhid, classes)
        devs.append(round(100 * dev, 2))
        passes += ne
    opt = regs[int(np.argmax(devs))]
    model, _, ne = senteval_fit(xtr, ytr, xva, yva, opt, nhid, classes)
    return {"l2": opt, "dev": max(devs) / 100, "test": score(model, xte, yte),
            "passes": passes + ne}  # fmt: skip


# (task, classes): the nine probing tasks' label counts
NINE = (("sentence_length", 6), ("word_content", 1000), ("tree_depth", 5), ("bigram_shift", 2),
        ("past_present", 2), ("subj_number", 2), ("obj_number", 2), ("odd_man_out", 2),
        ("coordination_inversion", 2))  # fmt: skip


def peak_rss() -> int:
    """The process's peak resident memory so far, in bytes (Linux: ru_maxrss is in KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_xprobe(data, classifier: str, classes: int, protocol: str = "converged",
               certificate: bool = True) -> dict:  # fmt: skip
    """Time ``train_select`` with SentEval's L2 grid on one task; ``peak_extra``: how much the
    process's peak memory grew during it, as a multiple of the embeddings (train+dev+test);
    ``certificate``: False stops converged ``lr`` on the gradient test alone (``rtol`` inf)."""
    from xprobe.probe.classifiers import TrainConfig, train_select

    before = peak_rss()
    cfg = TrainConfig(protocol=protocol)
    if not certificate:
        cfg.rtol = float("inf")
    t, c = time.perf_counter(), time.process_time()
    r = train_select(*data, kind=classifier, grid="senteval", seed=0, n_classes=classes,
                     config=cfg)  # fmt: skip
    emb = sum(a.nbytes for a in data[::2])
    return {"seconds": time.perf_counter() - t, "cpu_seconds": time.process_time() - c,
            "test": r.test_acc, "dev": r.dev_acc, "l2": r.selected.l2,
            "epochs": r.epochs, "embeddings_gb": emb / 1e9,
            "peak_extra": (peak_rss() - before) / emb, "peak_gb": peak_rss() / 1e9}  # fmt: skip


def split(args, classes: int, seed: int):
    gen = make_data_v1 if args.data == "v1" else make_data
    x, y = gen(args.n_train + args.n_dev + args.n_test, args.dim, classes, seed)
    a, b = args.n_train, args.n_train + args.n_dev
    return (x[:a], y[:a], x[a:b], y[a:b], x[b:], y[b:])


def nine(args) -> dict:
    """xprobe on nine synthetic tasks shaped like the probing tasks; a row per task."""
    out = {"args": vars(args), "load_before": os.getloadavg(), "tasks": {}}
    print(f"{'task':24s} {'classes':>7s} {'wall s':>8s} {'cpu s':>8s} {'test':>7s} {'epochs':>6s}")
    for i, (task, classes) in enumerate(NINE):
        r = run_xprobe(split(args, classes, seed=i), args.classifier, classes, args.protocol)
        out["tasks"][task] = {"classes": classes, **r}
        print(f"{task:24s} {classes:7d} {r['seconds']:8.1f} {r['cpu_seconds']:8.1f} "
              f"{r['test']:7.4f} {r['epochs']!s:>6s}", flush=True)  # fmt: skip
    rows = out["tasks"].values()
    out["total_seconds"] = sum(r["seconds"] for r in rows)
    out["total_cpu_seconds"] = sum(r["cpu_seconds"] for r in rows)
    out["load_after"] = os.getloadavg()
    print(f"total {out['total_seconds']:.1f} s wall, {out['total_cpu_seconds']:.1f} s cpu; "
          f"load average before {out['load_before']}, after {out['load_after']}")  # fmt: skip
    return out


def mdl(args) -> dict:
    """The harness's ``mdl-<classifier>`` (plain probe + online code, default grid) against the
    plain probe alone, interleaved ``--repeat`` times; the minimum of each."""
    from xprobe.probe.classifiers import TrainConfig, train_select
    from xprobe.probe.mdl import online_code

    data = split(args, args.classes, seed=0)
    cfg = TrainConfig(protocol=args.protocol)
    plain, code = [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        train_select(*data, kind=args.classifier, seed=0, n_classes=args.classes, config=cfg)
        plain.append(time.perf_counter() - t)
        t = time.perf_counter()
        res = online_code(data[0], data[1], data[2], data[3], args.classes, args.classifier,
                          0, "default", 150, cfg)  # fmt: skip
        code.append(time.perf_counter() - t)
    p, c = min(plain), min(code)
    out = {"args": vars(args), "plain_s": p, "online_code_s": c, "mdl_over_plain": (p + c) / p,
           "compression": res.compression, "load_after": os.getloadavg()}  # fmt: skip
    print(f"plain {p:.2f} s, online code {c:.2f} s: mdl-{args.classifier} = "
          f"{out['mdl_over_plain']:.2f}x one plain probe (target <= 2.5x); compression "
          f"{res.compression:.3f}; load {out['load_after']}")  # fmt: skip
    return out


def certificate_share(args) -> dict:
    """Converged ``lr`` with its certificate and with the gradient test alone, on the same data,
    interleaved ``--repeat`` times (iterations, wall and CPU seconds; the minimum of each)."""
    data = split(args, args.classes, seed=0)
    out = {"args": vars(args), "load_before": os.getloadavg(), "with": [], "without": []}
    for _ in range(args.repeat):
        for key, cert in (("with", True), ("without", False)):
            r = run_xprobe(data, "lr", args.classes, certificate=cert)
            out[key].append(r)
            print(f"certificate {key:7s}: {r['seconds']:.1f} s wall, {r['cpu_seconds']:.1f} s "
                  f"cpu, {r['epochs']} iterations, dev {r['dev']:.4f}, test {r['test']:.4f}, "
                  f"l2 {r['l2']:.0e}; load {os.getloadavg()}", flush=True)  # fmt: skip
    w, wo = (min(r["cpu_seconds"] for r in out[k]) for k in ("with", "without"))
    out["cpu_share"] = (w - wo) / w
    print(f"the certificate's share of the CPU time: {100 * out['cpu_share']:.0f} %")
    out["load_after"] = os.getloadavg()
    return out


def compare(args) -> dict:
    """xprobe and SentEval's protocol on one task (or xprobe alone with --skip-senteval)."""
    nhid = 0 if args.classifier == "lr" else 150
    data = split(args, args.classes, seed=0)
    out = {"args": vars(args), "load_before": os.getloadavg()}
    out["xprobe"] = run_xprobe(data, args.classifier, args.classes, args.protocol)
    x = out["xprobe"]
    print(f"xprobe peak memory: {x['peak_gb']:.2f} GB in all, the probe's growth "
          f"{x['peak_extra']:.2f}x its {x['embeddings_gb']:.2f} GB of embeddings (target: total "
          f"<= 2x the embeddings, i.e. growth <= 1x)", flush=True)  # fmt: skip
    if not args.skip_senteval:
        print(f"xprobe done: {out['xprobe']}", flush=True)
        t, c = time.perf_counter(), time.process_time()
        s = senteval_split_classifier(*data, nhid, args.classes)
        out["senteval"] = {"seconds": time.perf_counter() - t,
                           "cpu_seconds": time.process_time() - c, **s}  # fmt: skip
        out["speedup"] = out["senteval"]["seconds"] / out["xprobe"]["seconds"]
        out["speedup_cpu"] = out["senteval"]["cpu_seconds"] / out["xprobe"]["cpu_seconds"]
        out["test_diff_points"] = 100 * (out["xprobe"]["test"] - s["test"])
    out["load_after"] = os.getloadavg()
    print(f"{'method':10s} {'wall s':>9s} {'cpu s':>9s} {'dev':>7s} {'test':>7s} {'l2':>8s}")
    for k in ("xprobe", "senteval"):
        if k in out:
            v = out[k]
            print(f"{k:10s} {v['seconds']:9.1f} {v['cpu_seconds']:9.1f} {v['dev']:7.4f} "
                  f"{v['test']:7.4f} {v['l2']:8.0e}")  # fmt: skip
    if "speedup" in out:
        print(f"speedup {out['speedup']:.1f}x wall, {out['speedup_cpu']:.1f}x cpu; "
              f"test diff {out['test_diff_points']:+.2f} points")  # fmt: skip
    print(f"load average before {out['load_before']}, after {out['load_after']}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n-train", type=int, default=20000)
    ap.add_argument("--n-dev", type=int, default=10000)
    ap.add_argument("--n-test", type=int, default=10000)
    ap.add_argument("--dim", type=int, default=4096)
    ap.add_argument("--classes", type=int, default=2)
    ap.add_argument("--classifier", choices=("lr", "mlp"), default="lr")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--skip-senteval", action="store_true")
    ap.add_argument("--nine", action="store_true", help="xprobe on the nine tasks' shapes")
    ap.add_argument("--mdl", action="store_true", help="MDL online code vs one plain probe")
    ap.add_argument("--repeat", type=int, default=2,
                    help="--mdl, --certificate: interleaved repetitions")  # fmt: skip
    ap.add_argument("--certificate", action="store_true",
                    help="converged lr with and without its certificate, same data")  # fmt: skip
    ap.add_argument("--protocol", choices=("converged", "senteval"), default="converged",
                    help="xprobe's training protocol")  # fmt: skip
    ap.add_argument("--data", choices=("v2", "v1"), default="v2",
                    help="synthetic data generator: v2 (float32 chunks, default) or v1 (before "
                    "2026-11-25, for A/B against older figures)")  # fmt: skip
    ap.add_argument("--quick", action="store_true", help="smoke run: 2000/500/500, 256-d")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    if args.quick:
        args.n_train, args.n_dev, args.n_test, args.dim = 2000, 500, 500, 256

    import torch

    torch.set_num_threads(args.threads)
    if args.nine:
        out = nine(args)
    elif args.mdl:
        out = mdl(args)
    else:
        out = certificate_share(args) if args.certificate else compare(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()

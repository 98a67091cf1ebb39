"""The converged ``lr`` grid, exhaustive against screened (issue 30), side by side in one run.

Every (layer, L2) point of xprobe's default grid (1e-5..1e-1) is fitted on the same data by
``fit_select`` (:mod:`xprobe.probe.convex`) once per setting of ``XPROBE_LR_GRID``:
``exhaustive`` (every point solved to the certified optimum, the narrow kernel: the path
before issue 30), ``wide`` (the float32 many-class kernel, per-block evaluation), and
``wide,screen`` (the default: a loose screen, then the candidates polished). Per setting: wall
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
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

SETTINGS = ("exhaustive", "wide", "wide,screen")


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


def run(setting: str, layers, y, args) -> dict:
    import torch

    from xprobe.probe.classifiers import TrainConfig, grid_points
    from xprobe.probe.convex import fit_select
    from xprobe.probe.features import Features, standardisers

    os.environ["XPROBE_LR_GRID"] = setting
    a, b = args.n_train, args.n_train + args.n_dev
    stats = standardisers([x[:a] for x in layers])
    tr = [Features([x[:a]], [s], "cpu") for x, s in zip(layers, stats, strict=True)]
    va = [Features([x[a:b]], [s], "cpu") for x, s in zip(layers, stats, strict=True)]
    te = [Features([x[b:]], [s], "cpu") for x, s in zip(layers, stats, strict=True)]
    yt = [torch.from_numpy(v) for v in (y[:a], y[a:b], y[b:])]
    points = grid_points("lr", "default")
    t = time.perf_counter()
    fit, best = fit_select(tr, yt[0], va, yt[1], points, args.classes, TrainConfig())
    seconds = time.perf_counter() - t
    rows = []
    for i in range(len(layers)):
        sel = int(np.argmax(best[i]))
        pred = fit.logits_of(i, te[i], sel).argmax(-1)
        rows.append({"l2": points[sel].l2, "dev": float(best[i][sel]),
                     "test": float((pred == yt[2]).double().mean()),
                     "grid_dev": [float(v) for v in best[i]]})  # fmt: skip
    screen = None if fit.screen is None else fit.screen.tolist()
    return {"setting": setting, "seconds": seconds, "iterations": fit.iterations,
            "evaluations": fit.evaluations, "converged": fit.converged, "layers": rows,
            "screen_dev": screen}  # fmt: skip


def compare(ref: dict, other: dict) -> dict:
    same = all(a["l2"] == b["l2"] for a, b in zip(ref["layers"], other["layers"], strict=True))
    diff = max(max(abs(a["dev"] - b["dev"]), abs(a["test"] - b["test"]))
               for a, b in zip(ref["layers"], other["layers"], strict=True))  # fmt: skip
    out = {"same_selection": same, "max_acc_diff_points": 100 * diff,
           "speedup": ref["seconds"] / other["seconds"]}  # fmt: skip
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
    ap.add_argument("--json")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    layers, y = make_layers(args)
    out = {"args": vars(args), "load_before": os.getloadavg(), "runs": []}
    for setting in args.settings:
        r = run(setting, layers, y, args)
        out["runs"].append(r)
        cmp = compare(out["runs"][0], r)
        r["vs_first"] = cmp
        sel = " ".join(f"{row['l2']:.0e}" for row in r["layers"])
        acc = " ".join(f"{100 * row['dev']:.2f}/{100 * row['test']:.2f}" for row in r["layers"])
        print(f"{setting:12s} {r['seconds']:7.1f} s  x{cmp['speedup']:.2f}  it {r['iterations']:4d}"
              f"  ev {r['evaluations']:4d}  l2 {sel}  dev/test {acc}  same {cmp['same_selection']}"
              f"  diff {cmp['max_acc_diff_points']:.2f}  screen "
              f"{cmp.get('max_screen_change_points', float('nan')):.2f}", flush=True)  # fmt: skip
    out["load_after"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

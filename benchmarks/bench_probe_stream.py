"""Depth and width without the memory: probing a 33-layer 4096-d model with ``--layer-block``.

A synthetic layer-wise encoder shaped like a 33-layer, 4096-d decoder (the shape of a 7B
model's hidden states) feeds the real probing path (:func:`xprobe.probe.harness.run_probe`:
embedding cache with checksums, the converged ``lr`` probe over the default L2 grid) on one
synthetic binary task. Each sentence ``w<i> ...`` gets, at layer ``l``, a latent factor model's
features (a 256-d latent ``z_i`` shared by every layer, mixed into 4096-d with a per-layer matrix,
plus noise that shrinks with depth) and the label is a noisy linear function of ``z_i``: the
layers are different problems with different accuracies.

Each side runs in its own process (peak RSS from ``resource.getrusage``): ``streamed`` probes
the layers ``--block`` at a time from the cache, ``all`` every layer at once (today's path; only
where it fits in memory). The report gives time, peak RSS, one block's features (train +
validation + test) and the ratio of the peak's growth during the probe (beyond the libraries)
to them; ``--compare`` runs both sides and checks the records are
equal.

At the default size (40k/5k/5k sentences) the features of every layer are 50k x 33 x 4096 x 4
bytes = 27 GB: more than this machine's 23 GB of memory, and a fifth of X-Probe's full size
(120k sentences, 65 GB); one layer's features are 0.8 GB. The cache (27 GB) is written under
``--work`` first (an encode pass, one block at a time). ``--quick``: 33 layers of 128-d, 400/100/
100 sentences, both sides compared.

Example::

    python benchmarks/bench_probe_stream.py --quick --json stream-quick.json
    python benchmarks/bench_probe_stream.py --work /big/disk/stream --block 1 --json stream.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

LATENT = 256


class SyntheticLayers:
    """A layer-wise encoder of synthetic features: ``encode_layers`` as a transformer's."""

    def __init__(self, n_layers: int, dim: int) -> None:
        self.layers = tuple(range(n_layers))
        self.dim = dim
        self.id = f"synthetic-layers:{n_layers}x{dim}"

    def layer_id(self, layer: int) -> str:
        return f"{self.id}:layer={layer}"

    def encode_layers(self, sentences, layers=None, desc: str = "") -> list[np.ndarray]:
        idx = np.array([int(s[0][1:]) for s in sentences])
        z = latent(idx)
        out = []
        for layer in layers if layers is not None else self.layers:
            mix = np.random.default_rng([7, layer]).normal(size=(LATENT, self.dim))
            x = np.empty((len(idx), self.dim), dtype=np.float32)
            for a in range(0, len(idx), 4096):
                noise = np.random.default_rng([11, layer, a]).standard_normal(
                    (min(4096, len(idx) - a), self.dim), dtype=np.float32)  # fmt: skip
                x[a : a + 4096] = z[a : a + 4096] @ (mix / 16).astype(np.float32)
                x[a : a + 4096] += (2.0 - layer / len(self.layers)) * noise
            out.append(x)
        return out


def latent(idx: np.ndarray) -> np.ndarray:
    """The latent factors of sentences ``idx`` (the same for every layer)."""
    rows = [np.random.default_rng([3, int(i)]).standard_normal(LATENT, dtype=np.float32)
            for i in idx]  # fmt: skip
    return np.stack(rows) if rows else np.zeros((0, LATENT), dtype=np.float32)


def write_task(root: Path, sizes: tuple[int, int, int]) -> Path:
    """One binary SentEval-format task: sentence ``w<i> x y`` labelled from ``latent(i)``."""
    w = np.random.default_rng(99).normal(size=LATENT)
    lines, i = [], 0
    for split, n in zip(("tr", "va", "te"), sizes, strict=True):
        for _ in range(n):
            z = latent(np.array([i]))[0]
            label = "A" if z @ w + 8 * np.random.default_rng([5, i]).normal() > 0 else "B"
            lines.append(f"{split}\t{label}\tw{i} x y")
            i += 1
    d = root / "data" / "en"
    d.mkdir(parents=True, exist_ok=True)
    (d / "synthetic.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return d


def side(args) -> dict:
    """One side in this process: run the probe, report time and peak RSS."""
    import torch

    from xprobe.probe.classifiers import TrainConfig
    from xprobe.probe.harness import ProbeOptions, run_probe

    torch.set_num_threads(args.threads)
    work = Path(args.work)
    enc = SyntheticLayers(args.layers, args.dim)
    out = work / f"records-{args.side}.jsonl"
    out.unlink(missing_ok=True)
    opts = ProbeOptions(classifiers=("lr",), cache_dir=work / "cache", device="cpu",
                        language="en", train=TrainConfig(), force=True,
                        layer_block=args.block if args.side == "streamed" else None)  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # libraries loaded
    t = time.perf_counter()
    run_probe(enc, work / "data" / "en", out, opts)
    seconds = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"side": args.side, "seconds": round(seconds, 1), "peak_rss_bytes": peak,
            "peak_growth_bytes": peak - before,
            "records_sha256": hashlib.sha256(out.read_bytes()).hexdigest()}  # fmt: skip


def run_side(args, which: str) -> dict:
    cmd = [sys.executable, __file__, "--side", which, "--work", args.work, "--layers",
           str(args.layers), "--dim", str(args.dim), "--block", str(args.block),
           "--threads", str(args.threads)]  # fmt: skip
    res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def warm_cache(args) -> float:
    """Encode every layer of every split into the cache, a block at a time (not timed as
    probing): a streamed run whose classifier is ``mlp`` over an empty grid would do the same,
    here the cache is filled directly."""
    from xprobe.probe.cache import EmbeddingCache
    from xprobe.probe.datasets import load_probing_dir

    t = time.perf_counter()
    enc = SyntheticLayers(args.layers, args.dim)
    cache = EmbeddingCache(Path(args.work) / "cache")
    (ps,) = load_probing_dir(Path(args.work) / "data" / "en", "auto", None, "en")
    for split in ("tr", "va", "te"):
        for a in range(0, args.layers, args.block):
            block = list(range(a, min(a + args.block, args.layers)))
            cache.get_or_encode_layers(enc, ps.tokens[split], block)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs=3, default=(40000, 5000, 5000),
                    metavar=("TRAIN", "DEV", "TEST"))  # fmt: skip
    ap.add_argument("--layers", type=int, default=33)
    ap.add_argument("--dim", type=int, default=4096)
    ap.add_argument("--block", type=int, default=1, help="layers in memory at once")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--work", help="folder for the task, the cache and the records")
    ap.add_argument("--compare", action="store_true", help="also run every layer at once")
    ap.add_argument("--quick", action="store_true", help="33 x 128-d, 400/100/100, compared")
    ap.add_argument("--side", choices=("streamed", "all"), help=argparse.SUPPRESS)
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    if args.side:
        print(json.dumps(side(args)))
        return
    if args.quick:
        args.sizes, args.dim, args.compare = (400, 100, 100), 128, True
    tmp = None if args.work else tempfile.TemporaryDirectory(prefix="bench-stream-")
    args.work = args.work or tmp.name  # type: ignore[union-attr]
    n = sum(args.sizes)
    write_task(Path(args.work), tuple(args.sizes))
    fill = warm_cache(args)
    block_bytes = n * args.dim * 4 * args.block
    rows = [run_side(args, "streamed")]
    if args.compare:
        rows.append(run_side(args, "all"))
    for r in rows:
        r["growth_over_block_features"] = round(r["peak_growth_bytes"] / block_bytes, 2)
    fig = {"sizes": args.sizes, "layers": args.layers, "dim": args.dim, "block": args.block,
           "all_layers_features_bytes": n * args.dim * 4 * args.layers,
           "block_features_bytes": block_bytes, "cache_fill_seconds": round(fill, 1),
           "load": os.getloadavg()[0], "rows": rows}  # fmt: skip
    if args.compare:
        fig["records_equal"] = rows[0]["records_sha256"] == rows[1]["records_sha256"]
    print(json.dumps(fig, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(fig, indent=1) + "\n", encoding="utf-8")
    if tmp is not None:
        tmp.cleanup()
    if args.compare and not fig["records_equal"]:
        sys.exit("records differ between the streamed and the all-at-once path")


if __name__ == "__main__":
    main()

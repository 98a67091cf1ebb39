"""Depth and width without the memory: probing a 33-layer 4096-d model with ``--layer-block``.

A synthetic layer-wise encoder shaped like a 33-layer, 4096-d decoder (the shape of a 7B
model's hidden states) feeds the real probing path (:func:`xprobe.probe.harness.run_probe`:
embedding cache with checksums, the converged ``lr`` probe over the default L2 grid) on one
synthetic binary task. Each sentence ``w<i> ...`` gets, at layer ``l``, a latent factor model's
features (a 256-d latent ``z_i`` shared by every layer, mixed into 4096-d with a per-layer matrix,
plus noise that shrinks with depth) and the label is a noisy linear function of ``z_i``: the
layers are different problems with different accuracies.

Each step runs in its own process (peak RSS from ``resource.getrusage``): ``encode`` writes
every layer of every split into the cache (one encoder pass a split; each batch goes straight
to the layers' files on disk, :mod:`xprobe.probe.cache_stream`), ``streamed`` probes the layers
``--block`` at a time (or as ``--budget`` chooses) read memory-mapped from the cache, ``all``
every layer at once (the in-memory path; only where it fits). ``--limit SIZE`` runs the sides
under an address-space limit (``RLIMIT_AS``) of SIZE beyond what the process had mapped after
its imports: the memory bound enforced, not only measured (a side that runs out of it is
reported as failed with its error). The report gives time, peak RSS, its growth during the
step (beyond the libraries), one block's features (train + validation + test), the ``lr``
solver's state (L-BFGS pairs, weights and gradients in float64, and the 8,192-row standardised
chunk its evaluation makes: :func:`solver_state`) and the ratio of the growth to one block's
features plus that state; ``--compare`` runs both sides and checks the records are equal.

The issue's size (a 33-layer 4096-d model at X-Probe's 120k sentences: 65 GB) takes hours on a
2-core machine. ``--sizes 40000 5000 5000`` gives 27 GB of features at once, more than a 24 GB
machine holds (one layer: 0.8 GB; the cache, 27 GB, is written under ``--work``). ``--quick``:
33 layers of 128-d, 400/100/100 sentences, both sides compared.

Example::

    python benchmarks/bench_probe_stream.py --quick --json stream-quick.json
    python benchmarks/bench_probe_stream.py --sizes 4000 500 500 --compare --limit 1G
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

    def encode_layers(self, sentences, layers=None, desc: str = "", sink=None) -> list:
        """Every layer of ``sentences`` (4,096 rows at a time); each piece handed to ``sink``
        when given (then nothing is kept), as the transformer does."""
        idx = np.array([int(s[0][1:]) for s in sentences])
        layers = list(layers if layers is not None else self.layers)
        out = [] if sink else [np.empty((len(idx), self.dim), np.float32) for _ in layers]
        z = latent(idx)
        for j, layer in enumerate(layers):
            mix = np.random.default_rng([7, layer]).normal(size=(LATENT, self.dim)) / 16
            mix = mix.astype(np.float32)
            for a in range(0, len(idx), 4096):
                x = np.random.default_rng([11, layer, int(idx[a])]).standard_normal(
                    (len(z[a : a + 4096]), self.dim), dtype=np.float32)  # fmt: skip
                x *= 2.0 - layer / len(self.layers)
                x += z[a : a + 4096] @ mix
                if sink is not None:
                    sink(j, np.arange(a, a + len(x)), x)
                else:
                    out[j][a : a + len(x)] = x
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


def _status(key: str) -> int:
    """A ``/proc/self/status`` figure (``VmSize``, ``VmPeak``...) in bytes."""
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(x.split()[1]) * 1024 for x in f if x.startswith(key + ":"))


def limit_memory(extra: int) -> int:
    """Cap this process's address space at what it maps now plus ``extra`` bytes."""
    size = _status("VmSize")
    resource.setrlimit(resource.RLIMIT_AS, (size + extra, size + extra))
    return size + extra


def side(args) -> dict:
    """One step in this process (``encode``, ``streamed`` or ``all``): time and peak RSS."""
    import torch

    from xprobe.probe.cache import EmbeddingCache
    from xprobe.probe.classifiers import TrainConfig
    from xprobe.probe.datasets import load_probing_dir
    from xprobe.probe.harness import ProbeOptions, run_probe

    torch.set_num_threads(args.threads)
    work = Path(args.work)
    enc = SyntheticLayers(args.layers, args.dim)
    out = work / f"records-{args.side}.jsonl"
    out.unlink(missing_ok=True)
    streamed = args.side == "streamed"
    opts = ProbeOptions(classifiers=("lr",), cache_dir=work / "cache", device="cpu",
                        language="en", train=TrainConfig(), force=True,
                        layer_block=args.block if streamed and not args.budget else None,
                        memory_budget=args.budget if streamed else 1 << 60)  # fmt: skip
    (ps,) = load_probing_dir(work / "data" / "en", "auto", None, "en")
    limit = limit_memory(args.limit) if args.limit and args.side != "encode" else None
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # libraries loaded
    t = time.perf_counter()
    row = {"side": args.side}
    try:
        if args.side == "encode":
            cache = EmbeddingCache(work / "cache")
            for split in ("tr", "va", "te"):
                cache.layer_shapes(enc, ps.tokens[split], enc.layers)
        else:
            run_probe(enc, work / "data" / "en", out, opts)
            row["records_sha256"] = hashlib.sha256(out.read_bytes()).hexdigest()
    except MemoryError as e:  # under --limit: the side does not fit
        row["failed"] = f"MemoryError {e}"[:200]
    seconds = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    row["address_space_peak"] = _status("VmPeak")
    return {**row, "seconds": round(seconds, 1), "peak_rss_bytes": peak,
            "peak_growth_bytes": peak - before, "address_space_limit": limit}  # fmt: skip


def run_side(args, which: str) -> dict:
    cmd = [sys.executable, __file__, "--side", which, "--work", args.work, "--layers",
           str(args.layers), "--dim", str(args.dim), "--block", str(args.block),
           "--threads", str(args.threads)]  # fmt: skip
    cmd += ["--limit", str(args.limit)] if args.limit else []
    cmd += ["--budget", str(args.budget)] if args.budget else []
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode:
        return {"side": which, "failed": res.stderr.strip().splitlines()[-1][:300]}
    return json.loads(res.stdout.strip().splitlines()[-1])


def solver_state(n_layers_block: int, dim: int, n_layers: int, rows: int, points: int = 5) -> int:
    """Bytes of the binomial ``lr`` solver's state for a block: L-BFGS pairs (history as the
    joint solve of every layer keeps), about six float64 vectors of the block's parameters
    (weights, gradient, direction, trial point...) and a chunk of at most 8,192 of the ``rows``
    of one layer, float32, with its standardised copy (evaluation)."""
    from xprobe.probe.streaming import joint_history

    params = n_layers_block * (dim + 1) * points
    pairs = 2 * joint_history([dim] * n_layers, points, 2) * params * 8
    return pairs + 6 * params * 8 + 2 * min(8192, rows) * dim * 4


def main() -> None:
    from xprobe.probe.streaming import parse_size

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs=3, default=(40000, 5000, 5000),
                    metavar=("TRAIN", "DEV", "TEST"))  # fmt: skip
    ap.add_argument("--layers", type=int, default=33)
    ap.add_argument("--dim", type=int, default=4096)
    ap.add_argument("--block", type=int, default=1, help="layers in memory at once")
    ap.add_argument("--budget", type=parse_size, help="instead of --block: --memory-budget")
    ap.add_argument("--limit", type=parse_size, help="address-space limit beyond the imports")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--work", help="folder for the task, the cache and the records")
    ap.add_argument("--compare", action="store_true", help="also run every layer at once")
    ap.add_argument("--quick", action="store_true", help="33 x 128-d, 400/100/100, compared")
    ap.add_argument("--side", choices=("encode", "streamed", "all"), help=argparse.SUPPRESS)
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
    rows = [run_side(args, "encode"), run_side(args, "streamed")]
    if args.compare:
        rows.append(run_side(args, "all"))
    layer_bytes = n * args.dim * 4
    block = args.block if not args.budget else max(1, min(args.layers, args.budget // layer_bytes))
    state = solver_state(block, args.dim, args.layers, args.sizes[0])
    for r in rows[1:]:
        if "peak_growth_bytes" in r:
            r["growth_over_block_features"] = round(
                r["peak_growth_bytes"] / (block * layer_bytes), 2
            )
            r["growth_over_block_and_solver"] = round(
                r["peak_growth_bytes"] / (block * layer_bytes + state), 2
            )
    fig = {"sizes": args.sizes, "layers": args.layers, "dim": args.dim, "block": block,
           "all_layers_features_bytes": layer_bytes * args.layers,
           "block_features_bytes": block * layer_bytes, "solver_state_bytes": state,
           "limit": args.limit, "load": os.getloadavg()[0], "rows": rows}  # fmt: skip
    if args.compare:
        shas = [r.get("records_sha256") for r in rows[1:]]
        fig["records_equal"] = shas[0] is not None and shas[0] == shas[1]
    print(json.dumps(fig, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(fig, indent=1) + "\n", encoding="utf-8")
    if tmp is not None:
        tmp.cleanup()
    if "failed" in rows[1] or "failed" in rows[0]:
        sys.exit("the streamed side failed")


if __name__ == "__main__":
    main()

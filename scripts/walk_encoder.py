"""Walk ``--encoder`` from ``xprobe probe`` through the code: where the spec goes.

A tiny real probe run (one SentEval task file, 8-d word vectors, ``lr``) is traced with
``sys.settrace``. A *stop* is a call of a function of the package that receives the spec: one
of its arguments (``self`` included, one attribute deep) is the spec string as given, a piece
of it (its path, as an argument), or a parsed value of it (``EncoderSpec``, ``TransformerSpec``,
as an argument or an attribute of one: an object that keeps only the path, word vectors naming
their file, is data the spec led to, not the spec). The walk
*climbs back up a layer* when a stop is in a higher layer than the stop before it (the layers of
``tests/test_layers.py``: commands on top, encoders low). Generator expressions and other
``<...>`` frames are not stops; a function reached again is one stop (``calls`` counts all).

Run it from a checkout (any version: the same method before and after a change)::

    PYTHONPATH=$PWD python scripts/walk_encoder.py              # bov:<tmp>/en.vec
    PYTHONPATH=$PWD python scripts/walk_encoder.py --kind hf     # hf:<tiny BERT dir> (slower)
    PYTHONPATH=$PWD python scripts/walk_encoder.py --list        # every stop, in order

It prints one JSON line: stops (distinct functions, in the order first reached), calls (every
call, repeats included), modules (and their names), climbs back up (between first visits).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = ["the", "dog", "cat", "runs", "sleeps", "a", "big", "small", "bird", "sings", "house"]


def _layers():
    spec = importlib.util.spec_from_file_location("layers", ROOT / "tests" / "test_layers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod.layer_of


def _data(d: Path) -> tuple[Path, Path]:
    """A probing folder with one SentEval-format task (two labels) and English vectors."""
    import random

    rng = random.Random(0)
    folder = d / "probing" / "en"
    folder.mkdir(parents=True)
    lines = []
    for split, n in (("tr", 24), ("va", 8), ("te", 8)):
        for i in range(n):
            k = 3 + (i % 2) * 3
            sent = " ".join(rng.choice(WORDS) for _ in range(k))
            lines.append(f"{split}\t{'short' if k == 3 else 'long'}\t{sent}")
    (folder / "sentence_length.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    vec = d / "en.vec"
    rows = [" ".join(f"{rng.uniform(-1, 1):.4f}" for _ in range(8)) for _ in WORDS]
    body = "".join(f"{w} {r}\n" for w, r in zip(WORDS, rows, strict=True))
    vec.write_text(f"{len(WORDS)} 8\n{body}", encoding="utf-8")
    return folder, vec


def _tiny_bert(d: Path) -> Path:
    sys.path.append(str(ROOT))  # the package itself comes from PYTHONPATH (any version)
    from tests.tiny_models import build_tiny_bert

    return build_tiny_bert(d / "tiny-bert")


def _carries(value, text: str, pieces: set[str], depth: int = 0) -> bool:
    name = type(value).__name__
    if name in ("EncoderSpec", "TransformerSpec"):
        return True
    if isinstance(value, str):  # a piece (its path) counts as an argument, not as an attribute
        return value == text or (depth == 0 and value in pieces)
    if depth == 0 and hasattr(value, "__dict__") and not isinstance(value, type):
        try:
            items = list(vars(value).values())
        except TypeError:
            return False
        return any(_carries(v, text, pieces, 1) for v in items)
    return False


def walk(spec: str, argv: list[str]) -> list[tuple[str, str]]:
    """The stops of ``xprobe probe`` run with ``argv``: (module, function), in order."""
    from xprobe.cli import main

    pieces = {spec.partition(":")[2], spec.partition(":")[2].partition("[")[0]} - {""}
    stops: list[tuple[str, str]] = []

    def tracer(frame, event, arg):
        if event != "call":
            return None
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("xprobe") or frame.f_code.co_name.startswith("<"):
            return None
        code = frame.f_code
        args = [frame.f_locals.get(n) for n in code.co_varnames[: code.co_argcount]]
        if any(_carries(a, spec, pieces) for a in args):
            stops.append((module, getattr(code, "co_qualname", code.co_name)))
        return None

    sys.settrace(tracer)
    try:
        rc = main(argv)
    finally:
        sys.settrace(None)
    if rc != 0:
        raise SystemExit(f"the probe run failed (exit {rc})")
    return stops


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kind", choices=("bov", "hf"), default="bov")
    ap.add_argument("--list", action="store_true", help="print every stop")
    args = ap.parse_args()
    layer_of = _layers()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        folder, vec = _data(d)
        spec = f"bov:{vec}" if args.kind == "bov" else f"hf:{_tiny_bert(d)}[layers=1-2]"
        argv = ["-q", "probe", "--data", str(folder), "--encoder", spec, "--out",
                str(d / "r.jsonl"), "--classifier", "lr", "--cache-dir", str(d / "cache"),
                "--device", "cpu", "--lang", "en"]  # fmt: skip
        stops = walk(spec, argv)
    first = list(dict.fromkeys(stops))  # the walk as a reader follows it: each function once
    layers = [layer_of(m) for m, _ in first]
    climbs = sum(1 for a, b in itertools.pairwise(layers) if b > a)
    modules = sorted({m for m, _ in stops})
    if args.list:
        for (m, f), lay in zip(first, layers, strict=True):
            print(f"{lay:2d} {m}.{f}")
    out = {"kind": args.kind, "stops": len(first), "calls": len(stops),
           "modules": len(modules), "climbs_back_up": climbs,
           "module_names": modules}  # fmt: skip
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Train a UDPipe 1 model for the rehearsal from a shared treebank (Russian: GSD dev + test).

``../shared/models/`` has English (en-ewt) and a weak German model (de-gsd-small, GSD test
only), no Russian one; ``../shared/data/ud/ru`` has UD Russian-GSD dev and test (1,180
sentences). This script trains tokenizer + tagger + parser with the options of
``../shared/models/README.md`` (:data:`xprobe.corpus.udpipe.FULL_OPTIONS`: about 11 minutes on
2 cores for a treebank of that size), holding out every ``--heldout-every``-th sentence for
UDPipe's early stopping, and writes the model atomically with a JSON note beside it (inputs,
sentences, options, seconds). ``--quick`` trains on the first 60 sentences with the fast
options (seconds): a check that the script starts, not a usable model.

    .venv/bin/python benchmarks/rehearsal/train_udpipe.py --lang ru \\
        --out work/rehearsal/models/ru-gsd.udpipe                                  # ~11 min
    .venv/bin/python benchmarks/rehearsal/train_udpipe.py --lang ru --quick \\
        --out work/rehearsal-quick/models/ru-quick.udpipe                          # seconds

The same works for German (``--lang de``: GSD dev + test, 1,776 sentences, a better model than
de-gsd-small), if the rehearsal should not rely on that one.
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
import time
from pathlib import Path

from xprobe.corpus.udpipe import FULL_OPTIONS, load_model, train_model
from xprobe.files import write_json
from xprobe.ud import read_conllu

log = logging.getLogger("rehearsal.train_udpipe")

SHARED = Path(__file__).resolve().parents[3] / "shared"


def blocks(paths: list[Path]) -> list[str]:
    """The sentences of the CoNLL-U files as raw blocks (comments and lines kept), in order."""
    out = []
    for path in paths:
        read_conllu(path)  # fail early, with file and line, on a malformed treebank
        text = path.read_text(encoding="utf-8")
        out += [b.strip("\n") + "\n\n" for b in text.split("\n\n") if b.strip()]
    return out


def train(paths: list[Path], out: Path, heldout_every: int, quick: bool) -> dict:
    sents = blocks(paths)
    if quick:
        sents = sents[:60]
    held = [s for i, s in enumerate(sents) if heldout_every and i % heldout_every == 0]
    rest = [s for i, s in enumerate(sents) if not (heldout_every and i % heldout_every == 0)]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="train_udpipe.") as tmp:
        train_file, held_file = Path(tmp) / "train.conllu", Path(tmp) / "heldout.conllu"
        train_file.write_text("".join(rest), encoding="utf-8")
        held_file.write_text("".join(held), encoding="utf-8")
        log.info("training on %d sentences, %d held out -> %s", len(rest), len(held), out)
        out.parent.mkdir(parents=True, exist_ok=True)
        train_model([train_file], out, fast=quick, heldout_paths=[held_file] if held else (),
                    verbose=not quick)  # fmt: skip
    load_model(out)
    note = {
        "inputs": [str(p) for p in paths],
        "train_sentences": len(rest),
        "heldout_sentences": len(held),
        "options": "fast (smoke test)" if quick else FULL_OPTIONS,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_json(out.with_suffix(".json"), note)
    return note


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ap.add_argument("--lang", default="ru", help="treebank folder under ../shared/data/ud (ru)")
    ap.add_argument("--treebank", type=Path, nargs="+", help="CoNLL-U files (default: all of "
                    "../shared/data/ud/LANG/*.conllu)")  # fmt: skip
    ap.add_argument("--out", type=Path, required=True, help="the .udpipe file to write")
    ap.add_argument("--heldout-every", type=int, default=10, help="every Nth sentence held out")
    ap.add_argument("--quick", action="store_true", help="60 sentences, fast options")
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    paths = a.treebank or sorted((SHARED / "data" / "ud" / a.lang).glob("*.conllu"))
    if not paths:
        raise SystemExit(f"no CoNLL-U files for {a.lang} under {SHARED / 'data' / 'ud'}")
    note = train(paths, a.out, a.heldout_every, a.quick)
    print(json.dumps(note, indent=1))


if __name__ == "__main__":
    main()

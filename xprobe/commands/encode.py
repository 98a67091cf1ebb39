"""Embed a file of sentences (one per line) with an encoder; write a float32 .npy (n, dim).

Lines are split on whitespace (the X-Probe sets and `xprobe corpus` output are already
Moses-tokenised); with --lang XX (and without --tokenized) each line is Moses-tokenised first.
Row i of the output is the vector of line i (empty lines get the vector of an empty sentence).
The file is streamed in chunks and the .npy written atomically.

Encoder SPEC: anything `xprobe probe --encoder` accepts that can embed new sentences: a trained
encoder directory (from `xprobe train-nli` or `xprobe map`), random:ARCH:VECTORS[:SEED] for an
untrained baseline, bov:VECTORS, pmeans:VECTORS, python:module:function. Only the vectors of the
file's words are loaded.

Example:
  xprobe encode --encoder models/en-bilstm-max probing/en/bigram_shift.txt --out bshift.npy
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Iterator
from pathlib import Path

from xprobe.commands.argtypes import device_name

HELP = "embed a file of sentences with an encoder into a .npy matrix"

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--encoder",
        required=True,
        help="encoder SPEC: checkpoint DIR, random:ARCH:VECTORS[:SEED], ...",
    )
    parser.add_argument("file", help="sentences, one per line (UTF-8, .gz allowed)")
    parser.add_argument("--out", required=True, help="output .npy file (float32, n x dim)")
    parser.add_argument(
        "--tokenized",
        action="store_true",
        help="lines are already tokenised: split on whitespace (the default unless --lang)",
    )
    parser.add_argument("--lang", help="Moses-tokenise each line with this language's rules")
    parser.add_argument(
        "--chunk", type=int, default=4096, help="sentences read and encoded at a time (4096)"
    )
    parser.add_argument(
        "--device",
        type=device_name,
        default="cpu",
        help="cpu, cuda, cuda:N or auto (neural encoders)",
    )
    parser.add_argument("--threads", type=int, help="CPU threads for torch (default: torch's)")


def load_spec(spec: str, vocab: set[str] | None = None, device: str = "cpu"):
    """The Encoder a SPEC names (the probe harness's ``parse_encoder``); checks it can encode."""
    from xprobe.encoders.encoder_spec import EncoderSpec
    from xprobe.encoders.neural import resolve_device
    from xprobe.encoders.spec import parse_encoder
    from xprobe.errors import XProbeError

    parsed = EncoderSpec.parse(spec)  # the edge: parsed once, here
    encoder = parse_encoder(parsed, vocab=vocab, device=resolve_device(device))
    if not callable(getattr(encoder, "encode", None)) or not hasattr(encoder, "dim"):
        raise XProbeError(f"--encoder {spec}: cannot embed new sentences (precomputed rows?)")
    return encoder


def _chunks(path: Path, size: int, tokenize) -> Iterator[list[list[str]]]:
    from xprobe.files import open_text

    chunk: list[list[str]] = []
    with open_text(path) as f:
        for line in f:
            chunk.append(tokenize(line.strip()))
            if len(chunk) == size:
                yield chunk
                chunk = []
    if chunk:
        yield chunk


def run(args: argparse.Namespace) -> int:
    import os
    import tempfile

    import numpy as np
    from tqdm import tqdm

    from xprobe.errors import XProbeError
    from xprobe.files import open_text
    from xprobe.nli.data import make_tokenizer

    src, out = Path(args.file), Path(args.out)
    if not src.is_file():
        raise XProbeError(f"{src}: sentence file not found")
    tokenize = str.split if args.tokenized or not args.lang else make_tokenizer("moses", args.lang)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    n, vocab = 0, set()
    with open_text(src) as f:  # first pass: count lines, collect the words to load vectors for
        for line in f:
            n += 1
            vocab.update(tokenize(line.strip()))
    encoder = load_spec(args.encoder, vocab, args.device)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp.npy", dir=out.parent)
    os.close(fd)
    try:
        matrix = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float32, shape=(n, encoder.dim))
        done = 0
        with tqdm(total=n, desc="encode", unit="sent", disable=None) as bar:
            for chunk in _chunks(src, args.chunk, tokenize):
                matrix[done : done + len(chunk)] = encoder.encode(chunk)
                done += len(chunk)
                bar.update(len(chunk))
        matrix.flush()
        del matrix
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    log.info("%s: %d sentences x %d dims (%s)", out, n, encoder.dim, encoder.id)
    return 0

"""Turn a Wikipedia dump (or wikiextractor output, or plain text) into parsed, sharded CoNLL-U.

Dumps are cleaned with wikiextractor, paragraphs are split into sentences (UDPipe's tokenizer,
or Punkt trained on the corpus itself when the profile says segmenter = "punkt"), tokenised with
Moses for the profile's language (English rules where Moses has none; no HTML escaping),
filtered (length, markup leftovers, duplicates, non-sentences) and only then tagged and parsed
with UDPipe. Output: DIR/shard-00000.conllu.gz ... with '# sent_id' and '# text', and
DIR/manifest.json (inputs, model, tokenizer, counts at each stage, timing).

Rerunning the same command after an interruption resumes from the last complete shard and gives
the same files as an uninterrupted run. SIGTERM or Ctrl-C stops the workers and exits with 143 or
130 and a line saying to resume with the same command; workers whose main process was killed
(SIGKILL) exit by themselves within a second.

Examples:
  xprobe corpus --lang en --out work/en/parsed enwiki-20190101-pages-articles.xml.bz2
  xprobe corpus --lang de --model german.udpipe --workers 2 --out work/de/parsed dewiki.xml.bz2
  xprobe corpus --lang en --scheduler tcp://10.0.0.5:8786 --out parsed enwiki.xml.bz2
  xprobe corpus --lang en --max-sentences 20000 --out sample extracted/AA/wiki_00
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from xprobe.commands.argtypes import positive

log = logging.getLogger(__name__)

HELP = "dump/text -> sentences -> Moses tokens -> UDPipe parses (sharded CoNLL-U, resumable)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from xprobe.corpus.pipeline import TOKENIZATIONS

    parser.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="MediaWiki XML dumps (.xml, .xml.bz2), wikiextractor output (text or --json), or "
        "plain text with one paragraph per line (.bz2/.gz allowed); read in order",
    )
    parser.add_argument("--lang", required=True, help="language profile: a code or a .toml path")
    parser.add_argument("--out", required=True, type=Path, metavar="DIR", help="output folder")
    parser.add_argument(
        "--model",
        type=Path,
        metavar="FILE.udpipe",
        help="UDPipe 1 model; default: the profile's udpipe_model in the download cache "
        "(see 'xprobe download udpipe')",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="parser processes, each loading the model once (default 1; 0 parses in this "
        "process); with --scheduler local, the number of Dask workers",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS|local",
        help="parse on a Dask cluster: a scheduler address (tcp://host:8786; the model path "
        "must exist on the workers) or 'local' for a LocalCluster of --workers processes",
    )
    parser.add_argument(
        "--max-sentences",
        type=positive,
        metavar="N",
        help="stop after N kept (parsed) sentences (default: all); a later run with a larger N "
        "(or none) in the same folder reuses the shards parsed",
    )
    parser.add_argument(
        "--shard-size",
        type=positive,
        default=10_000,
        metavar="N",
        help="sentences per output shard, also the unit of resuming (default 10000)",
    )
    parser.add_argument(
        "--min-tokens", type=positive, default=5, metavar="N", help="shortest kept sentence (5)"
    )
    parser.add_argument(
        "--max-tokens", type=positive, default=28, metavar="N", help="longest kept sentence (28)"
    )
    parser.add_argument(
        "--tokenization",
        choices=sorted(TOKENIZATIONS),
        default="moses+fix/presegmented",
        help="Moses tokens with/without the contraction fix-up, given to UDPipe presegmented "
        "(splits multiword tokens) or horizontal; default measured best, see BENCHMARKS.md",
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar (it shows sentences/s, ETA)"
    )


def run(args: argparse.Namespace) -> int:
    from xprobe.corpus.filters import FilterConfig
    from xprobe.corpus.pipeline import CorpusConfig, run_corpus
    from xprobe.corpus.stopping import Stopped, stop_on_signals
    from xprobe.errors import XProbeError

    if args.min_tokens > args.max_tokens:
        raise XProbeError(f"--min-tokens {args.min_tokens} exceeds --max-tokens {args.max_tokens}")
    if args.workers < 0:
        raise XProbeError("--workers must be 0 or more")
    config = CorpusConfig(
        lang=args.lang,
        out=args.out,
        inputs=tuple(Path(p) for p in args.inputs),
        model=args.model,
        workers=args.workers,
        scheduler=args.scheduler,
        max_sentences=args.max_sentences,
        shard_size=args.shard_size,
        filters=FilterConfig(min_tokens=args.min_tokens, max_tokens=args.max_tokens),
        tokenization=args.tokenization,
        progress=not args.no_progress,
    )
    try:
        with stop_on_signals():
            manifest = run_corpus(config)
    except Stopped as e:
        log.error(
            "corpus stopped by %s; the shards finished so far are kept in %s: resume with the "
            "same command",
            e,
            args.out,
        )
        return e.exit_status
    print(json.dumps(manifest["counts"], sort_keys=True))
    return 0

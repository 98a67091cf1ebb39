"""Download what the real pipeline needs into the cache, resumably and with checksums.

WHAT is one of:
  udpipe       UDPipe 1 models (UD 2.5, LINDAT), the profiles' udpipe_model
  wikipedia    a Wikipedia dump by language and date (dumps.wikimedia.org), sha1-verified
  fasttext     fastText vectors named by the profiles' fasttext (wiki.LANG.vec by default)
  fasttext-cc  Common Crawl fastText vectors cc.LANG.300.vec.gz
  muse         MUSE bilingual dictionaries SRC-LANG and LANG-SRC
  xnli         XNLI-1.0.zip
  europarl     Europarl v7 LANG-en parallel text (statmt.org), unpacked into europarl/LANG-en/
  multiun      MultiUN parallel text from OPUS (Moses format), unpacked into multiun/en-LANG/
  snli         SNLI 1.0, unpacked into nli/snli_1.0/ (no --lang)
  multinli     MultiNLI 1.0, unpacked into nli/multinli_1.0/ (no --lang)
  ud           a Universal Dependencies release (--release X.Y; LINDAT), every treebank,
               unpacked with its folders into ud/ud-treebanks-vX.Y/ (no --lang)

The cache is --cache-dir, else $XPROBE_CACHE, else $XDG_CACHE_HOME/xprobe (~/.cache/xprobe).
Interrupted downloads resume from NAME.part. A file appears in the cache only when complete
and verified: its size matches what the server announced (a connection closed early is an
error; rerun to resume), its published checksum (Wikipedia) matches, and its content passes what
its kind allows (archive CRCs, a UDPipe model loading, a .vec's vector count). NAME.fetched.json
records its URL, size and SHA-256.

Examples:
  xprobe download udpipe --lang en de
  xprobe download wikipedia --lang de --date 20190101
  xprobe download muse --lang de es --split test
  xprobe download xnli
  xprobe download europarl --lang de es fr
  xprobe download multiun --lang fr ru
  xprobe download ud --release 2.14
  xprobe download ud --release 2.17 --url https://.../ud-treebanks-v2.17.tgz
"""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = (
    "download UDPipe models, Wikipedia dumps, fastText vectors, MUSE, XNLI, parallel text, "
    "UD releases"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from xprobe.download import MUSE_SPLITS, WHAT

    parser.add_argument("what", choices=WHAT, metavar="WHAT", help=", ".join(WHAT))
    parser.add_argument(
        "--lang", nargs="+", default=[], metavar="LANG", help="language profiles (codes)"
    )
    parser.add_argument("--cache-dir", type=Path, metavar="DIR", help="cache folder override")
    parser.add_argument(
        "--date",
        default="latest",
        metavar="YYYYMMDD",
        help="Wikipedia dump date (default 'latest')",
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="replace the source's host (a mirror), e.g. https://ftp.acc.umu.se/mirror/wikimedia.org/dumps",
    )
    parser.add_argument(
        "--ext",
        metavar="EXT",
        help="fastText file kind: vec (default for wiki.*), bin, vec.gz (default for cc.*), bin.gz",
    )
    parser.add_argument(
        "--src",
        default="en",
        metavar="LANG",
        help="pivot language of MUSE and parallel corpora (en)",
    )
    parser.add_argument(
        "--split", default="full", choices=sorted(MUSE_SPLITS), help="MUSE dictionary (full)"
    )
    parser.add_argument("--release", metavar="X.Y", help="UD release of `download ud` (e.g. 2.14)")
    parser.add_argument(
        "--url",
        metavar="URL",
        help="UD release archive's URL (ud-treebanks-vX.Y.tgz): needed for a release xprobe "
        "does not know, or a moved file",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from xprobe.download import cache_dir, fetch, plan

    root = cache_dir(args.cache_dir)
    items = plan(
        args.what,
        args.lang,
        cache=root,
        date=args.date,
        base_url=args.base_url,
        ext=args.ext,
        src=args.src,
        muse_split=args.split,
        release=args.release,
        url=args.url,
    )
    for item in items:
        print(fetch(item, progress=not args.no_progress))
    return 0

"""Downloads the real pipeline needs: UDPipe models, Wikipedia dumps, fastText vectors, MUSE, XNLI,
and the parallel corpora of the mapping recipes (Europarl v7, MultiUN from OPUS).

Files go to a cache folder: ``--cache-dir``, else ``$XPROBE_CACHE``, else
``$XDG_CACHE_HOME/xprobe``, else ``~/.cache/xprobe``; each kind in its own subfolder
(``udpipe/``, ``wikipedia/``, ``fasttext/``, ``muse/``, ``xnli/``, ``europarl/``, ``multiun/``;
archives of parallel text are unpacked into ``europarl/de-en/``, ``multiun/en-ru/`` etc.; a UD
release keeps its folders: ``ud/ud-treebanks-v2.14/UD_English-EWT/en_ewt-ud-test.conllu``).

A download is written to ``NAME.part`` and resumed from where it stopped (HTTP ``Range``). It is
renamed to ``NAME`` only when complete and verified, so a file in the cache is always whole:

* its size equals what the server announced (``Content-Length``, ``Content-Range``); a connection
  closed early is an error that keeps the ``.part`` for the next run to resume
  (:mod:`~xprobe.download.transfer`);
* its checksum equals the one the source publishes (Wikipedia's ``sha1sums.txt``);
* its content passes what its kind allows: archive CRCs, a UDPipe model loading, a ``.vec``'s
  vector count (:mod:`~xprobe.download.verify`);
* ``NAME.fetched.json`` records its URL, size, SHA-256 and the checks passed.

Plain ``urllib``, nothing else. Sources are URL templates (:data:`SOURCES`); ``base_url``
replaces a source's default host (mirrors, tests).

Example::

    >>> from xprobe.download import plan, fetch                        # doctest: +SKIP
    >>> for item in plan("wikipedia", ["de"], date="20190101"):
    ...     fetch(item)
"""

from __future__ import annotations

from xprobe.download.fetch import fetch, published_checksum
from xprobe.download.plan import MUSE_SPLITS, SOURCES, UD_RELEASES, WHAT, Item, cache_dir, plan
from xprobe.download.unpack import unpack

__all__ = [
    "MUSE_SPLITS",
    "SOURCES",
    "UD_RELEASES",
    "WHAT",
    "Item",
    "cache_dir",
    "fetch",
    "plan",
    "published_checksum",
    "unpack",
]

"""The corpus stage: dump -> text (wikiextractor) -> sentences -> Moses tokens -> UDPipe CoNLL-U.

Modules: :mod:`~xprobe.corpus.sources` (inputs), :mod:`~xprobe.corpus.segment`,
:mod:`~xprobe.corpus.tokenize`, :mod:`~xprobe.corpus.filters`, :mod:`~xprobe.corpus.udpipe`
(load, parse, ``train_model``), :mod:`~xprobe.corpus.shards`, :mod:`~xprobe.corpus.parallel`,
:mod:`~xprobe.corpus.pipeline` (``run_corpus``). Heavy libraries are imported where used.
"""

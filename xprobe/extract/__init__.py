"""The extract stage: parsed CoNLL-U -> the nine probing tasks in SentEval's format + manifest.

Reads ``*.conllu[.gz]`` (from :mod:`xprobe.corpus`) and a language profile; writes
``OUT/<task>.txt`` (``split<TAB>label<TAB>sentence``) and ``OUT/manifest.json``.
Two passes: :mod:`~xprobe.extract.scan` counts frequencies and caches the usable sentences,
:mod:`~xprobe.extract.select` asks every task (:mod:`xprobe.tasks`) for candidates and keeps
them with :mod:`~xprobe.extract.pools` (lexical splits, strata) and :mod:`~xprobe.extract.plan`
(quotas, balance); :mod:`~xprobe.extract.write` writes the files, :mod:`~xprobe.extract.check`
verifies a finished folder (``--check``).

Entry points: :func:`extract` with :class:`ExtractConfig`; :func:`check_probing_dir`.
"""

from xprobe.extract.pipeline import ExtractConfig, check_probing_dir, extract

__all__ = ["ExtractConfig", "check_probing_dir", "extract"]

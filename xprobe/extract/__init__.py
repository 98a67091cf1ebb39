"""The extract stage: parsed CoNLL-U -> the nine probing tasks in SentEval's format + manifest.

Reads ``*.conllu[.gz]`` (from :mod:`xprobe.corpus`) and a language profile; writes
``OUT/<task>.txt`` (``split<TAB>label<TAB>sentence``) and ``OUT/manifest.json``.
Two passes: :mod:`~xprobe.extract.scan` counts frequencies and caches the usable sentences,
:mod:`~xprobe.extract.select` asks every task (:mod:`xprobe.tasks`) for candidates and keeps
them with :mod:`~xprobe.extract.pools` (lexical splits, strata) and :mod:`~xprobe.extract.plan`
(quotas, balance); :mod:`~xprobe.extract.write` writes the files, :mod:`~xprobe.extract.check`
verifies a finished folder (``--check``); :mod:`~xprobe.extract.windows` fits the frequency
windows to the corpus, :mod:`~xprobe.extract.yields` says what each task got per million parsed
sentences and what a partial one would need, :mod:`~xprobe.extract.rounds` parses text (with
:mod:`xprobe.corpus`) in rounds until the quotas can be met.

Entry points: :func:`extract` with :class:`ExtractConfig`; :func:`check_probing_dir`;
:func:`xprobe.extract.rounds.build_language`.
"""

from xprobe.extract.pipeline import ExtractConfig, check_probing_dir, extract

__all__ = ["ExtractConfig", "check_probing_dir", "extract"]

"""The NLI stage: InferSent-style training of an English sentence encoder on SNLI/MultiNLI.

Reads NLI pairs (:mod:`~xprobe.nli.data`: SNLI/MultiNLI jsonl, tsv) and word vectors; writes an
encoder directory (:mod:`xprobe.encoders.checkpoint`) with its NLI classifier.
:mod:`~xprobe.nli.train` trains (early stopping on dev); :mod:`~xprobe.nli.state` holds the
resumable training state shared with :mod:`xprobe.mapping`. :mod:`~xprobe.nli.head` trains an
NLI head alone on any frozen encoder over cached sentence vectors (:mod:`~xprobe.nli.vectors`).

Entry points: :func:`train_nli` with :class:`TrainConfig`; :func:`load_classifier`;
:func:`train_head` with :class:`HeadConfig`; :func:`load_head`.
"""

from xprobe.nli.head import HeadConfig, load_head, train_head
from xprobe.nli.train import TrainConfig, load_classifier, train_nli

__all__ = ["HeadConfig", "TrainConfig", "load_classifier", "load_head", "train_head", "train_nli"]

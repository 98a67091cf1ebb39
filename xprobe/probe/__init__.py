"""The probe stage: small classifiers on frozen sentence embeddings.

Reads probing sets (:mod:`~xprobe.probe.datasets`: SentEval and X-Probe layouts) and an encoder
spec (:mod:`xprobe.encoders.spec`); writes result records (:mod:`~xprobe.probe.records`, JSONL).
:mod:`~xprobe.probe.harness` runs it (``run_probe``), with embeddings cached by
:mod:`~xprobe.probe.cache`, classifiers with dev-based selection in
:mod:`~xprobe.probe.classifiers` (and Eger et al.'s in :mod:`~xprobe.probe.design`), the
encoder-free baselines in :mod:`~xprobe.probe.baselines`, cross-validation (``protocol
cv:K``: every line scored once) in :mod:`~xprobe.probe.crossval` over the folds of
:mod:`~xprobe.probe.folds`, and the design-choice study in :mod:`~xprobe.probe.robustness`.

Entry points: :func:`run_probe` with :class:`ProbeOptions`; :func:`robustness_study`.
"""

from xprobe.probe.harness import CLASSIFIERS, ProbeOptions, run_probe
from xprobe.probe.robustness import robustness_study

__all__ = ["CLASSIFIERS", "ProbeOptions", "robustness_study", "run_probe"]

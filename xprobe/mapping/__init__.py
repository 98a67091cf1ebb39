"""The mapping stage: carry an English encoder to another language (X-Probe section 5).

Words: :mod:`~xprobe.mapping.words` maps target word vectors into the English space
(Procrustes on a MUSE dictionary; P@1 with NN and CSLS). Sentences: one trainer,
:mod:`~xprobe.mapping.trainer`, teaches a target-language student (:mod:`~xprobe.mapping.student`:
X-Probe's architecture over mapped vectors, another architecture, or a transformer) to imitate any
frozen English teacher on parallel text (one reader, :mod:`~xprobe.mapping.data` over
:mod:`~xprobe.mapping.parallel`; the teacher's vectors cached once) with X-Probe's contrastive MSE
(:mod:`~xprobe.mapping.loss`), stopped on XNLI (:mod:`~xprobe.mapping.xnli`, which also measures
XNLI test accuracy of any encoder with a head). One configuration,
:class:`~xprobe.mapping.config.MapConfig`, or a recipe from ``mapping/*.toml``
(:mod:`~xprobe.mapping.recipes`).

Reads word vectors, dictionaries, parallel corpora, XNLI and a teacher; writes mapped ``.vec``
files and student encoder directories.

Entry points: :func:`map_vectors`, :func:`map_encoder`, :func:`load_recipe`,
:func:`evaluate_xnli`, :func:`teacher_of`.
"""

from xprobe.mapping.config import MapConfig
from xprobe.mapping.recipes import load_recipe
from xprobe.mapping.student import teacher_of
from xprobe.mapping.trainer import map_encoder
from xprobe.mapping.words import map_vectors
from xprobe.mapping.xnli import evaluate_xnli

__all__ = [
    "MapConfig",
    "evaluate_xnli",
    "load_recipe",
    "map_encoder",
    "map_vectors",
    "teacher_of",
]

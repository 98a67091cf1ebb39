"""The mapping stage: carry an English encoder to another language (X-Probe section 5).

Words: :mod:`~xprobe.mapping.words` maps target word vectors into the English space
(Procrustes on a MUSE dictionary; P@1 with NN and CSLS). Sentences:
:mod:`~xprobe.mapping.sentences` trains a target-language student to imitate the frozen English
teacher on parallel text (:mod:`~xprobe.mapping.parallel`) with X-Probe's contrastive MSE
(:mod:`~xprobe.mapping.loss`), stopped on XNLI (:mod:`~xprobe.mapping.xnli`); runs are described
by :class:`~xprobe.mapping.config.MapConfig`, or by a recipe from ``mapping/*.toml``
(:mod:`~xprobe.mapping.recipes`). :mod:`~xprobe.mapping.distil` distils any frozen teacher spec
(``st:``, ``hf:``...) into a transformer or architecture student (:mod:`~xprobe.mapping.student`);
:mod:`~xprobe.mapping.xnli_eval` measures XNLI accuracy of any encoder with an NLI head.

Reads word vectors, dictionaries, parallel corpora, XNLI and a teacher directory; writes mapped
``.vec`` files and student encoder directories.

Entry points: :func:`map_vectors`, :func:`map_encoder`, :func:`load_recipe`,
:func:`xprobe.mapping.distil.distil` (the module keeps its name),
:func:`evaluate_xnli`, :func:`teacher_of`.
"""

from xprobe.mapping.config import MapConfig
from xprobe.mapping.distil_config import DistilConfig
from xprobe.mapping.recipes import load_recipe
from xprobe.mapping.sentences import map_encoder
from xprobe.mapping.student import teacher_of
from xprobe.mapping.words import map_vectors
from xprobe.mapping.xnli_eval import evaluate_xnli

__all__ = [
    "DistilConfig",
    "MapConfig",
    "evaluate_xnli",
    "load_recipe",
    "map_encoder",
    "map_vectors",
    "teacher_of",
]

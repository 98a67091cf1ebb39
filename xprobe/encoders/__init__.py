"""Sentence encoders and the word vectors they read.

Every encoder implements :class:`xprobe.encoders.base.Encoder` (``encode`` token lists -> float32
array, ``dim``, an ``id`` that changes with weights or config). :mod:`~xprobe.encoders.vectors`
loads fastText ``.vec``/``.bin`` word vectors; :mod:`~xprobe.encoders.bov` bags of vectors (mean,
p-means); :mod:`~xprobe.encoders.neural` the six X-Probe architectures
(:mod:`~xprobe.encoders.recurrent`, :mod:`~xprobe.encoders.cnn`), saved and loaded by
:mod:`~xprobe.encoders.checkpoint`; :mod:`~xprobe.encoders.encoder_spec` parses ``--encoder SPEC``
once into an ``EncoderSpec`` (what its files say read by :mod:`~xprobe.encoders.spec_files`), and
:mod:`~xprobe.encoders.spec` loads the encoder it names;
:mod:`~xprobe.encoders.transformer` wraps pretrained transformers (``hf:PATH``, ``st:PATH``;
every layer in one forward pass; loading and revisions in :mod:`~xprobe.encoders.hfload`, Moses
detokenisation in :mod:`~xprobe.encoders.detok`).

Entry point: :func:`xprobe.encoders.spec.parse_encoder`.
"""

from xprobe.encoders.base import Encoder

__all__ = ["Encoder"]

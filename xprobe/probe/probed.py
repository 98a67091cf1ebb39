"""The encoder side of one probe run, prepared once: :class:`ProbedEncoder`.

What the harness needs to know about the encoder it probes is read here, once, from the
:class:`~xprobe.encoders.encoder_spec.EncoderSpec` parsed at the edge: the name its records
carry, the provenance fields of a mapped student (``mapped_from``, ``teacher``), and (loaded
on first use, with the vocabulary of the probing sets) the encoder itself, its id and layers.
A run given an encoder object (the Python API) or none (baselines only) gets the same value.

Example::

    probed = ProbedEncoder.prepare(EncoderSpec.parse("bov:en.vec"), opts, sets)
    probed.name, probed.fields          # ('bov-en', {})
    probed.layers("en"), probed.id()    # ((None,), 'bov-mean:...'): the encoder is loaded here
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xprobe.encoders.encoder_spec import EncoderSpec
from xprobe.probe.layerwise import encoder_layers

__all__ = ["ProbedEncoder"]


@dataclass
class ProbedEncoder:
    """The encoder a probe run reads (``spec`` None: an encoder object, or baselines only)."""

    spec: EncoderSpec | None
    name: str
    fields: dict[str, str] = field(default_factory=dict)  # provenance fields of its records
    device: str = "auto"
    lowercase: bool = False
    vocab: set[str] = field(default_factory=set)  # the words to load vectors for
    loaded: Any = None  # the encoder, once loaded

    @classmethod
    def prepare(cls, encoder: Any, opts: Any, sets: list[Any]) -> ProbedEncoder:
        """``encoder`` (an EncoderSpec, an encoder object or None) with ``opts``' name, device
        and case, and the vocabulary of ``sets`` (the probing sets it will encode)."""
        spec = encoder if isinstance(encoder, EncoderSpec) else None
        if spec is not None:
            name = opts.name or spec.display_name
        else:
            name = opts.name or getattr(encoder, "id", "baseline")
        vocab = {t for ps in sets for toks in ps.tokens.values() for s in toks for t in s}
        return cls(spec, name, spec.record_fields() if spec is not None else {}, opts.device,
                   opts.lowercase, vocab, None if spec is not None else encoder)  # fmt: skip

    @property
    def encoder(self) -> Any:
        """The encoder itself, loaded the first time it is asked for."""
        if self.loaded is None and self.spec is not None:
            from xprobe.encoders.spec import parse_encoder
            from xprobe.probe.classifiers import resolve_device

            self.loaded = parse_encoder(self.spec, vocab=self.vocab or None,
                                        device=resolve_device(self.device),
                                        lowercase=self.lowercase)  # fmt: skip
        return self.loaded

    def id(self, layer: int | None = None) -> str:
        """The encoder's id (of ``layer``, for a layer-wise encoder)."""
        enc = self.encoder
        return str(enc.id if layer is None else enc.layer_id(layer))

    def layers(self, language: str) -> tuple[int | None, ...]:
        """The layers probed in ``language`` (a layer-wise encoder's), else ``(None,)``."""
        return encoder_layers(self.encoder, language)

"""Python objects as encoders: what :func:`xprobe.evaluate` accepts besides a spec string.

* a callable ``fn(list of sentences as str) -> array (n, dim)``, as mteb's ``encode`` takes
  text: :class:`TextCallableEncoder` (the probing set's Moses tokens are detokenised for its
  language first, as for transformers; ``detok=False`` joins them with spaces);
* a sentence-transformers ``SentenceTransformer`` or a transformers model (with its tokenizer):
  :func:`from_model`, the same :class:`~xprobe.encoders.transformer.TransformerEncoder` that
  ``st:``/``hf:`` specs load, on the object as it is in memory (its last layer by default);
* anything with ``encode(token lists)``, ``dim`` and ``id`` is an encoder already.

The id of a callable holds a digest of its source file; that of a model a digest of its
weights, so an embedding cache never confuses a fine-tuned model with the one it started from.

Example::

    enc = as_encoder(lambda texts: np.ones((len(texts), 3)), "ones", language="en")
    enc = as_encoder(SentenceTransformer("models/all-MiniLM-L6-v2"), None)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from xprobe.encoders.detok import Detokenizer
from xprobe.encoders.spec import CallableEncoder, source_digest
from xprobe.errors import XProbeError

__all__ = ["TextCallableEncoder", "as_encoder", "from_model", "weights_digest"]


class TextCallableEncoder(CallableEncoder):
    """Wraps ``fn(list of str) -> array``; id: name, source digest and detokeniser."""

    def __init__(self, fn: Callable[[list[str]], Any], name: str, language: str | None) -> None:
        super().__init__(fn, name)
        self.detok = Detokenizer(language)
        self._id = f"python-text:{name}:{source_digest(fn)}:detok={self.detok.name}"

    def inputs(self, batch: Sequence[Sequence[str]]) -> list[Any]:
        """The probing set's Moses tokens as the text ``fn`` expects."""
        return [self.detok.detokenize(list(s)).strip() for s in batch]


def weights_digest(model: Any) -> str:
    """sha256 (16 hex digits) over a torch model's parameter names, shapes and values."""
    h = hashlib.sha256()
    for key, tensor in sorted(model.state_dict().items()):
        t = tensor.detach().float().cpu().contiguous()
        h.update(f"{key}:{tuple(t.shape)}".encode())
        h.update(t.numpy().tobytes())
    return h.hexdigest()[:16]


def _is(obj: Any, package: str) -> bool:
    return any(c.__module__.split(".")[0] == package for c in type(obj).__mro__)


def from_model(obj: Any, tokenizer: Any = None, device: str = "cpu", layers: str = "last"):
    """A TransformerEncoder on a SentenceTransformer or a transformers model object."""
    from xprobe.encoders.hfload import LoadedModel, model_name
    from xprobe.encoders.transformer import TransformerEncoder, TransformerSpec

    if _is(obj, "sentence_transformers"):
        kind, st, model, tok = "st", obj, obj[0].auto_model, obj[0].tokenizer
    else:
        kind, st, model = "hf", None, obj
        path = getattr(model.config, "_name_or_path", "") or getattr(model, "name_or_path", "")
        tok = tokenizer
        if tok is None:
            from transformers import AutoTokenizer

            if not path:
                raise XProbeError("a transformers model without a path: pass tokenizer=")
            tok = AutoTokenizer.from_pretrained(path)
    path = str(getattr(model.config, "_name_or_path", "") or "model")
    name = model_name(path)
    n_layers = int(getattr(model.config, "num_hidden_layers", 0) or 0)
    which = None if layers == "all" else (n_layers,)
    spec = TransformerSpec(kind, path, layers=which)
    loaded = LoadedModel(kind, name, weights_digest(model), model, tok, st)
    return TransformerEncoder(spec, loaded, device)


def as_encoder(obj: Any, name: str | None, language: str | None = None, **kw: Any) -> Any:
    """A spec (string or :class:`EncoderSpec`) as is; an encoder as is; a model object or a
    callable wrapped."""
    from xprobe.encoders.encoder_spec import EncoderSpec

    if isinstance(obj, (str, EncoderSpec)) or obj is None:
        return obj
    if all(hasattr(obj, a) for a in ("encode", "dim", "id")):
        return obj
    if _is(obj, "sentence_transformers") or _is(obj, "transformers"):
        return from_model(
            obj, kw.get("tokenizer"), kw.get("device", "cpu"), kw.get("layers", "last")
        )
    if callable(obj):
        label = name or getattr(obj, "__name__", type(obj).__name__)
        return TextCallableEncoder(obj, label, language if kw.get("detok", True) else None)
    raise XProbeError(
        f"cannot probe a {type(obj).__name__}: pass a spec string, a callable on sentences, "
        "a SentenceTransformer, a transformers model, or an object with encode/dim/id"
    )

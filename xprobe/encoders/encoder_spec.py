"""One encoder, described once: :class:`EncoderSpec`, parsed at the edge from an ``--encoder``
string, a dict (a study file's table, a Python caller's options) or an object, and carried as a
value to the loaders, the embedding cache, the records and the report.

String syntax (see :mod:`xprobe.encoders.spec`): ``bov:PATH``, ``pmeans:PATH``,
``random:ARCH:PATH[:SEED][sizes]``, ``npy:PATH``, ``python:module:function``,
``hf:PATH[options]``, ``st:PATH[options]`` (options: pooling, layers, detok, max_length,
``revision`` of a hub model), or a checkpoint directory; any of them may end in
``[name=NAME]`` (or carry ``name=NAME`` among its options). A checkpoint's recorded provenance
(the teacher of a student made by ``xprobe map``, its languages and training data) is read from
disk once, when the spec is parsed, into :attr:`EncoderSpec.provenance`.

Example::

    spec = EncoderSpec.parse("hf:models/bert[cls,layers=0-2,name=bert-cls]")
    spec.kind, spec.path, spec.pooling, spec.layers   # ('hf', 'models/bert', 'cls', (0, 1, 2))
    str(spec)                  # 'hf:models/bert[pooling=cls,layers=0,1,2,name=bert-cls]'
    EncoderSpec.parse({"kind": "bov", "path": "en.vec"}).display_name   # 'bov-en'
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from xprobe.encoders.spec_files import STUDENT_META, Provenance, model_name, read_provenance
from xprobe.encoders.spec_files import read_teacher as _read_teacher
from xprobe.errors import XProbeError

__all__ = [
    "KINDS",
    "POOLINGS",
    "STUDENT_META",
    "EncoderSpec",
    "Provenance",
    "read_teacher",
    "student_spec",
]

KINDS = ("bov", "pmeans", "random", "npy", "python", "hf", "st", "checkpoint")
POOLINGS = ("mean", "cls", "first", "last")
_KEYS = ("pooling", "layers", "detok", "max_length", "revision")


@dataclass(frozen=True)
class EncoderSpec:
    """A parsed ``--encoder``: what to load and how, and what to call it.

    ``path``: the vectors (bov, pmeans, random), the array (npy), ``module:function`` (python),
    the model directory or hub name (hf, st) or the checkpoint directory. ``layers=None``: every
    layer. ``seed``: a random control's (None when the spec gives none: 0).
    """

    kind: str
    path: str
    name: str | None = None
    arch: str = ""
    seed: int | None = None
    sizes: tuple[tuple[str, Any], ...] = ()
    pooling: str = "mean"
    layers: tuple[int, ...] | None = None
    detok: str = "auto"
    max_length: int | None = None
    revision: str | None = None  # a hub model's branch, tag or commit (hf, st)
    provenance: Provenance = field(default_factory=Provenance, compare=False)
    text: str = field(default="", compare=False, repr=False)  # the string it was parsed from

    # parsing --------------------------------------------------------------------------------
    @classmethod
    def parse(cls, value: Any) -> EncoderSpec:
        """An :class:`EncoderSpec` from a spec string, a dict of its fields, or an object with
        them (an :class:`EncoderSpec` is returned as is); one clear error line when wrong."""
        if isinstance(value, EncoderSpec):
            return value
        if isinstance(value, (str, os.PathLike)):
            text = os.fspath(value)
            return replace(_with_provenance(_parse_string(text)), text=text)
        if isinstance(value, dict):
            return _with_provenance(_from_fields(dict(value), f"encoder {value!r}"))
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
            return _with_provenance(_from_fields(fields, f"encoder {value!r}"))
        raise XProbeError(
            f"encoder {value!r}: expected a spec string, a dict or an EncoderSpec, "
            f"not a {type(value).__name__}"
        )

    # reading --------------------------------------------------------------------------------
    @property
    def display_name(self) -> str:
        """The name its records and the report use: ``name``, else one made from the spec."""
        return self.name or _default_name(self)

    @property
    def shown(self) -> str:
        """The spec as its user wrote it (records and messages quote it), else canonical."""
        return self.text or str(self)

    @property
    def plain(self) -> str:
        """The canonical spec string without its display name."""
        return str(replace(self, name=None))

    @property
    def target(self) -> tuple[str, str]:
        """A ``python:`` spec's ``(module, function)`` (``("", path)`` when it names no module)."""
        module, _, function = self.path.rpartition(":")
        return module, function

    def record_fields(self) -> dict[str, str]:
        """Provenance fields of its records (``mapped_from``/``teacher`` of a mapped student)."""
        return self.provenance.record_fields()

    def __str__(self) -> str:
        opts: list[str] = []
        if self.kind == "random":
            seed = "" if self.seed is None else f":{self.seed}"
            head = f"random:{self.arch}:{self.path}{seed}"
            opts = [f"{k}={v}" for k, v in self.sizes]
        elif self.kind in ("hf", "st"):
            head = f"{self.kind}:{self.path}"
            opts += [] if self.pooling == "mean" else [f"pooling={self.pooling}"]
            opts += [] if self.layers is None else ["layers=" + ",".join(map(str, self.layers))]
            opts += [] if self.detok == "auto" else [f"detok={self.detok}"]
            opts += [] if self.max_length is None else [f"max_length={self.max_length}"]
            opts += [] if self.revision is None else [f"revision={self.revision}"]
        else:
            head = self.path if self.kind == "checkpoint" else f"{self.kind}:{self.path}"
        opts += [] if self.name is None else [f"name={self.name}"]
        return f"{head}[{','.join(opts)}]" if opts else head


def student_spec(value: str | EncoderSpec) -> str | EncoderSpec:
    """``xprobe map --student``: a transformer's spec (``hf:PATH``, ``st:PATH``) parsed into an
    :class:`EncoderSpec`; an architecture name (``bilstm-max``) as is."""
    if isinstance(value, EncoderSpec) or value.partition(":")[0] not in ("hf", "st"):
        return value
    return EncoderSpec.parse(value)


def _split_name(spec: str) -> tuple[str, str | None]:
    """The spec without its ``name=NAME`` option, and the name (None when it has none)."""
    if not spec.endswith("]") or "[" not in spec:
        return spec, None
    head, _, opts = spec[:-1].rpartition("[")
    items = opts.split(",")
    names = [x.strip()[5:].strip() for x in items if x.strip().startswith("name=")]
    if not names:
        return spec, None
    if not names[-1]:
        raise XProbeError(f"--encoder {spec}: empty name= (expected [name=NAME])")
    rest = ",".join(x for x in items if not x.strip().startswith("name="))
    return (f"{head}[{rest}]" if rest.strip() else head), names[-1]


def _parse_string(text: str) -> EncoderSpec:
    spec, name = _split_name(text)
    kind, _, rest = spec.partition(":")
    if kind in ("hf", "st"):
        return replace(_parse_transformer(spec), name=name)
    if kind in ("bov", "pmeans", "npy", "python") and rest:
        return EncoderSpec(kind, rest, name)
    if kind == "random" and rest:
        return replace(_parse_random(rest), name=name)
    return EncoderSpec("checkpoint", spec, name)


def _parse_random(rest: str) -> EncoderSpec:
    """``ARCH:PATH[:SEED][hidden=256,layers=1]`` or ``[like=DIR]``."""
    sizes: dict[str, Any] = {}
    if rest.endswith("]") and "[" in rest:
        rest, _, opts = rest[:-1].rpartition("[")
        for item in (x.strip() for x in opts.split(",") if x.strip()):
            key, eq, val = item.partition("=")
            if not eq:
                raise XProbeError(f"random:{rest}[{opts}]: expected key=value, not {item!r}")
            sizes[key.strip()] = val.strip() if key.strip() == "like" else _int(val, key)
    arch, _, path = rest.partition(":")
    head, _, tail = path.rpartition(":")
    seed = None
    if head and tail.isdigit():
        path, seed = head, int(tail)
    return EncoderSpec("random", path, arch=arch, seed=seed, sizes=tuple(sizes.items()))


def _int(val: Any, key: str) -> int:
    if not str(val).strip().isdigit():
        raise XProbeError(f"random: size {key}={val!r} is not a positive integer")
    return int(val)


def _parse_transformer(spec: str) -> EncoderSpec:
    """``hf:PATH[opts]`` / ``st:PATH[opts]`` (without its name); clear error if wrong."""
    kind, _, rest = spec.partition(":")
    if kind not in ("hf", "st") or not rest:
        raise XProbeError(f"--encoder {spec}: expected hf:PATH[options] or st:PATH[options]")
    path, opts = rest, ""
    if rest.endswith("]"):
        path, sep, opts = rest[:-1].rpartition("[")
        if not sep or not path:
            raise XProbeError(f"--encoder {spec}: unbalanced [...] around the options")
    elif "[" in rest or "]" in rest:
        raise XProbeError(f"--encoder {spec}: options go in brackets at the end: {kind}:PATH[...]")
    values: dict[str, list[str]] = {}
    key = None
    for tok in (t.strip() for t in opts.split(",") if t.strip()):
        if "=" in tok:
            key, _, val = tok.partition("=")
            key = key.strip()
            if key not in _KEYS:
                raise XProbeError(
                    f"--encoder {spec}: unknown option {key!r}; valid: {', '.join(_KEYS)}"
                )
            values.setdefault(key, []).append(val.strip())
        elif tok in POOLINGS:
            values.setdefault("pooling", []).append(tok)
        elif key == "layers":
            values["layers"].append(tok)
        else:
            raise XProbeError(f"--encoder {spec}: cannot read option {tok!r} (key=value)")
    last = {k: v[-1] for k, v in values.items()}
    return _checked_transformer(kind, path, last, values.get("layers"), spec)


def _checked_transformer(
    kind: str, path: str, last: dict[str, Any], layers: list[str] | None, spec: str
) -> EncoderSpec:
    out = EncoderSpec(kind, path)
    if "pooling" in last:
        pooling = last["pooling"]
        if pooling not in POOLINGS:
            raise XProbeError(
                f"--encoder {spec}: unknown pooling {pooling!r}; valid: {', '.join(POOLINGS)}"
            )
        if kind == "st":
            raise XProbeError(
                f"--encoder {spec}: st: uses the model's own pooling; use hf:PATH[pooling=...]"
            )
        out = replace(out, pooling=pooling)
    if layers is not None:
        out = replace(out, layers=_parse_layers(layers, spec))
    if "detok" in last:
        out = replace(out, detok=last["detok"] or "auto")
    if last.get("max_length") is not None:
        ml = str(last["max_length"])
        if not ml.isdigit() or int(ml) < 2:
            raise XProbeError(f"--encoder {spec}: max_length must be an integer >= 2, not {ml!r}")
        out = replace(out, max_length=int(ml))
    if last.get("revision") is not None:
        rev = str(last["revision"])
        if not rev or any(c in rev for c in " []"):
            raise XProbeError(f"--encoder {spec}: revision= needs a branch, tag or commit")
        out = replace(out, revision=rev)
    return out


def _parse_layers(items: list[str], spec: str) -> tuple[int, ...] | None:
    if items == ["all"]:
        return None
    layers: list[int] = []
    for item in items:
        a, dash, b = item.partition("-")
        if a.isdigit() and (not dash or b.isdigit()):
            layers.extend(range(int(a), int(b if dash else a) + 1))
        else:
            raise XProbeError(
                f"--encoder {spec}: layers must be all, N, A-B or a comma list, not {item!r}"
            )
    if not layers:
        raise XProbeError(f"--encoder {spec}: empty layer list")
    return tuple(sorted(set(layers)))


def _from_fields(d: dict[str, Any], where: str) -> EncoderSpec:
    """An EncoderSpec from a dict of its fields (``model`` may stand for ``path``)."""
    if "model" in d and "path" not in d:
        d["path"] = d.pop("model")
    d.pop("provenance", None)
    d.pop("text", None)
    own = ("provenance", "text")
    valid = [f.name for f in dataclasses.fields(EncoderSpec) if f.name not in own]
    unknown = sorted(set(d) - set(valid))
    if unknown:
        raise XProbeError(f"{where}: unknown field(s) {', '.join(unknown)}; valid: "
                          f"{', '.join(valid)}")  # fmt: skip
    kind, path = d.get("kind"), d.get("path")
    if kind not in KINDS or not isinstance(path, str) or not path:
        raise XProbeError(f"{where}: expected kind (one of {', '.join(KINDS)}) and a path")
    name = d.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise XProbeError(f"{where}: name must be a non-empty string")
    if kind in ("hf", "st"):
        layers = d.get("layers")
        items = None if layers is None else _layer_items(layers)
        last = {k: d[k] for k in ("pooling", "detok", "max_length", "revision") if k in d}
        if kind == "st" and last.get("pooling") == "mean":
            last.pop("pooling")
        return replace(_checked_transformer(kind, path, last, items, where), name=name)
    sizes = d.get("sizes") or ()
    sizes = tuple(sorted(sizes.items()) if isinstance(sizes, dict) else map(tuple, sizes))
    out = EncoderSpec(kind, path, name, arch=str(d.get("arch") or ""), seed=d.get("seed"),
                      sizes=sizes)  # fmt: skip
    if kind == "random" and not out.arch:
        raise XProbeError(f"{where}: a random encoder needs arch")
    return out


def _layer_items(layers: Any) -> list[str]:
    if isinstance(layers, str):
        return [x.strip() for x in layers.split(",") if x.strip()]
    if isinstance(layers, int):
        return [str(layers)]
    return [str(x) for x in layers]


# provenance -------------------------------------------------------------------------------
def _with_provenance(spec: EncoderSpec) -> EncoderSpec:
    """``spec`` with what its files say (read once, here): a checkpoint's provenance (for a
    random control ``[like=DIR]``: DIR's), the display name of a mapped student's teacher."""
    if spec.kind == "random" and "like" in dict(spec.sizes):  # the sizes it copies, only:
        like = read_provenance(str(dict(spec.sizes)["like"]))  # a control maps from nothing
        return replace(spec, provenance=Provenance(arch=like.arch, sizes=like.sizes))
    if spec.kind not in ("checkpoint", "hf", "st"):
        return spec
    own = read_provenance(spec.path)
    if own.teacher:
        own = replace(own, teacher_name=_teacher_name(own.teacher))
    if spec.kind in ("hf", "st"):
        own = replace(own, model=model_name(spec.path))
    return replace(spec, provenance=own)


def read_teacher(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """``{"teacher": spec, "teacher_id": id, ...}`` of a distilled student directory, else None
    (``xprobe_student.json`` of a transformer student, or ``config.json``'s ``extra``).

    Accepts a directory or a spec naming one (``st:DIR``, ``hf:DIR``)."""
    return _read_teacher(_parse_string(os.fspath(path)).path)


def _teacher_name(teacher: str) -> str:
    """The name a mapped student's records give its teacher: the teacher spec's ``name=``, else
    its folder's name."""
    try:
        spec = _parse_string(teacher)
    except XProbeError:  # a spec this version cannot read: its last path part
        return Path(teacher.rstrip("/")).name
    return spec.name or Path(spec.path.rstrip("/")).name


# display names ----------------------------------------------------------------------------
def _default_name(s: EncoderSpec) -> str:
    """``bov:en.vec`` -> ``bov-en``; a model directory: its card's name; a checkpoint: its
    folder's name."""
    if s.kind in ("bov", "pmeans", "npy"):
        return f"{s.kind}-{Path(s.path).name.split('.')[0]}"
    if s.kind == "random":
        seed = "" if s.seed is None else f"-s{s.seed}"
        extra = "".join(
            f"-like-{Path(str(v)).name}" if k == "like" else f"-{k}{v}" for k, v in s.sizes
        )
        return f"random-{s.arch}-{Path(s.path).name.split('.')[0]}{seed}{extra}"
    if s.kind == "python":
        return s.target[1]
    if s.kind in ("hf", "st"):
        pool = "" if s.kind == "st" or s.pooling == "mean" else f"-{s.pooling}"
        return f"{s.kind}-{s.provenance.model or model_name(s.path)}{pool}"
    return Path(s.path.rstrip("/")).name or s.path


# deprecated: the string helpers of before EncoderSpec ---------------------------------------
@dataclass(frozen=True)
class TransformerSpec:
    """What a transformer encoder needs of its spec (model objects wrapped by
    :func:`xprobe.encoders.pyobj.from_model` have no spec string); ``layers=None``: every layer.
    An :class:`EncoderSpec` has the same fields."""

    kind: str
    path: str
    pooling: str = "mean"
    layers: tuple[int, ...] | None = None
    detok: str = "auto"
    max_length: int | None = None
    revision: str | None = None


def is_transformer_spec(spec: str) -> bool:
    """Deprecated: ``EncoderSpec.parse(spec).kind in ("hf", "st")``."""
    return spec.partition(":")[0] in ("hf", "st")


def parse_transformer_spec(spec: str) -> TransformerSpec:
    """Deprecated: :meth:`EncoderSpec.parse`. ``hf:PATH[opts]`` / ``st:PATH[opts]`` ->
    :class:`TransformerSpec` (clear error if wrong)."""
    s = EncoderSpec.parse(spec)
    if s.kind not in ("hf", "st"):
        raise XProbeError(f"--encoder {spec}: expected hf:PATH[options] or st:PATH[options]")
    return TransformerSpec(s.kind, s.path, s.pooling, s.layers, s.detok, s.max_length, s.revision)


def split_display_name(spec: str) -> tuple[str, str | None]:
    """Deprecated: ``EncoderSpec.parse(spec)``'s ``plain`` and ``name``. The spec without its
    ``name=NAME`` option, and the name (None when it has none)."""
    return _split_name(spec)


def default_name(spec: str | EncoderSpec) -> str:
    """Deprecated: ``EncoderSpec.parse(spec).display_name``. A short display name for a spec
    (``bov:en.vec`` -> ``bov-en``; its ``[name=NAME]`` when it has one)."""
    return EncoderSpec.parse(spec).display_name

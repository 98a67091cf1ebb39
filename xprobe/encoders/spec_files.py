"""What an encoder's own files say about it, read once when its spec is parsed
(:meth:`xprobe.encoders.encoder_spec.EncoderSpec.parse`): a checkpoint's recorded provenance
(:class:`Provenance`: the teacher of a student made by ``xprobe map``, its languages, training
data, architecture and sizes) and a model directory's name (:func:`model_name`, from its card).

Reading is tolerant: a file that is missing or unreadable gives empty fields, and the loader
reports the problem when the encoder is loaded.

Example::

    read_provenance("models/de-bilstm-max").teacher_id   # 'bilstm-max-...' of its teacher
    model_name("models/all-MiniLM-L6-v2/model")          # its card's name, else 'all-MiniLM-L6-v2'
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["STUDENT_META", "Provenance", "card_name", "model_name", "read_provenance",
           "read_teacher"]  # fmt: skip

STUDENT_META = "xprobe_student.json"  # a transformer student's metadata (xprobe map)
_GENERIC = ("model", "models", "snapshot", "snapshots", "hf", "st", "checkpoint", "main")


@dataclass(frozen=True)
class Provenance:
    """What a checkpoint's own files say about where it came from (empty when nothing)."""

    teacher: str = ""  # the teacher's spec, as ``xprobe map`` was given it
    teacher_id: str = ""  # the teacher's encoder id (as in the teacher's own records)
    languages: tuple[str, ...] = ()
    training_data: tuple[str, ...] = ()
    arch: str = ""  # an xprobe checkpoint's architecture (``config.json``'s ``encoder``)
    sizes: tuple[tuple[str, Any], ...] = ()  # and its sizes (``hidden``, ``layers``...)
    teacher_name: str = ""  # the teacher spec's display name (set when the spec is parsed)
    model: str = ""  # a model directory's name (:func:`model_name`), for its display name

    def record_fields(self) -> dict[str, str]:
        """``mapped_from``/``teacher`` for the records of a mapped student; empty otherwise."""
        if not self.teacher_id:
            return {}
        out = {"mapped_from": self.teacher_id}
        if self.teacher:
            out["teacher"] = self.teacher_name or Path(self.teacher.rstrip("/")).name
        return out


def read_teacher(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """``{"teacher": spec, "teacher_id": id, ...}`` of a distilled student directory, else None
    (``xprobe_student.json`` of a transformer student, or ``config.json``'s ``extra``)."""
    meta = _extra(path)
    if not isinstance(meta, dict) or "teacher" not in meta:
        return None
    return {k: meta[k] for k in ("teacher", "teacher_id", "kind") if k in meta}


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8")) if path.is_file() else None
    except (OSError, ValueError):
        return None


def _extra(path: str | os.PathLike[str], config: Any = None) -> Any:
    d = Path(path)
    meta = _json(d / STUDENT_META)
    if meta is not None:
        return meta
    config = _json(d / "config.json") if config is None else config
    return config.get("extra", {}) if isinstance(config, dict) else None


def read_provenance(path: str) -> Provenance:
    """A checkpoint's recorded teacher, languages, training data, architecture and sizes (read
    once, tolerant: an unreadable checkpoint is reported by its loader)."""
    config = _json(Path(path) / "config.json")
    enc = config.get("encoder") if isinstance(config, dict) else None
    own = _own_config(enc)
    extra = _extra(path, config)
    if not isinstance(extra, dict):
        return Provenance(**own)
    teacher, tid = extra.get("teacher"), extra.get("teacher_id")
    mapping = extra.get("mapping") if isinstance(extra.get("mapping"), dict) else {}
    if "teacher" not in extra and mapping.get("teacher_id"):  # the layout before xprobe map's
        tid, teacher = mapping["teacher_id"], (mapping.get("config") or {}).get("teacher")
    elif "teacher" not in extra:
        tid = None
    langs = [extra.get(k) for k in ("source_lang", "target_lang", "language")]
    corpus = mapping.get("corpus") if isinstance(mapping.get("corpus"), dict) else {}
    data = corpus.get("files") or extra.get("train_files") or ()
    return Provenance(
        teacher=str(teacher or "") if tid else "",
        teacher_id=str(tid or ""),
        languages=tuple(str(x) for x in langs if isinstance(x, str) and x),
        training_data=tuple(str(x) for x in data) if isinstance(data, list) else (),
        **own,
    )


def _own_config(enc: Any) -> dict[str, Any]:
    """``arch``/``sizes`` of an xprobe checkpoint's ``encoder`` config (empty otherwise)."""
    if not isinstance(enc, dict) or not isinstance(enc.get("arch"), str):
        return {}
    sizes = tuple((k, v) for k, v in enc.items() if k != "arch" and isinstance(v, (int, float)))
    return {"arch": enc["arch"], "sizes": sizes}


def card_name(directory: Path) -> str | None:
    """The model's name from its card (``README.md``): the YAML ``model_name``, else the first
    ``# heading`` when it is one word (``# all-MiniLM-L6-v2``); None when there is none."""
    try:
        text = (directory / "README.md").read_text(encoding="utf-8", errors="replace")[:20000]
    except OSError:
        return None
    front, body = "", text
    if text.startswith("---"):
        front, _, body = text[3:].partition("\n---")
    m = re.search(r"^model_name:\s*[\"']?([^\"'\n]+?)[\"']?\s*$", front, re.M)
    if m:
        return m[1].strip()
    m = re.search(r"^# (\S+)\s*$", body, re.M)
    return m[1] if m else None


def model_name(path: str) -> str:
    """A meaningful name for a model path: its card's name, else the directory's name, skipping
    generic parts (``pkg/model`` -> ``pkg``); a hub name's last part."""
    p = Path(path.rstrip("/")).expanduser()
    if p.is_dir():
        named = card_name(p)
        if named:
            return named
    parts = [x for x in p.parts if x not in ("/", "")]
    while len(parts) > 1 and parts[-1].lower() in _GENERIC:
        parts.pop()
    return parts[-1] if parts else path

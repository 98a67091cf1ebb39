"""Probing from Python, as mteb and SentEval users expect: ``xprobe.evaluate``.

``evaluate(encoder, data, tasks=None, out=...)`` probes ``encoder`` on the probing sets in
``data`` and returns the result records; it writes the same results file as ``xprobe probe
--out`` (appended, records already there are skipped, so a second call returns at once).

``encoder`` is one of: an ``--encoder`` spec string (``"st:models/all-MiniLM-L6-v2"``); a
callable from a list of sentences (str) to an array ``(n, dim)``; a sentence-transformers
``SentenceTransformer``; a transformers model (``tokenizer=`` or loaded from its path); or an
object with ``encode(list of token lists)``, ``dim`` and ``id``. ``data`` is a probing folder
(SentEval files, an ``xprobe export datasets`` folder, or X-Probe's layout), a list of them, a
``{language: folder}`` dict, or a folder of probing folders (``probing/en``, ``probing/de``)
narrowed by ``languages``.

Example::

    import numpy as np, xprobe
    recs = xprobe.evaluate(lambda texts: np.ones((len(texts), 2)), "probing/en",
                           tasks=["SentLen"], out="results/ones.jsonl", name="ones")
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from xprobe.encoders.encoder_spec import EncoderSpec
from xprobe.encoders.pyobj import as_encoder
from xprobe.errors import XProbeError
from xprobe.probe.classifiers import TrainConfig
from xprobe.probe.datasets import detect_layout, dir_language
from xprobe.probe.harness import ProbeOptions, run_probe
from xprobe.probe.records import read_records

__all__ = ["evaluate"]

log = logging.getLogger(__name__)

PathLike = str | os.PathLike[str]


def _is_probing_dir(d: Path) -> bool:
    try:
        detect_layout(d)
    except XProbeError:
        return False
    return True


def probing_folders(
    data: PathLike | list[PathLike] | dict[str, PathLike], languages: list[str] | None = None
) -> list[tuple[Path, str | None]]:
    """(folder, language or None to read it from the manifest) for every folder to probe."""
    if isinstance(data, dict):
        pairs = [(Path(p), str(lang)) for lang, p in data.items()]
    elif isinstance(data, (list, tuple)):
        pairs = [(Path(p), None) for p in data]
    else:
        d = Path(data)
        if not d.is_dir():
            raise XProbeError(f"{d}: probing data folder not found")
        subs = [p for p in sorted(d.iterdir()) if p.is_dir() and (p / "manifest.json").is_file()]
        pairs = [(d, None)] if _is_probing_dir(d) or not subs else [(p, None) for p in subs]
    if languages:
        pairs = [(p, lang) for p, lang in pairs if (lang or dir_language(p)) in languages]
        if not pairs:
            raise XProbeError(f"{data}: no probing folder for language(s) {', '.join(languages)}")
    return pairs


def evaluate(
    encoder: Any,
    data: PathLike | list[PathLike] | dict[str, PathLike],
    tasks: list[str] | None = None,
    out: PathLike = "results/xprobe.jsonl",
    *,
    languages: list[str] | None = None,
    classifiers: tuple[str, ...] | list[str] = ("mlp",),
    seeds: int | None = None,
    name: str | None = None,
    device: str = "auto",
    cache_dir: PathLike | None = None,
    **options: Any,
) -> list[dict[str, Any]]:
    """Probe ``encoder`` on ``data``; append the records to ``out``; return this encoder's (and
    the baselines') records for the folders and tasks asked, new or already in ``out``.

    ``options``: ``tokenizer`` (a transformers model's), ``layers`` (``"last"`` or ``"all"`` for
    model objects), ``detok`` (False: a callable gets space-joined tokens), ``train`` (a
    :class:`~xprobe.probe.classifiers.TrainConfig`), and any other
    :class:`~xprobe.probe.harness.ProbeOptions` field (``max_train``, ``grid``, ``control``...).
    """
    import dataclasses

    from xprobe.encoders.device import resolve_device

    if isinstance(encoder, (str, dict)):  # the edge: a spec is parsed once, here
        encoder = EncoderSpec.parse(encoder)
    wrap = {k: options.pop(k) for k in ("tokenizer", "layers", "detok") if k in options}
    valid = {f.name for f in dataclasses.fields(ProbeOptions)} - {"tasks", "classifiers", "seeds",
             "name", "language", "device", "cache_dir"}  # fmt: skip
    unknown = sorted(set(options) - valid)
    if unknown:
        raise XProbeError(
            f"evaluate(): unknown option(s) {', '.join(unknown)}; valid: "
            f"{', '.join(sorted(valid | {'tokenizer', 'layers', 'detok'}))}"
        )
    dev = resolve_device(device)
    train = options.pop("train", TrainConfig())
    out = Path(out)
    probed: list[tuple[str, str]] = []
    for folder, lang in probing_folders(data, languages):
        language = lang or dir_language(folder)
        enc = as_encoder(encoder, name, language=language, device=dev, **wrap)
        is_spec = enc is None or isinstance(enc, EncoderSpec)
        label = name or (None if is_spec else _display(encoder, enc))
        opts = ProbeOptions(tasks=tasks, classifiers=tuple(classifiers), seeds=seeds, name=label,
                            language=lang, device=dev, cache_dir=cache_dir, train=train,
                            **options)  # fmt: skip
        records = run_probe(enc, folder, out, opts)
        probed.append((language, _encoder_name(label, encoder)))
        log.info("%s: %d new record(s) in %s", folder, len(records), out)
    wanted = {t.lower() for t in tasks} if tasks else None
    return [
        r for r in read_records(out)
        if any(r["language"] == lang and r["encoder"] in (who, "baseline") for lang, who in probed)
        and (wanted is None or r["task"].lower() in wanted)
    ]  # fmt: skip


def _display(obj: Any, enc: Any) -> str:
    """A display name for a Python object: a model's name (``st-all-MiniLM-L6-v2``), a
    function's name, else the encoder's id."""
    loaded = getattr(enc, "loaded", None)
    if loaded is not None:
        return f"{loaded.kind}-{loaded.name}"
    return str(getattr(enc, "name", None) or getattr(obj, "__name__", None) or enc.id)


def _encoder_name(label: str | None, encoder: Any) -> str:
    if label:
        return label
    if encoder is None:
        return "baseline"
    return encoder.display_name if isinstance(encoder, EncoderSpec) else str(encoder)

"""Build the minimal pairs of a probing folder: one ``PHENOMENON.tsv`` per phenomenon and a
``manifest.json`` with counts per split, or the phenomenon n/a with its kind and reason.

Splits are the probe's: a perturbation pair keeps its line's split; an agreement pair takes the
split of its sentence's SubjNum line where it has one, else a seeded draw (80/10/10) from
(seed, language, source, line), so that a rebuild gives the same bytes. Every pair is scored (a
language model is not trained on them; the n-gram control is cross-fitted over folds of gold
sentences); a phenomenon with fewer than :func:`~xprobe.protocol.min_items` pairs (a 95 %
half-width over 10 points at 50 %) is n/a, kind ``corpus``.
"""

from __future__ import annotations

import json
import logging
import os
from collections import Counter
from pathlib import Path
from typing import Any

from xprobe import __version__
from xprobe.errors import XProbeError
from xprobe.files import read_lines, rng, sha256_file, write_json
from xprobe.languages import LanguageProfile, load_profile
from xprobe.pairs.agreement import AGREEMENT_SOURCE, FEATURES, Lexicon, agreement_pairs
from xprobe.pairs.model import CONTROL_FOLDS, PHENOMENA, Pair, pairs_path, write_pairs
from xprobe.pairs.perturbed import perturbed_pairs
from xprobe.protocol import min_items
from xprobe.ud import Sentence, read_conllu

__all__ = ["build_pairs", "gold_sentences"]

log = logging.getLogger(__name__)


def gold_sentences(paths: list[str]) -> dict[tuple[str, int], Sentence]:
    """The sentences of the treebank files ``paths`` by (file, line), as provenance names them."""
    found: dict[tuple[str, int], Sentence] = {}
    for p in paths:
        if not Path(p).is_file():
            raise XProbeError(f"{p}: the probing folder's input is not there (moved?)")
        found.update(((p, s.line), s) for s in read_conllu(p))
    return found


def build_pairs(
    probing: str | os.PathLike[str],
    out: str | os.PathLike[str],
    profile: str | LanguageProfile | None = None,
    min_pairs: int | None = None,
) -> dict[str, Any]:
    """Write the pairs of the probing folder ``probing`` into ``out``; returns the manifest.
    ``profile``: the language's (a code, a file, or loaded); default: the folder's language.
    ``min_pairs``: the fewest pairs of a phenomenon (default
    :func:`~xprobe.protocol.min_items`)."""
    floor = min_pairs or min_items()
    folder, out = Path(probing), Path(out)
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        raise XProbeError(f"{folder}: no manifest.json (not a finished probing folder)")
    m = json.loads(manifest_path.read_text(encoding="utf-8"))
    lang = m["language"]
    prof = profile if isinstance(profile, LanguageProfile) else load_profile(profile or lang)
    paths = [x["path"] for x in m["inputs"]]
    gold = gold_sentences(paths)
    subj_split = _splits_of(folder, "subj_number")
    phenomena: dict[str, Any] = {}
    for name, (task, label) in PHENOMENA.items():
        if task:
            entry = m["tasks"].get(task, {})
            if entry.get("applicable", True) is False:
                phenomena[name] = _na(entry.get("kind", "corpus"), f"{task}: {entry['reason']}")
                continue
            if task not in m["tasks"]:
                phenomena[name] = _na("corpus", f"{task} was not extracted in this folder")
                continue
            pairs = list(perturbed_pairs(folder, task, label, gold))
            lines = {k: v["total"] for k, v in entry.get("written", {}).items()}
        else:
            pairs, na = _agreement(name, gold, prof, subj_split, m["seed"], lang)
            if na is not None:
                phenomena[name] = na
                continue
        what = "" if task else f" ({AGREEMENT_SOURCE % FEATURES[name]})"
        phenomena[name] = _write(out, name, pairs, floor, what)
        if task and "file" in phenomena[name]:  # where its items sit in the task file
            phenomena[name].update(task=task, task_lines=lines)
    manifest = {
        "language": lang,
        "variant": m.get("variant", ""),
        "profile": prof.variant or prof.code,
        "probing": {"folder": folder.name, "manifest_sha256": sha256_file(manifest_path)},
        "seed": m["seed"],
        "control_folds": CONTROL_FOLDS,
        "floor": floor,
        "phenomena": phenomena,
        "xprobe_version": __version__,
    }
    write_json(out / "manifest.json", manifest)
    return manifest


def _na(kind: str, reason: str) -> dict[str, Any]:
    return {"applicable": False, "kind": kind, "reason": reason}


def _write(out: Path, name: str, pairs: list[Pair], floor: int, what: str = "") -> dict[str, Any]:
    splits = Counter(p.split for p in pairs)
    if len(pairs) < floor:
        return _na("corpus", f"{len(pairs)} pairs{what}: needs {floor} (--min-pairs; a 95 % "
                   "half-width of at most 10 points at 50 %)")  # fmt: skip
    write_pairs(pairs_path(out, name), pairs)
    log.info("%s: %d pairs (%s)", name, len(pairs), ", ".join(f"{s} {splits[s]}" for s in splits))
    return {"file": f"{name}.tsv", "pairs": len(pairs), "splits": dict(sorted(splits.items()))}


def _splits_of(folder: Path, task: str) -> dict[tuple[str, int], str]:
    prov = folder / f"{task}.provenance.tsv"
    if not prov.is_file():
        return {}
    found = {}
    for _, line in read_lines(prov):
        cells = line.rstrip("\n").split("\t")
        found[(cells[2], int(cells[3]))] = cells[0]
    return found


def _agreement(
    name: str,
    gold: dict[tuple[str, int], Sentence],
    profile: LanguageProfile,
    subj_split: dict[tuple[str, int], str],
    seed: int,
    lang: str,
) -> tuple[list[Pair], dict[str, Any] | None]:
    feature = FEATURES[name]
    lexicon = Lexicon(feature)
    lexicon.add(gold.values(), profile)
    if not lexicon.verbs_marked:
        return [], _na("annotation", f"the treebank marks {feature} on no finite verb (a "
                       f"language without {feature} agreement on the verb, or a treebank that "
                       "does not annotate it)")  # fmt: skip
    pairs = []
    for s, bad, change in agreement_pairs(gold.values(), lexicon, profile):
        key = (s.source, s.line)
        split = subj_split.get(key) or _draw(seed, lang, *key)
        pairs.append(Pair(split, s.text, bad, s.source, s.line, None, change))
    return pairs, None


def _draw(seed: int, lang: str, source: str, line: int) -> str:
    r = rng(seed, lang, "pairs", Path(source).name, line).random()
    return "tr" if r < 0.8 else "va" if r < 0.9 else "te"

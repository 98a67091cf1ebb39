"""Loading probing sets: SentEval files and the original X-Probe layout.

Three layouts are read (the third, ``hf``, is an ``xprobe export datasets`` folder of parquet
files; :mod:`xprobe.probe.hf_layout`):

* **SentEval** (what ``xprobe extract`` writes): one file per task, ``TASK.txt``, each line
  ``split<TAB>label<TAB>sentence`` with split ``tr``, ``va`` or ``te`` and a space-tokenised
  sentence (extra middle fields are ignored, as SentEval does);
* **X-Probe** (Ravishankar et al.'s release): ``LANG/TASK/{tr,va,te}.txt``, each line
  ``sentence<TAB>label``.

The label set of a task is taken from all splits (sorted numerically when every label is an
integer, else alphabetically), so a label seen only in test still gets an index. Malformed lines
raise :class:`~xprobe.errors.InputError` naming file and line.

A set without a training split (the shared X-Probe copy has only ``va`` and ``te``) can be made
usable with :func:`ensure_train`: ``va`` becomes the training split and ``te`` is cut into a new
validation and test half (stratified, seeded); the result records this in ``protocol``.

Example::

    sets = load_probing_dir("probing/de", tasks=["SentLen"])
    ps = ensure_train(sets[0], seed=0)
    ps.tokens["tr"][0], ps.y("tr")[:5], ps.labels
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from xprobe.errors import InputError, XProbeError
from xprobe.files import np_rng, read_lines
from xprobe.probe.hf_layout import hf_senteval_lines, hf_task_dirs, is_hf_export

__all__ = [
    "SPLITS",
    "ProbingSet",
    "detect_layout",
    "dir_dataset",
    "dir_language",
    "ensure_train",
    "load_probing_dir",
    "read_hf_task",
    "read_senteval",
    "read_xprobe_task",
    "task_name",
]

SPLITS = ("tr", "va", "te")


@dataclass
class ProbingSet:
    """One probing task in one language: tokens and labels per split.

    ``task`` is the short name (``SentLen``) when the registry knows the file stem, else the stem;
    ``sha256`` identifies the content (the bytes of the file(s) read); ``protocol`` says how the
    splits were formed (``"tr/va/te"`` as written, or how :func:`ensure_train` derived them);
    ``rows[split]`` gives each sentence's row in the task file(s) (0-based, non-empty lines, in
    file order; the X-Probe layout counts tr, then va, then te), for precomputed embeddings;
    ``n_rows`` is how many rows the file(s) hold (kept when splits are re-formed or filtered);
    ``overlap_removed`` how many va/te sentences were dropped for occurring in training
    (:mod:`xprobe.probe.overlap`).
    """

    task: str
    file: str
    language: str
    tokens: dict[str, list[tuple[str, ...]]]
    labels_of: dict[str, list[str]]
    labels: tuple[str, ...]
    sha256: str
    source: str
    protocol: str = "tr/va/te"
    rows: dict[str, np.ndarray] = field(default_factory=dict)
    n_rows: int = 0
    overlap_removed: dict[str, int] = field(default_factory=dict)
    _index: dict[str, int] = field(default_factory=dict, repr=False)

    def y(self, split: str) -> np.ndarray:
        """Integer labels (indices into :attr:`labels`) of a split, int64."""
        if not self._index:
            self._index = {lab: i for i, lab in enumerate(self.labels)}
        return np.fromiter((self._index[x] for x in self.labels_of[split]), dtype=np.int64)

    def size(self, split: str) -> int:
        return len(self.tokens.get(split, ()))

    def split_hash(self, split: str) -> str:
        """SHA-256 of one split's sentences (the embedding-cache key part for that split)."""
        h = hashlib.sha256()
        for toks in self.tokens[split]:
            h.update(" ".join(toks).encode("utf-8", "surrogateescape"))
            h.update(b"\n")
        return h.hexdigest()


def task_name(stem: str) -> str:
    """The registry's short name for a file stem (``sentence_length`` -> ``SentLen``), else stem."""
    from xprobe.tasks import TASKS

    for spec in TASKS.values():
        if stem.lower() in (spec.file.lower(), spec.name.lower()):
            return spec.name
    return stem


def _label_order(labels: set[str]) -> tuple[str, ...]:
    try:
        return tuple(sorted(labels, key=lambda x: (int(x), x)))
    except ValueError:
        return tuple(sorted(labels))


def _split_line(line: str, path: Path, lineno: int, fields: int) -> list[str]:
    parts = line.rstrip("\n").rstrip("\r").split("\t")
    if len(parts) < fields:
        raise InputError(
            str(path), lineno, f"expected {fields} tab-separated fields, found {len(parts)}"
        )
    return parts


def read_senteval(path: str | os.PathLike[str], language: str = "") -> ProbingSet:
    """Read one SentEval-format task file (``split<TAB>label<TAB>sentence``)."""
    p = Path(path)
    return senteval_lines(read_lines(p), p, p.name.split(".")[0], language)


def senteval_lines(
    lines: Iterable[tuple[int, str]], p: Path, stem: str, language: str = ""
) -> ProbingSet:
    """A set from SentEval lines (numbered, with their newlines) read from ``p``; its sha256 is
    that of the lines' bytes, so the same rows give the same hash whatever held them."""
    tokens: dict[str, list[tuple[str, ...]]] = {s: [] for s in SPLITS}
    labels: dict[str, list[str]] = {s: [] for s in SPLITS}
    rows: dict[str, list[int]] = {s: [] for s in SPLITS}
    digest = hashlib.sha256()
    row = 0
    for lineno, line in lines:
        digest.update(line.encode("utf-8", "surrogateescape"))
        if not line.strip():
            continue
        parts = _split_line(line, p, lineno, 3)
        split, label, sentence = parts[0], parts[1], parts[-1]
        if split not in tokens:
            raise InputError(str(p), lineno, f"split must be tr, va or te, not {split!r}")
        _add(tokens[split], labels[split], sentence, label, p, lineno)
        rows[split].append(row)
        row += 1
    return _finish(stem, language, tokens, labels, digest.hexdigest(), str(p), rows)


def _add(
    toks: list[tuple[str, ...]], labs: list[str], sentence: str, label: str, p: Path, n: int
) -> None:
    words = tuple(sentence.split())
    if not words:
        raise InputError(str(p), n, "empty sentence")
    if not label.strip():
        raise InputError(str(p), n, "empty label")
    toks.append(words)
    labs.append(label.strip())


def read_hf_task(task_dir: str | os.PathLike[str], language: str = "") -> ProbingSet:
    """One task of an ``xprobe export datasets`` folder (``TASK/{train,validation,test}.parquet``),
    read as the SentEval file it was exported from: same rows, order and sha256."""
    d = Path(task_dir)
    return senteval_lines(hf_senteval_lines(d), d, d.name, language)


def read_xprobe_task(task_dir: str | os.PathLike[str], language: str = "") -> ProbingSet:
    """Read ``TASK/{tr,va,te}.txt`` (``sentence<TAB>label``); missing split files are empty."""
    d = Path(task_dir)
    tokens: dict[str, list[tuple[str, ...]]] = {}
    labels: dict[str, list[str]] = {}
    rows: dict[str, list[int]] = {}
    digest = hashlib.sha256()
    row = 0
    for split in SPLITS:
        p = d / f"{split}.txt"
        if not p.is_file():
            continue
        tokens[split], labels[split], rows[split] = [], [], []
        digest.update(f"{split}\n".encode())
        for lineno, line in read_lines(p):
            digest.update(line.encode("utf-8", "surrogateescape"))
            if not line.strip():
                continue
            parts = _split_line(line, p, lineno, 2)
            _add(tokens[split], labels[split], parts[0], parts[-1], p, lineno)
            rows[split].append(row)
            row += 1
    if not tokens:
        raise XProbeError(f"{d}: no tr.txt, va.txt or te.txt")
    return _finish(d.name, language, tokens, labels, digest.hexdigest(), str(d), rows)


def _finish(
    stem: str,
    language: str,
    tokens: dict[str, list[tuple[str, ...]]],
    labels: dict[str, list[str]],
    sha: str,
    source: str,
    rows: dict[str, list[int]],
) -> ProbingSet:
    tokens = {s: t for s, t in tokens.items() if t}
    labels = {s: labels[s] for s in tokens}
    row_arrays = {s: np.asarray(rows[s], dtype=np.int64) for s in tokens}
    if not tokens:
        raise XProbeError(f"{source}: no sentences")
    label_set = _label_order({x for labs in labels.values() for x in labs})
    n_rows = sum(len(r) for r in row_arrays.values())
    return ProbingSet(
        task_name(stem), stem, language, tokens, labels, label_set, sha, source, rows=row_arrays,
        n_rows=n_rows,
    )  # fmt: skip


def detect_layout(data_dir: str | os.PathLike[str]) -> str:
    """``"senteval"`` when the folder holds ``*.txt`` task files, ``"hf"`` for an ``xprobe export
    datasets`` folder, ``"xprobe"`` when it holds task folders with ``va.txt``/``te.txt``; an
    error otherwise."""
    d = Path(data_dir)
    if not d.is_dir():
        raise XProbeError(f"{d}: probing data folder not found")
    if any(p.suffix in (".txt", ".gz") and p.is_file() for p in d.iterdir()):
        return "senteval"
    if is_hf_export(d):
        return "hf"
    if any((p / "te.txt").is_file() or (p / "va.txt").is_file() for p in d.iterdir()):
        return "xprobe"
    raise XProbeError(f"{d}: neither SentEval task files (*.txt) nor X-Probe task folders")


def dir_dataset(data_dir: str | os.PathLike[str]) -> str:
    """The dataset name of a probing folder: ``manifest.json``'s ``dataset`` (``xprobe extract
    --dataset``, which a study passes), else the name of the folder holding it
    (``probing/en`` -> ``probing``)."""
    d = Path(data_dir)
    try:
        name = json.loads((d / "manifest.json").read_text(encoding="utf-8")).get("dataset")
    except (OSError, ValueError, AttributeError):
        name = None
    return str(name) if isinstance(name, str) and name else d.resolve().parent.name


def dir_language(data_dir: str | os.PathLike[str]) -> str:
    """The language of a probing folder: ``manifest.json``'s ``language``. A folder name is
    never taken for a language (``probing/v2`` or ``models/en-bilstm-max`` would be misread):
    without a manifest the caller must say it (``--lang``)."""
    d = Path(data_dir)
    manifest = d / "manifest.json"
    if manifest.is_file():
        try:
            lang = json.loads(manifest.read_text(encoding="utf-8")).get("language")
        except (ValueError, AttributeError):  # JSONDecodeError and UnicodeDecodeError too
            raise InputError(str(manifest), None, "not a UTF-8 JSON object") from None
        if lang:
            return str(lang)
        raise InputError(str(manifest), None, "no 'language'; pass the language with --lang")
    raise XProbeError(f"{d}: no manifest.json to take the language from; pass it with --lang")


def _wanted(stem: str, tasks: list[str] | None) -> bool:
    if not tasks:
        return True
    names = {t.lower() for t in tasks}
    return stem.lower() in names or task_name(stem).lower() in names


def load_probing_dir(
    data_dir: str | os.PathLike[str],
    layout: str = "auto",
    tasks: list[str] | None = None,
    language: str | None = None,
) -> list[ProbingSet]:
    """Every task of a probing folder (or those named in ``tasks``), in file-name order."""
    d = Path(data_dir)
    layout = detect_layout(d) if layout == "auto" else layout
    lang = language or dir_language(d)
    if layout == "senteval":
        files = sorted(p for p in d.iterdir() if p.name.endswith((".txt", ".txt.gz")))
        files = [p for p in files if not p.name.endswith(".provenance.tsv")]
        stems = [p.name.split(".")[0] for p in files]
        out = [read_senteval(p, lang) for p in files if _wanted(p.name.split(".")[0], tasks)]
    elif layout == "hf":
        stems = [p.name for p in hf_task_dirs(d)]
        out = [read_hf_task(p, lang) for p in hf_task_dirs(d) if _wanted(p.name, tasks)]
    elif layout == "xprobe":
        dirs = sorted(p for p in d.iterdir() if p.is_dir())
        stems = [p.name for p in dirs]
        out = [read_xprobe_task(p, lang) for p in dirs if _wanted(p.name, tasks)]
    else:
        raise XProbeError(f"unknown layout {layout!r}; valid: auto, senteval, hf, xprobe")
    if tasks:
        found = {x.task.lower() for x in out} | {x.file.lower() for x in out}
        missing = [t for t in tasks if t.lower() not in found]
        if missing:
            have = ", ".join(f"{task_name(x)} ({x})" if task_name(x) != x else x for x in stems)
            raise XProbeError(
                f"{d}: no data for task(s) {', '.join(missing)}; valid names here: "
                f"{have or 'none'} (by task name or file name)"
            )
    if not out:
        raise XProbeError(f"{d}: no probing tasks found")
    return out


def ensure_train(ps: ProbingSet, seed: int = 0) -> ProbingSet:
    """A set with tr, va and te: as is when it has all three; without ``tr``, ``va`` becomes the
    training split and ``te`` is split (stratified by label, seeded) into new va and te halves."""
    if all(s in ps.tokens for s in SPLITS):
        return ps
    if "tr" in ps.tokens or not {"va", "te"} <= set(ps.tokens):
        raise XProbeError(f"{ps.source}: needs tr/va/te, or va and te (va is then used to train)")
    y = np.asarray(ps.labels_of["te"])
    gen = np_rng(seed, ps.language, ps.file, "split-te")
    dev_idx: list[int] = []
    for lab in sorted(set(y.tolist())):
        idx = np.flatnonzero(y == lab)
        gen.shuffle(idx)
        dev_idx.extend(idx[: len(idx) // 2].tolist())
    in_dev = np.zeros(len(y), dtype=bool)
    in_dev[dev_idx] = True
    te_t, te_l = ps.tokens["te"], ps.labels_of["te"]
    tokens = {
        "tr": ps.tokens["va"],
        "va": [t for t, m in zip(te_t, in_dev, strict=False) if m],
        "te": [t for t, m in zip(te_t, in_dev, strict=False) if not m],
    }
    labels = {
        "tr": ps.labels_of["va"],
        "va": [t for t, m in zip(te_l, in_dev, strict=False) if m],
        "te": [t for t, m in zip(te_l, in_dev, strict=False) if not m],
    }
    te_rows = ps.rows["te"]
    rows = {"tr": ps.rows["va"], "va": te_rows[in_dev], "te": te_rows[~in_dev]}
    protocol = f"tr=va; va,te=halves of te (seed {seed})"
    return replace(ps, tokens=tokens, labels_of=labels, protocol=protocol, rows=rows, _index={})

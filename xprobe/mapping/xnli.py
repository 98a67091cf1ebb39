"""XNLI in one place: the readers, the stopping rule of ``xprobe map``, and test accuracy.

Readers: the official XNLI 1.0 files and plain ``premise<TAB>hypothesis<TAB>label`` files.
Official ``xnli.dev.tsv`` / ``xnli.test.tsv`` start with a header naming their columns
(``language``, ``gold_label``, ``sentence1``, ``sentence2``, ...); all 15 languages are in one
file, so pass ``language`` to keep one. The plain layout (e.g. the XTREME export,
``dev-de.tsv``) has no header and one language per file. Labels are ``entailment``,
``neutral``, ``contradiction``; rows with another gold label (``-``) are skipped and counted.
The official files can be read straight from the archive ``xprobe download xnli`` fetches, by
naming the member after the archive: ``xnli/XNLI-1.0.zip/XNLI-1.0/xnli.dev.tsv``.

The stopper (:class:`XNLIStopper`): an NLI head trained on the teacher's English vectors
(:func:`xprobe.nli.head.load_head`: ``train-nli --frozen`` or a ``train-nli`` model's own
classifier) applied to any student's vectors of target-language XNLI dev: the accuracy that stops
every ``xprobe map`` run, whatever the teacher and student.

Test accuracy (:func:`evaluate_xnli`, ``xprobe xnli``): any encoder with a head, with a
percentile bootstrap 95% interval over test pairs (``n_boot`` seeded resamples of the per-pair
correctness); results are one JSON object per (language, encoder, head, data) in a JSON list
file, replaced on a rerun; ``xprobe report --xnli FILE`` reads that list.

Example::

    dev = read_xnli("XNLI-1.0/xnli.dev.tsv", language="de")
    dev.examples[0].premise, dev.examples[0].label
    rec = evaluate_xnli(XNLIEval(encoder="models/de-student", head="heads/minilm",
                                 data="xnli/test-de.tsv", lang="de"))
    rec["accuracy"], rec["ci95"]
"""

from __future__ import annotations

import io
import json
import logging
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from xprobe import __version__
from xprobe.encoders.encoder_spec import EncoderSpec
from xprobe.errors import InputError, XProbeError
from xprobe.files import atomic_write, np_rng, open_text, sha256_file

__all__ = [
    "XNLI_LABELS",
    "NLIExample",
    "XNLIEval",
    "XNLISet",
    "XNLIStopper",
    "bootstrap_interval",
    "evaluate_xnli",
    "load_stopper",
    "read_xnli",
    "read_xnli_tokens",
    "write_xnli_record",
]

log = logging.getLogger(__name__)

XNLI_LABELS = ("entailment", "neutral", "contradiction")
_OFFICIAL_COLUMNS = ("language", "gold_label", "sentence1", "sentence2")


@dataclass(frozen=True)
class NLIExample:
    """One premise/hypothesis pair with its gold label (language when the file says)."""

    premise: str
    hypothesis: str
    label: str
    language: str | None = None


@dataclass
class XNLISet:
    """The examples read, and how many rows were skipped for a missing gold label."""

    examples: list[NLIExample] = field(default_factory=list)
    skipped: int = 0
    source: str = ""

    def __len__(self) -> int:
        return len(self.examples)


def _official_row(cols: dict[str, int], parts: list[str], path: str, lineno: int) -> NLIExample:
    if len(parts) <= max(cols[c] for c in _OFFICIAL_COLUMNS):
        raise InputError(path, lineno, f"expected at least {len(cols)} tab-separated columns")
    return NLIExample(
        parts[cols["sentence1"]],
        parts[cols["sentence2"]],
        parts[cols["gold_label"]],
        parts[cols["language"]],
    )


def _open_xnli(path: str) -> IO[str]:
    """Open a file, or a member of a zip archive written as ``ARCHIVE.zip/inner/path``."""
    if Path(path).is_file():
        return open_text(path)
    for parent in Path(path).parents:
        if parent.suffix == ".zip" and parent.is_file():
            member = Path(path).relative_to(parent).as_posix()
            archive = zipfile.ZipFile(parent)
            try:
                return io.TextIOWrapper(archive.open(member), encoding="utf-8")
            except KeyError:
                archive.close()
                raise XProbeError(f"{parent}: no member {member}") from None
    raise XProbeError(f"{path}: XNLI file not found")


def read_xnli(
    path: str | os.PathLike[str], language: str | None = None, limit: int | None = None
) -> XNLISet:
    """Read an XNLI file of either layout; keep ``language`` only (official layout).

    For a plain file ``language`` is recorded on each example but cannot filter anything.
    ``limit`` keeps the first N usable examples. Raises on malformed rows, naming file and line,
    and when a language filter leaves nothing (listing the languages present).
    """
    path = str(path)
    out = XNLISet(source=path)
    cols: dict[str, int] | None = None
    seen_langs: set[str] = set()
    with _open_xnli(path) as f:
        for lineno, line in enumerate(f, 1):
            parts = line.rstrip("\n").rstrip("\r").split("\t")
            if lineno == 1 and "gold_label" in parts:
                missing = [c for c in _OFFICIAL_COLUMNS if c not in parts]
                if missing:
                    raise InputError(path, 1, f"header lacks columns {', '.join(missing)}")
                cols = {name: i for i, name in enumerate(parts)}
                continue
            if not line.strip():
                continue
            if cols is not None:
                ex = _official_row(cols, parts, path, lineno)
                seen_langs.add(ex.language or "")
                if language is not None and ex.language != language:
                    continue
            elif len(parts) != 3:
                raise InputError(path, lineno, "expected premise<TAB>hypothesis<TAB>label")
            else:
                ex = NLIExample(parts[0], parts[1], parts[2], language)
            if ex.label not in XNLI_LABELS:
                out.skipped += 1
                continue
            out.examples.append(ex)
            if limit is not None and len(out.examples) >= limit:
                break
    if not out.examples:
        where = f" for language {language!r} (present: {', '.join(sorted(seen_langs))})"
        raise XProbeError(f"{path}: no labelled examples{where if cols is not None else ''}")
    log.debug("%s: %d examples, %d skipped", path, len(out), out.skipped)
    return out


def read_xnli_tokens(
    path: str, language: str | None, lang: str, limit: int | None = None
) -> tuple[list[list[str]], list[list[str]], np.ndarray]:
    """Moses tokens (in ``lang``) of an XNLI file's premises and hypotheses, and label indices."""
    from xprobe.mapping.parallel import moses_code, tokenize
    from xprobe.nli.data import NLI_LABELS

    code = moses_code(lang)
    examples = read_xnli(path, language=language, limit=limit).examples
    prem = [list(tokenize(e.premise, code)) for e in examples]
    hyp = [list(tokenize(e.hypothesis, code)) for e in examples]
    labels = np.array([NLI_LABELS.index(e.label) for e in examples], dtype=np.int64)
    return prem, hyp, labels


@dataclass
class XNLIStopper:
    """XNLI dev accuracy of a student through the teacher's NLI head: the stopping rule."""

    head: Any  # the classifier (torch module)
    meta: dict[str, Any]
    premises: list[list[str]]
    hypotheses: list[list[str]]
    labels: np.ndarray
    items: tuple[list, list] | None = None  # the student's prepared inputs

    def prepare(self, student) -> None:
        self.items = (student.prepare(self.premises), student.prepare(self.hypotheses))

    def accuracy(self, student) -> float:
        """Share of dev pairs whose head prediction on the student's vectors is the gold label."""
        import torch

        from xprobe.nli.train import nli_features

        if self.items is None:
            self.prepare(student)
        assert self.items is not None
        device = next(self.head.parameters()).device
        u = torch.from_numpy(student.encode(self.items[0])).to(device)
        v = torch.from_numpy(student.encode(self.items[1])).to(device)
        self.head.eval()
        with torch.no_grad():
            pred = self.head(nli_features(u, v)).argmax(dim=1).cpu().numpy()
        return float((pred == self.labels).mean())


def load_stopper(
    head: str, dev: str, language: str, lang: str, limit: int | None, dim: int, device: str,
    teacher: str = "the teacher",
) -> XNLIStopper:  # fmt: skip
    """The head ``head`` (refused unless it reads ``dim``-d vectors) and the XNLI dev tokens."""
    from xprobe.nli.head import load_head

    clf, meta = load_head(head, device=device)
    if int(meta["dim"]) != dim:
        raise XProbeError(
            f"{head}: the NLI head reads {meta['dim']}-d vectors, the teacher gives "
            f"{dim}-d; train it on the teacher (train-nli --frozen {teacher})"
        )
    return XNLIStopper(clf, meta, *read_xnli_tokens(dev, language, lang, limit))


@dataclass
class XNLIEval:
    """One evaluation: an encoder spec, a head directory, an XNLI file and its language."""

    encoder: EncoderSpec  # parsed at the edge (a Python caller's string: parsed once)
    head: str
    data: str
    lang: str
    name: str | None = None  # display name (default: from the spec)
    language: str | None = None  # filter for official multi-language files (default: lang)
    limit: int | None = None
    n_boot: int = 1000
    seed: int = 0
    device: str = "auto"
    cache_dir: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.encoder, EncoderSpec):  # a Python caller's string: parsed once
            self.encoder = EncoderSpec.parse(self.encoder)


def bootstrap_interval(
    correct: np.ndarray, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``correct`` (0/1 per test item)."""
    c = np.asarray(correct, dtype=np.float64)
    if len(c) == 0 or n_boot < 1:
        raise XProbeError("a bootstrap interval needs at least one item and one resample")
    rng = np_rng(seed, "xnli-bootstrap", len(c))
    means = np.empty(n_boot)
    for s in range(0, n_boot, 100):  # 100 resamples at a time bounds memory for large sets
        k = min(100, n_boot - s)
        means[s : s + k] = c[rng.integers(0, len(c), size=(k, len(c)))].mean(axis=1)
    tail = (1.0 - level) / 2 * 100
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return float(lo), float(hi)


def evaluate_xnli(cfg: XNLIEval) -> dict[str, Any]:
    """Accuracy, bootstrap interval and provenance of ``cfg.encoder`` + ``cfg.head`` on the file."""
    from xprobe.encoders.neural import resolve_device
    from xprobe.nli.head import load_frozen_encoder, load_head, predict
    from xprobe.nli.vectors import cached_vectors, vector_cache_dir

    device = resolve_device(cfg.device)
    clf, meta = load_head(cfg.head, device=device)
    prem, hyp, labels = read_xnli_tokens(cfg.data, cfg.language or cfg.lang, cfg.lang, cfg.limit)
    vocab = {t for s in prem + hyp for t in s}
    spec = cfg.encoder
    encoder = load_frozen_encoder(spec, vocab, device, cfg.lang)
    if int(encoder.dim) != int(meta["dim"]):
        raise XProbeError(
            f"{cfg.head}: the NLI head reads {meta['dim']}-d vectors, encoder {spec.shown} gives "
            f"{encoder.dim}-d; use a head trained on this encoder's space (or its teacher's)"
        )
    cache = vector_cache_dir(cfg.cache_dir)
    u = np.array(cached_vectors(encoder, prem, cache, desc="xnli premises"), np.float32)
    v = np.array(cached_vectors(encoder, hyp, cache, desc="xnli hypotheses"), np.float32)
    correct = predict(clf, u, v) == labels
    lo, hi = bootstrap_interval(correct, cfg.n_boot, cfg.seed)
    majority = float(np.bincount(labels, minlength=3).max() / len(labels))
    return {
        "encoder": cfg.name or spec.display_name,
        "encoder_spec": spec.shown,
        "encoder_id": encoder.id,
        "head": str(cfg.head),
        "head_encoder": meta.get("encoder", ""),
        "head_encoder_id": meta.get("encoder_id", ""),
        "language": cfg.lang,
        "data": str(cfg.data),
        "data_hash": sha256_file(cfg.data) if Path(cfg.data).is_file() else "",
        "n": len(labels),
        "accuracy": float(correct.mean()),
        "ci95": [lo, hi],
        "bootstrap": {"resamples": cfg.n_boot, "seed": cfg.seed, "method": "percentile"},
        "majority_acc": majority,
        "version": __version__,
    }


def write_xnli_record(path: str | os.PathLike[str], rec: dict[str, Any]) -> None:
    """Add ``rec`` to the JSON list in ``path`` (atomically), replacing the same measurement."""
    p = Path(path)
    items: list[dict[str, Any]] = []
    if p.is_file():
        try:
            items = json.loads(p.read_text("utf-8"))
            if not isinstance(items, list):
                raise ValueError("not a JSON list")
        except (ValueError, UnicodeDecodeError) as e:
            raise XProbeError(
                f"{p}: not an xnli results list ({e}); choose another --out"
            ) from None
    key = ("language", "encoder", "encoder_id", "head", "data_hash")
    items = [r for r in items if tuple(r.get(k) for k in key) != tuple(rec[k] for k in key)]
    items.append(rec)
    items.sort(key=lambda r: (str(r.get("language")), str(r.get("encoder"))))
    with atomic_write(p) as f:
        json.dump(items, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")

"""An NLI head on a frozen encoder: the InferSent classifier alone, over cached sentence vectors.

Any encoder spec works (``bov:``, a checkpoint directory, ``hf:``/``st:`` transformers, ...): the
premises and hypotheses are encoded once (:func:`xprobe.nli.vectors.cached_vectors`, so a second
run or another seed encodes nothing), the features ``[u, v, |u - v|, u * v]``
(:func:`xprobe.nli.train.nli_features`) go into the same MLP as ``train-nli`` trains
(:func:`~xprobe.nli.train.build_classifier`), with Adam and early stopping on dev accuracy. Only
the head learns; the encoder is never changed.

The output directory holds ``nli_classifier.pt`` + ``nli_classifier.json`` (as a ``train-nli``
encoder directory does) and ``head.json``: the encoder's spec and id, the data, the accuracies
and the checksums of the two classifier files. :func:`load_head` reads either kind of directory,
so ``xprobe xnli --head`` and ``xprobe map --nli-head`` take a head or a ``train-nli`` model.

Training a head takes seconds once the vectors are cached; a killed run is simply run again (the
cached vectors survive; the result is the same, since training is seeded).

Example::

    cfg = HeadConfig(encoder="st:models/all-MiniLM-L6-v2", train=["snli_1.0_dev.jsonl.gz"],
                     dev="snli_1.0_test.jsonl.gz", out="heads/minilm")
    summary = train_head(cfg)          # {"best_dev_acc": ..., "encoder_id": ..., ...}
    clf, meta = load_head("heads/minilm")
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from xprobe.encoders.encoder_spec import EncoderSpec
from xprobe.errors import XProbeError
from xprobe.files import derive_seed, np_rng, sha256_file, write_json
from xprobe.nli.data import NLIPair, make_tokenizer, read_pairs

if TYPE_CHECKING:
    import torch

__all__ = ["HEAD_FORMAT", "HeadConfig", "load_head", "pair_vectors", "predict", "train_head"]

log = logging.getLogger(__name__)

HEAD, HEAD_FORMAT = "head.json", "xprobe-nli-head"


@dataclass
class HeadConfig:
    """Everything a head-training run depends on; paths are files, ``encoder`` the frozen
    encoder (an :class:`~xprobe.encoders.encoder_spec.EncoderSpec`, parsed where the run starts;
    a Python caller's string is parsed once). What it records keeps the spec as written."""

    encoder: EncoderSpec
    train: list[str]
    dev: str
    out: str
    test: str | None = None
    lang: str = "en"
    tokenizer: str = "moses"
    epochs: int = 30
    batch_size: int = 64
    lr: float = 1e-3
    patience: int = 3
    hidden: int = 512
    seed: int = 0
    max_train: int | None = None
    device: str = "auto"
    cache_dir: str | None = None
    threads: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.encoder, EncoderSpec):  # a Python caller's string: parsed once
            self.encoder = EncoderSpec.parse(self.encoder)

    def recorded(self) -> dict[str, Any]:
        """The settings ``head.json`` records (the encoder as its spec was written)."""
        d = {k: v for k, v in asdict(self).items() if k not in ("device", "threads")}
        d["encoder"] = self.encoder.shown
        return d


def load_frozen_encoder(spec: EncoderSpec, vocab: set[str], device: str, lang: str | None = None):
    """The encoder ``spec`` names, refusing precomputed (``npy:``) embeddings; ``lang`` is the
    language of the sentences it will see (transformers detokenise in it)."""
    from xprobe.encoders.spec import NpyEmbeddings, parse_encoder

    enc = parse_encoder(spec, vocab=vocab, device=device)
    if isinstance(enc, NpyEmbeddings):
        raise XProbeError(f"--encoder {spec.shown}: precomputed embeddings cannot encode NLI pairs")
    if lang and hasattr(enc, "set_language"):
        enc.set_language(lang)
    return enc


def pair_vectors(encoder, pairs: list[NLIPair], cache: Path | None, desc: str):
    """``(u, v, labels)``: the encoder's vectors of premises and hypotheses (cached)."""
    from xprobe.nli.vectors import cached_vectors

    u = cached_vectors(encoder, [p.premise for p in pairs], cache, desc=f"{desc} premises")
    v = cached_vectors(encoder, [p.hypothesis for p in pairs], cache, desc=f"{desc} hypotheses")
    labels = np.array([p.label for p in pairs], dtype=np.int64)
    return np.array(u, dtype=np.float32), np.array(v, dtype=np.float32), labels


def predict(clf, u: np.ndarray, v: np.ndarray, batch_size: int = 1024) -> np.ndarray:
    """Label indices the head gives the pairs ``(u[i], v[i])`` (eval mode, no gradients)."""
    import torch

    from xprobe.nli.train import nli_features

    device = next(clf.parameters()).device
    out = []
    clf.eval()
    with torch.no_grad():
        for s in range(0, len(u), batch_size):
            a = torch.from_numpy(np.ascontiguousarray(u[s : s + batch_size])).to(device)
            b = torch.from_numpy(np.ascontiguousarray(v[s : s + batch_size])).to(device)
            out.append(clf(nli_features(a, b)).argmax(dim=1).cpu().numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def _epoch(clf, opt, data, cfg: HeadConfig, epoch: int) -> float:
    """One seeded pass over the training vectors; returns the mean loss."""
    import torch

    from xprobe.nli.train import nli_features

    u, v, y = data
    device = next(clf.parameters()).device
    order = np_rng(cfg.seed, "nli-head-shuffle", epoch).permutation(len(y))
    clf.train()
    total = 0.0
    for s in range(0, len(order), cfg.batch_size):
        rows = np.sort(order[s : s + cfg.batch_size])
        a, b = (torch.from_numpy(x[rows]).to(device) for x in (u, v))
        loss = torch.nn.functional.cross_entropy(
            clf(nli_features(a, b)), torch.from_numpy(y[rows]).to(device)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += float(loss.detach()) * len(rows)
    return total / max(1, len(y))


def _fit(clf, splits: dict[str, tuple], cfg: HeadConfig) -> tuple[dict[str, Any], dict]:
    """Train with early stopping on dev; returns (progress, best state dict)."""
    import torch

    opt = torch.optim.Adam(clf.parameters(), lr=cfg.lr)
    progress: dict[str, Any] = {"best_acc": -1.0, "best_epoch": 0, "history": []}
    best_state, bad = None, 0
    from tqdm import tqdm

    bar = tqdm(range(1, cfg.epochs + 1), desc="nli head", disable=None, leave=False)
    for epoch in bar:
        loss = _epoch(clf, opt, splits["train"], cfg, epoch)
        dev = splits["dev"]
        acc = float((predict(clf, dev[0], dev[1]) == dev[2]).mean())
        progress["history"].append({"epoch": epoch, "train_loss": loss, "dev_acc": acc})
        bar.set_postfix(loss=f"{loss:.4f}", dev=f"{acc:.4f}")
        if acc > progress["best_acc"]:
            progress.update(best_acc=acc, best_epoch=epoch)
            best_state = {k: t.detach().clone() for k, t in clf.state_dict().items()}
            bad = 0
        else:
            bad += 1
            if bad >= cfg.patience:
                break
    assert best_state is not None
    return progress, best_state


def train_head(cfg: HeadConfig) -> dict[str, Any]:
    """Train an NLI head on the frozen ``cfg.encoder`` into ``cfg.out``; returns the summary."""
    import torch

    from xprobe.encoders.neural import resolve_device
    from xprobe.nli.train import build_classifier, majority_accuracy, save_classifier
    from xprobe.nli.vectors import vector_cache_dir

    if cfg.epochs < 1:
        raise XProbeError(f"--epochs must be at least 1, not {cfg.epochs}")
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    device = resolve_device(cfg.device)
    tok = make_tokenizer(cfg.tokenizer, cfg.lang)
    raw = {"train": read_pairs(cfg.train, tok, cfg.max_train), "dev": read_pairs([cfg.dev], tok)}
    if cfg.test:
        raw["test"] = read_pairs([cfg.test], tok)
    vocab = {t for pairs in raw.values() for p in pairs for t in (*p.premise, *p.hypothesis)}
    encoder = load_frozen_encoder(cfg.encoder, vocab, device, cfg.lang)
    cache = vector_cache_dir(cfg.cache_dir)
    splits = {name: pair_vectors(encoder, pairs, cache, name) for name, pairs in raw.items()}
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(derive_seed(cfg.seed, "nli-head-init") % (2**63))
        clf = build_classifier(int(encoder.dim), cfg.hidden).to(device)
        progress, best = _fit(clf, splits, cfg)
    clf.load_state_dict(best)
    summary: dict[str, Any] = {
        "format": HEAD_FORMAT,
        "format_version": 1,
        "encoder": cfg.encoder.shown,
        "encoder_id": encoder.id,
        "dim": int(encoder.dim),
        "pairs": {name: len(p) for name, p in raw.items()},
        "best_dev_acc": progress["best_acc"],
        "best_epoch": progress["best_epoch"],
        "history": progress["history"],
        "dev_majority_acc": majority_accuracy(splits["dev"][2]),
        "training": cfg.recorded(),
    }
    if "test" in splits:
        u, v, y = splits["test"]
        summary["test_acc"] = float((predict(clf, u, v) == y).mean())
        summary["test_majority_acc"] = majority_accuracy(y)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    summary["files"] = save_classifier(out, clf)
    write_json(out / HEAD, summary)
    log.info("NLI head: best dev acc %.4f (epoch %d)", progress["best_acc"], progress["best_epoch"])
    return summary


def load_head(path: str | os.PathLike[str], device: str = "cpu") -> tuple[torch.nn.Module, dict]:
    """The NLI classifier of a head directory (``head.json``) or a ``train-nli`` encoder directory,
    and its metadata (``encoder``, ``encoder_id``, ``dim``); checksums are verified."""
    import torch

    from xprobe.nli.train import CLASSIFIER, CLASSIFIER_CONFIG, build_classifier, load_classifier

    directory = Path(path)
    if not directory.is_dir():
        raise XProbeError(f"{directory}: NLI head directory not found")
    if not (directory / HEAD).is_file():
        from xprobe.encoders.checkpoint import read_config

        cfg = read_config(directory)  # a train-nli model: its own classifier
        clf = load_classifier(directory, device=device)
        meta = {"encoder": str(directory), "encoder_id": cfg.get("id", ""), "dim": clf.enc_dim}
        return clf, meta
    try:
        meta = json.loads((directory / HEAD).read_text("utf-8"))
        if meta.get("format") != HEAD_FORMAT:
            raise ValueError(f"format is not {HEAD_FORMAT!r}")
        for name in (CLASSIFIER, CLASSIFIER_CONFIG):
            if sha256_file(directory / name) != meta["files"][name]:
                raise ValueError(f"{name} is corrupted or replaced (checksum differs)")
        clf_meta = json.loads((directory / CLASSIFIER_CONFIG).read_text("utf-8"))
        clf = build_classifier(int(clf_meta["enc_dim"]), int(clf_meta["hidden"]))
        state = torch.load(directory / CLASSIFIER, map_location="cpu", weights_only=True)
        clf.load_state_dict(state)
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as e:
        raise XProbeError(f"{directory}: unreadable NLI head ({e})") from None
    return clf.to(device).eval(), meta

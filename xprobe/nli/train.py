"""InferSent-style NLI training of English sentence encoders (Conneau et al. 2017).

Premise and hypothesis go through the same encoder (over frozen word vectors) to ``u`` and
``v``; the features ``[u, v, |u - v|, u * v]`` (:func:`nli_features`) go into an MLP
(:class:`NLIClassifier`: linear, tanh, linear) over the three labels :data:`NLI_LABELS`. Adam,
lr 1e-3, cross-entropy, gradient norm clipped at 5; the dev accuracy is measured after every
epoch, the best model is kept, and training stops after ``patience`` epochs without a gain.

Everything lives in one output directory, usable as ``--encoder DIR`` and as a frozen teacher:
the best encoder (:mod:`xprobe.encoders.checkpoint` layout), ``nli_classifier.pt`` +
``nli_classifier.json``, and ``train_state.pt`` (last epoch's weights, optimizer and RNG
state) from which ``resume=True`` continues after a crash with the same result as an
uninterrupted run. On CPU a run is deterministic for a given seed.

The vocabulary is the set of tokens of the train/dev/test files, so only the vectors a run needs
are read; sentences are kept as integer arrays, not token lists.

Example::

    cfg = TrainConfig(arch="bilstm-max", vectors="en.vec", train=["snli_train.jsonl"],
                      dev="snli_dev.jsonl", out="models/en-bilstm-max", epochs=5)
    summary = train_nli(cfg)          # {"best_dev_acc": ..., "test_acc": ..., ...}
    clf = load_classifier("models/en-bilstm-max")
"""

from __future__ import annotations

import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from xprobe.errors import XProbeError
from xprobe.files import atomic_write, derive_seed, np_rng, sha256_file, write_json
from xprobe.nli.data import NLI_LABELS, IndexedPairs, index_pairs, padded_batch, read_pairs
from xprobe.nli.state import restore_state, save_state

if TYPE_CHECKING:
    import torch

    from xprobe.encoders.neural import NeuralEncoder

__all__ = [
    "NLI_LABELS",
    "TrainConfig",
    "build_classifier",
    "load_classifier",
    "nli_features",
    "save_classifier",
    "train_nli",
]

log = logging.getLogger(__name__)

CLASSIFIER, CLASSIFIER_CONFIG, STATE = "nli_classifier.pt", "nli_classifier.json", "train_state.pt"


def nli_features(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """``[u, v, |u - v|, u * v]`` along the last dimension: ``(B, 4 * dim)``."""
    import torch

    return torch.cat([u, v, (u - v).abs(), u * v], dim=-1)


def build_classifier(enc_dim: int, hidden: int = 512) -> torch.nn.Module:
    """The NLI MLP over :func:`nli_features` of ``enc_dim``-d vectors: 3 logits."""
    from torch import nn

    clf = nn.Sequential(nn.Linear(4 * enc_dim, hidden), nn.Tanh(), nn.Linear(hidden, 3))
    clf.enc_dim = enc_dim  # type: ignore[assignment]
    clf.hidden = hidden  # type: ignore[assignment]
    return clf


def save_classifier(out_dir: str | os.PathLike[str], clf: torch.nn.Module) -> dict[str, str]:
    """Write ``nli_classifier.pt`` and its config; returns their checksums."""
    import torch

    out = Path(out_dir)
    state = {k: v.detach().cpu() for k, v in clf.state_dict().items()}
    with atomic_write(out / CLASSIFIER, "wb") as f:
        torch.save(state, f)
    write_json(
        out / CLASSIFIER_CONFIG,
        {"enc_dim": int(clf.enc_dim), "hidden": int(clf.hidden), "labels": list(NLI_LABELS)},
    )
    return {name: sha256_file(out / name) for name in (CLASSIFIER, CLASSIFIER_CONFIG)}


def load_classifier(path: str | os.PathLike[str], device: str = "cpu") -> torch.nn.Module:
    """The NLI classifier of a trained encoder directory: features -> 3 logits (eval mode)."""
    import json

    import torch

    from xprobe.encoders.checkpoint import read_config, verified_path

    directory = Path(path)
    cfg = read_config(directory)
    try:
        meta = json.loads(verified_path(directory, cfg, CLASSIFIER_CONFIG).read_text("utf-8"))
        clf = build_classifier(int(meta["enc_dim"]), int(meta["hidden"]))
    except (ValueError, KeyError, TypeError) as e:
        raise XProbeError(f"{directory / CLASSIFIER_CONFIG}: corrupted ({e})") from None
    weights = verified_path(directory, cfg, CLASSIFIER)
    try:
        clf.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True))
    except Exception as e:
        from xprobe.encoders.torchload import load_error_line

        why = load_error_line(e, weights)
        raise XProbeError(f"{weights}: cannot load the NLI classifier ({why})") from None
    return clf.to(device).eval()


@dataclass
class TrainConfig:
    """Everything a ``train-nli`` run depends on (``sizes``: encoder size overrides)."""

    arch: str
    vectors: str
    train: list[str]
    dev: str
    out: str
    test: str | None = None
    epochs: int = 10
    batch_size: int = 64
    lr: float = 1e-3
    patience: int = 2
    max_train: int | None = None
    sizes: dict[str, Any] = field(default_factory=dict)
    classifier_hidden: int = 512
    seed: int = 0
    device: str = "auto"
    resume: bool = False
    lowercase: bool = False
    tokenizer: str = "moses"
    lang: str = "en"
    threads: int | None = None
    vocab_from: list[str] = field(default_factory=list)

    def identity(self) -> dict[str, Any]:
        """The fields a resumed run must share with the run it continues."""
        d = asdict(self)
        for k in ("out", "resume", "device", "epochs", "patience", "test", "threads"):
            d.pop(k)
        return d


def _logits(encoder, clf, table, split: IndexedPairs, rows) -> torch.Tensor:
    u = encoder.module(*padded_batch(table, [split.premises[i] for i in rows]))
    v = encoder.module(*padded_batch(table, [split.hypotheses[i] for i in rows]))
    return clf(nli_features(u, v))


def evaluate(encoder, clf, table, split: IndexedPairs, batch_size: int = 256) -> float:
    """Accuracy of ``clf`` on ``split`` (eval mode, no gradients)."""
    import torch

    encoder.module.eval()
    clf.eval()
    order = sorted(range(len(split.labels)), key=lambda i: len(split.premises[i]))
    correct = 0
    with torch.no_grad():
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            pred = _logits(encoder, clf, table, split, rows).argmax(dim=1).cpu().numpy()
            correct += int((pred == split.labels[rows]).sum())
    return correct / max(1, len(split.labels))


def train_nli(cfg: TrainConfig) -> dict[str, Any]:
    """Train (or, with ``cfg.resume``, continue) an encoder + NLI classifier into ``cfg.out``.

    Returns a summary (dev/test accuracy, epochs, history, data counts), also stored under
    ``extra`` in ``config.json``.
    """
    import torch

    from xprobe.encoders.neural import resolve_device

    out = Path(cfg.out)
    if (out / STATE).exists() and not cfg.resume:
        raise XProbeError(
            f"{out}: already holds a training run; pass --resume to continue it, "
            "or choose another --out"
        )
    device = resolve_device(cfg.device)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    vectors, splits, info = _prepare(cfg)
    encoder = encoder_for(cfg, vectors).to(device)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(init_seed(cfg.seed, "classifier"))
        clf = build_classifier(encoder.dim, cfg.classifier_hidden).to(device)
    zero = np.zeros((1, vectors.dim), dtype=np.float32)
    table = torch.from_numpy(np.concatenate([vectors.matrix, zero])).to(device)
    opt = torch.optim.Adam([*encoder.module.parameters(), *clf.parameters()], lr=cfg.lr)
    progress: dict[str, Any] = {"epoch": 0, "best_acc": -1.0, "best_epoch": 0, "bad": 0}
    progress["history"] = []
    modules = {"encoder": encoder.module, "classifier": clf}  # what the state file holds
    if cfg.resume and (out / STATE).exists():
        progress = restore_state(out / STATE, cfg.identity(), modules, opt, "training state")
        log.info(
            "resuming after epoch %d (best dev acc %.4f)", progress["epoch"], progress["best_acc"]
        )
    else:
        torch.manual_seed(init_seed(cfg.seed, "train"))
    while progress["epoch"] < cfg.epochs and progress["bad"] < cfg.patience:
        epoch = progress["epoch"] + 1
        loss, acc = _train_epoch(encoder, clf, table, splits["train"], opt, cfg, epoch)
        dev_acc = evaluate(encoder, clf, table, splits["dev"])
        log.info("epoch %d: train loss %.4f acc %.4f, dev acc %.4f", epoch, loss, acc, dev_acc)
        progress["history"].append(
            {"epoch": epoch, "train_loss": loss, "train_acc": acc, "dev_acc": dev_acc}
        )
        if dev_acc > progress["best_acc"]:
            progress.update(best_acc=dev_acc, best_epoch=epoch, bad=0)
            files = save_classifier(out, clf)
            save_encoder_quiet(out, encoder, {**info, **_summary(progress)}, files)
        else:
            progress["bad"] += 1
        progress["epoch"] = epoch
        save_state(out / STATE, cfg.identity(), modules, opt, progress)
    return _finish(cfg, out, splits, info, progress, device)


def save_encoder_quiet(out: Path, encoder, extra: dict[str, Any], files: dict[str, str]) -> None:
    """save_encoder with the module's weights and ``extra``; id recomputed for new weights."""
    from xprobe.encoders.checkpoint import save_encoder

    encoder.reset_id()
    save_encoder(out, encoder, extra=extra, files=files)


def _prepare(cfg: TrainConfig) -> tuple[Any, dict[str, IndexedPairs], dict[str, Any]]:
    """Read the pairs, load the vectors of their vocabulary, index the sentences."""
    from xprobe.encoders.vectors import load_vectors
    from xprobe.nli.data import make_tokenizer

    tok = make_tokenizer(cfg.tokenizer, cfg.lang)
    raw = {"train": read_pairs(cfg.train, tok, cfg.max_train), "dev": read_pairs([cfg.dev], tok)}
    if cfg.test:
        raw["test"] = read_pairs([cfg.test], tok)
    vocab = {t for pairs in raw.values() for p in pairs for t in (*p.premise, *p.hypothesis)}
    vocab |= extra_vocabulary(cfg.vocab_from)
    vectors = load_vectors(cfg.vectors, vocab=vocab, lowercase=cfg.lowercase)
    if len(vectors) == 0:
        raise XProbeError(f"{cfg.vectors}: none of the {len(vocab)} NLI words has a vector")
    splits = {name: index_pairs(pairs, vectors.index, cfg.lowercase) for name, pairs in raw.items()}
    keys = {t.lower() if cfg.lowercase else t for t in vocab}
    info = {
        "train_files": list(cfg.train),
        "dev_file": cfg.dev,
        "test_file": cfg.test,
        "pairs": {name: len(s.labels) for name, s in splits.items()},
        "vocab_size": len(keys),
        "vocab_with_vector": len(vectors),
        "training": {
            k: v for k, v in asdict(cfg).items() if k not in ("resume", "device", "threads")
        },
    }
    log.info("pairs %s; %d/%d word types have vectors", info["pairs"], len(vectors), len(keys))
    return vectors, splits, info


def _train_epoch(encoder, clf, table, split: IndexedPairs, opt, cfg: TrainConfig, epoch: int):
    """One pass over ``split`` in the seeded order of ``epoch``; returns (mean loss, accuracy)."""
    import torch
    from tqdm import tqdm

    encoder.module.train()
    clf.train()
    params = [*encoder.module.parameters(), *clf.parameters()]
    order = epoch_order(cfg.seed, epoch, len(split.labels))
    total_loss, correct, seen = 0.0, 0, 0
    bar = tqdm(
        range(0, len(order), cfg.batch_size), desc=f"epoch {epoch}", disable=None, leave=False
    )
    for start in bar:
        rows = order[start : start + cfg.batch_size]
        y = torch.from_numpy(split.labels[rows]).to(table.device)
        logits = _logits(encoder, clf, table, split, rows)
        loss = torch.nn.functional.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 5.0)
        opt.step()
        total_loss += loss.item() * len(rows)
        correct += int((logits.argmax(dim=1) == y).sum())
        seen += len(rows)
        bar.set_postfix(loss=f"{total_loss / seen:.4f}", acc=f"{correct / seen:.3f}")
    return total_loss / max(1, seen), correct / max(1, seen)


def _summary(progress: dict[str, Any]) -> dict[str, Any]:
    return {
        "best_dev_acc": progress["best_acc"],
        "best_epoch": progress["best_epoch"],
        "epochs_run": progress["epoch"],
        "history": progress["history"],
    }


def _finish(cfg, out: Path, splits, info, progress, device: str) -> dict[str, Any]:
    """Reload the best model, measure test accuracy, record the summary in config.json."""
    import torch

    from xprobe.encoders.checkpoint import load_encoder

    best = load_encoder(out, device=device)
    clf = load_classifier(out, device=device)
    summary = {**info, **_summary(progress)}
    summary["dev_majority_acc"] = majority_accuracy(splits["dev"].labels)
    if "test" in splits:
        table = torch.from_numpy(
            np.concatenate([best.vectors.matrix, np.zeros((1, best.vectors.dim), np.float32)])
        ).to(device)
        summary["test_acc"] = evaluate(best, clf, table, splits["test"])
        summary["test_majority_acc"] = majority_accuracy(splits["test"].labels)
    files = {n: sha256_file(out / n) for n in (CLASSIFIER, CLASSIFIER_CONFIG)}
    save_encoder_quiet(out, best, summary, files)
    return summary


def extra_vocabulary(paths: list[str]) -> set[str]:
    """Words to keep vectors for beyond the NLI data, so that the stored encoder covers them:
    the sentences of probing files (SentEval or X-Probe layout), folders of them, or plain text
    (see :mod:`xprobe.encoders.vocab`)."""
    from xprobe.encoders.vocab import read_vocabulary

    return read_vocabulary(paths)


def majority_accuracy(labels: np.ndarray) -> float:
    """Accuracy of always predicting the most frequent label."""
    return float(np.bincount(labels, minlength=3).max() / max(1, len(labels)))


def epoch_order(seed: int, epoch: int, n: int) -> np.ndarray:
    """The (seeded) order of training pairs in ``epoch``."""
    return np_rng(seed, "nli-shuffle", epoch).permutation(n)


def init_seed(seed: int, purpose: str) -> int:
    """A torch seed (fits ``manual_seed``) from (seed, purpose)."""
    return derive_seed(seed, "nli", purpose) % (2**63)


def encoder_for(cfg: TrainConfig, vectors) -> NeuralEncoder:
    """A fresh, seeded encoder for the run."""
    from xprobe.encoders.neural import random_encoder

    return random_encoder(cfg.arch, vectors, seed=cfg.seed, **cfg.sizes)

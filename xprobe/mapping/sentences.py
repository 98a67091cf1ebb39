"""Sentence-encoder mapping en -> xx (X-Probe section 5.2): a target encoder imitates English.

The teacher is a frozen English encoder directory from ``xprobe train-nli``. The student has the
same architecture and sizes, a fresh seeded initialisation, and reads the *mapped* target word
vectors (``xprobe map-vectors``), which are frozen too. On a parallel corpus the student's vector
of each target sentence is pulled towards the teacher's vector of its English translation with
:func:`xprobe.mapping.loss.alignment_loss` (lambda = 0.25, in-batch contrastive sentences).

After every epoch (and once before training, as a baseline) the student is evaluated on:

* XNLI dev accuracy in the target language: the teacher's NLI classifier on the student's premise
  and hypothesis vectors. This is the stopping rule: stop after ``patience`` (2) epochs without a
  gain; the best epoch is kept;
* MSE to the teacher and translation retrieval accuracy (cosine nearest neighbour, both
  directions) on held-out parallel pairs.

The teacher's vectors of the English side are computed once and cached in
``OUT/teacher-cache/<teacher id>-<corpus hash>.npy`` (memory-mapped, so a large corpus need not
fit in memory). ``OUT`` becomes an encoder directory (:mod:`xprobe.encoders.checkpoint`) with the
student, the mapped vectors of its vocabulary and the copied NLI classifier, usable as
``xprobe probe --encoder OUT``; ``OUT/map_state.pt`` holds the last epoch for ``resume``.

Example::

    cfg = MapConfig(teacher="models/en-bilstm-max", vectors="de.mapped.vec", out="models/de",
                    target_lang="de", parallel_src="ep.en", parallel_tgt="ep.de",
                    xnli_dev="xnli/dev-de.tsv")
    summary = map_encoder(cfg)     # {"best_xnli_acc": ..., "history": [...], ...}
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.errors import XProbeError
from xprobe.files import derive_seed, np_rng, write_json
from xprobe.mapping.config import MapConfig
from xprobe.mapping.data import MapData, encode_ids, load_map_data, padded_batch, teacher_for
from xprobe.mapping.loss import alignment_loss, check_lambda, derangement
from xprobe.nli.state import restore_state, save_state

__all__ = ["MapConfig", "map_encoder"]

log = logging.getLogger(__name__)

STATE, REPORT = "map_state.pt", "mapping_report.json"


def _table(matrix: np.ndarray, device: str):
    """Vectors plus a final zero row (padding and empty sentences), as a device tensor."""
    import torch

    zero = np.zeros((1, matrix.shape[1]), dtype=np.float32)
    return torch.from_numpy(np.concatenate([matrix, zero]).astype(np.float32)).to(device)


def xnli_accuracy(module, clf, table, premises, hypotheses, labels: np.ndarray) -> float:
    """Accuracy of the NLI classifier on ``module``'s premise/hypothesis vectors."""
    import torch

    from xprobe.nli.train import nli_features

    u = torch.from_numpy(encode_ids(module, table, premises)).to(table.device)
    v = torch.from_numpy(encode_ids(module, table, hypotheses)).to(table.device)
    with torch.no_grad():
        pred = clf(nli_features(u, v)).argmax(dim=1).cpu().numpy()
    return float((pred == labels).mean())


def evaluate(module, clf, table, data: MapData) -> dict[str, float]:
    """XNLI dev accuracy, held-out MSE to the teacher, retrieval accuracy (both directions)."""
    from xprobe.mapping.loss import retrieval_accuracy

    acc = xnli_accuracy(
        module, clf, table, data.xnli_premises, data.xnli_hypotheses, data.xnli_labels
    )
    held = encode_ids(module, table, data.held_tgt)
    teacher = np.asarray(data.teacher_held)
    return {
        "xnli_acc": acc,
        "heldout_mse": float(np.mean((held - teacher) ** 2)),
        "retrieval_xx_en": retrieval_accuracy(held, teacher),
        "retrieval_en_xx": retrieval_accuracy(teacher, held),
    }


def _train_epoch(module, table, data: MapData, opt, cfg: MapConfig, epoch: int) -> dict:
    """One seeded pass over the training pairs; returns mean loss, steps and steps/s."""
    import torch
    from tqdm import tqdm

    module.train()
    order = np_rng(cfg.seed, "map-shuffle", epoch).permutation(len(data.train_tgt))
    gen = torch.Generator().manual_seed(derive_seed(cfg.seed, "map-contrast", epoch) % (2**63))
    total, steps, t0 = 0.0, 0, time.perf_counter()
    starts = [s for s in range(0, len(order), cfg.batch_size) if len(order) - s >= 2]
    bar = tqdm(starts, desc=f"map epoch {epoch}", disable=None, leave=False)
    for start in bar:
        rows = np.sort(order[start : start + cfg.batch_size])
        x = module(*padded_batch(table, [data.train_tgt[i] for i in rows]))
        y = torch.from_numpy(np.asarray(data.teacher_train[rows])).to(table.device)
        loss = alignment_loss(x, y, cfg.lam, derangement(len(rows), gen))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(module.parameters(), 5.0)
        opt.step()
        total += float(loss.detach())
        steps += 1
        bar.set_postfix(loss=f"{total / steps:.4f}")
    seconds = time.perf_counter() - t0
    return {
        "train_loss": total / max(1, steps),
        "steps": steps,
        "seconds": round(seconds, 2),
        "steps_per_s": round(steps / seconds, 3) if seconds > 0 else 0.0,
    }


def _save_best(out: Path, student, clf_files: dict, info: dict, progress: dict) -> None:
    from xprobe.encoders.checkpoint import save_encoder

    student.reset_id()
    save_encoder(out, student, extra={**info, **_summary(progress)}, files=clf_files)


def _summary(progress: dict) -> dict:
    return {
        "best_xnli_acc": progress["best_acc"],
        "best_epoch": progress["best_epoch"],
        "epochs_run": progress["epoch"],
        "history": progress["history"],
    }


def map_encoder(cfg: MapConfig) -> dict[str, Any]:
    """Train (or continue, with ``cfg.resume``) a student encoder into ``cfg.out``.

    Returns the summary (history per epoch, best XNLI dev accuracy, teacher's English XNLI
    accuracy when ``xnli_dev_en`` is given), also written to ``OUT/mapping_report.json`` and
    under ``extra`` in ``OUT/config.json``.
    """
    import torch

    from xprobe.encoders.neural import random_encoder, resolve_device
    from xprobe.nli.train import load_classifier, save_classifier

    check_lambda(cfg.lam)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    out = Path(cfg.out)
    if (out / STATE).exists() and not cfg.resume:
        raise XProbeError(f"{out}: already holds a mapping run; pass --resume or another --out")
    device = resolve_device(cfg.device)
    teacher = teacher_for(cfg.teacher, device)
    clf = load_classifier(cfg.teacher, device=device)
    data = load_map_data(cfg, teacher)
    sizes = {k: v for k, v in teacher.config.items() if k not in ("arch", "word_dim", "init_seed")}
    student = random_encoder(teacher.arch, data.vectors, seed=cfg.seed, device=device, **sizes)
    table = _table(data.vectors.matrix, device)
    opt = torch.optim.Adam(student.module.parameters(), lr=cfg.lr)
    out.mkdir(parents=True, exist_ok=True)
    clf_files = save_classifier(out, clf)
    info = {"mapping": {**data.info, "teacher_id": teacher.id, "config": asdict(cfg)}}
    progress: dict[str, Any] = {"epoch": 0, "best_acc": -1.0, "best_epoch": 0, "bad": 0}
    if cfg.resume and (out / STATE).exists():
        progress = restore_state(
            out / STATE, cfg.identity(), {"module": student.module}, opt, "mapping state"
        )
        log.info("resuming after epoch %d", progress["epoch"])
    else:
        torch.manual_seed(derive_seed(cfg.seed, "map-train") % (2**63))
        progress["history"] = [{"epoch": 0, **evaluate(student.module, clf, table, data)}]
        log.info("before mapping: %s", progress["history"][0])
    while progress["epoch"] < cfg.epochs and progress["bad"] < cfg.patience:
        epoch = progress["epoch"] + 1
        record = {"epoch": epoch, **_train_epoch(student.module, table, data, opt, cfg, epoch)}
        record.update(evaluate(student.module, clf, table, data))
        log.info("epoch %d: %s", epoch, {k: round(v, 4) for k, v in record.items()})
        progress["history"].append(record)
        progress["epoch"] = epoch
        if record["xnli_acc"] > progress["best_acc"]:
            progress.update(best_acc=record["xnli_acc"], best_epoch=epoch, bad=0)
            _save_best(out, student, clf_files, info, progress)
        else:
            progress["bad"] += 1
        save_state(out / STATE, cfg.identity(), {"module": student.module}, opt, progress)
    return _finish(out, teacher, clf, data, info, progress, clf_files)


def _finish(out: Path, teacher, clf, data: MapData, info, progress, clf_files) -> dict:
    """Teacher's English XNLI accuracy (when given); summary into config.json and the report."""
    from xprobe.encoders.checkpoint import load_encoder

    summary = {**info, **_summary(progress)}
    if data.xnli_en is not None:
        t_table = _table(data.xnli_en_vectors, teacher.device)
        summary["teacher_xnli_en_acc"] = xnli_accuracy(teacher.module, clf, t_table, *data.xnli_en)
    if progress["best_epoch"] == 0:
        raise XProbeError(f"{out}: no training epoch ran (epochs = 0?); nothing saved")
    best = load_encoder(out, device=teacher.device)
    best_record = progress["history"][progress["best_epoch"]]
    summary["best"] = best_record
    _save_best(
        out,
        best,
        clf_files,
        {**info, **{k: summary[k] for k in summary if k != "history"}},
        progress,
    )
    write_json(out / REPORT, summary)
    return summary

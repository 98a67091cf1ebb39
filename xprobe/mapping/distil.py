"""Distil a frozen English teacher (any encoder spec) into a student for another language.

Reimers & Gurevych (2020) train a student to give a target sentence the teacher's vector of its
English translation (plain MSE); X-Probe adds in-batch contrastive terms
(:func:`xprobe.mapping.loss.alignment_loss`; ``lam = 0`` is the plain MSE, ``lam >= 0.5`` is
refused). The teacher (``st:``, ``hf:``, a checkpoint directory, ``bov:``...) only encodes:
its vectors of the English side are computed once and cached. The student is a transformer
initialised from a directory or an X-Probe architecture over mapped word vectors
(:mod:`xprobe.mapping.student`).

Evaluation, once before training and every ``eval_every`` steps (default: after every epoch):
MSE to the teacher and translation retrieval accuracy (cosine nearest neighbour, both
directions) on held-out pairs, and with an NLI head on the teacher's space (``train-nli
--frozen``) and a target-language XNLI dev file, XNLI dev accuracy. Stopping rule: XNLI dev
accuracy when given, else held-out MSE; after ``patience`` evaluations without a gain. The best
student is kept in ``OUT``; ``OUT/distil_state.pt`` (weights, optimizer, RNG, position in the
epoch) is written at every evaluation, so a killed run continues with ``resume`` and ends with
the same bytes as an uninterrupted one. Timings go to ``OUT/speed.json`` only (they differ run to
run); ``OUT/mapping_report.json`` holds the history.

Example::

    cfg = DistilConfig(teacher="st:models/all-MiniLM-L6-v2", student="hf:models/all-MiniLM-L6-v2",
                       out="models/de-minilm", target_lang="de", parallel_tsv="en-de.tsv")
    summary = distil(cfg)       # {"best": {...}, "history": [...], "teacher": ..., ...}
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.errors import XProbeError
from xprobe.files import derive_seed, np_rng, write_json
from xprobe.mapping.distil_config import DistilConfig
from xprobe.mapping.loss import alignment_loss, check_lambda, derangement, retrieval_accuracy
from xprobe.nli.state import restore_state, save_state

__all__ = ["DistilConfig", "distil", "evaluate_student"]

log = logging.getLogger(__name__)

STATE, REPORT, SPEED = "distil_state.pt", "mapping_report.json", "speed.json"


def _build_student(cfg: DistilConfig, out_dim: int, target_words: set[str], device: str):
    """The student ``cfg.student`` names, seeded, with ``out_dim``-d vectors."""
    import torch

    from xprobe.encoders.neural import ARCHITECTURES
    from xprobe.mapping.student import TransformerStudent, VectorStudent

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(derive_seed(cfg.seed, "distil-student-init") % (2**63))
        if cfg.student.startswith("hf:"):
            if cfg.vectors:
                raise XProbeError("--vectors belongs to an architecture student, not hf:PATH")
            return TransformerStudent.load(
                cfg.student, cfg.target_lang, cfg.pooling, out_dim, cfg.projection, device,
                cfg.max_seq_length, teacher=cfg.teacher,
            )  # fmt: skip
        if cfg.student in ARCHITECTURES:
            if not cfg.vectors:
                raise XProbeError(f"--student {cfg.student} needs --vectors (mapped word vectors)")
            from xprobe.mapping.data import _student_vectors

            vectors = _student_vectors(cfg, target_words, lowercase=False)  # type: ignore[arg-type]
            return VectorStudent.load(
                cfg.student, vectors, out_dim, cfg.seed, device, cfg.sizes, teacher=cfg.teacher
            )
    raise XProbeError(
        f"--student {cfg.student!r}: expected hf:PATH (a transformers directory) or one of "
        f"{', '.join(ARCHITECTURES)}"
    )


def evaluate_student(student, data, head) -> dict[str, float]:
    """Held-out MSE and retrieval (both directions); XNLI dev accuracy when a head is given."""
    held = student.encode(data.held_items)
    teacher = data.teacher_held
    rec = {
        "heldout_mse": float(np.mean((held - teacher) ** 2)),
        "retrieval_xx_en": retrieval_accuracy(held, teacher),
        "retrieval_en_xx": retrieval_accuracy(teacher, held),
    }
    if head is not None and data.xnli is not None:
        from xprobe.nli.head import predict

        prem, hyp, labels = data.xnli
        pred = predict(head, student.encode(prem), student.encode(hyp))
        rec["xnli_acc"] = float((pred == labels).mean())
    return rec


class _Run:
    """One distillation run's moving parts (kept together so each step stays small)."""

    def __init__(self, cfg: DistilConfig, student, data, head, meta: dict[str, Any], device: str):
        import torch

        self.cfg, self.student, self.data, self.head, self.meta = cfg, student, data, head, meta
        self.device = device
        self.out = Path(cfg.out)
        lr = cfg.lr if cfg.lr is not None else (2e-5 if student.kind == "transformer" else 1e-3)
        self.opt = torch.optim.Adam(student.parameters(), lr=lr)
        self.steps_timed, self.seconds = 0, 0.0

    def batches(self, epoch: int) -> list[np.ndarray]:
        n, bs = len(self.data.train_items), self.cfg.batch_size
        order = np_rng(self.cfg.seed, "distil-shuffle", epoch).permutation(n)
        return [np.sort(order[s : s + bs]) for s in range(0, n, bs) if n - s >= 2]

    def step(self, rows: np.ndarray, epoch: int, index: int) -> float:
        import torch

        self.student.train(True)
        x = self.student.forward([self.data.train_items[i] for i in rows])
        y = torch.from_numpy(np.asarray(self.data.teacher_train[rows], np.float32)).to(x.device)
        gen = torch.Generator().manual_seed(
            derive_seed(self.cfg.seed, "distil-contrast", epoch, index) % (2**63)
        )
        loss = alignment_loss(x, y, self.cfg.lam, derangement(len(rows), gen))
        self.opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(self.student.parameters()), 5.0)
        self.opt.step()
        return float(loss.detach())

    def score(self, rec: dict[str, float]) -> float:
        return rec["xnli_acc"] if "xnli_acc" in rec else -rec["heldout_mse"]

    def checkpoint(self, progress: dict[str, Any]) -> None:
        """Evaluate, keep the best student, save the resumable state."""
        epoch = progress["epoch"] if progress["batch"] else progress["epoch_done"]
        rec: dict[str, Any] = {"step": progress["step"], "epoch": epoch}
        rec["train_loss"] = progress["loss_sum"] / max(1, progress["loss_n"])
        rec.update(evaluate_student(self.student, self.data, self.head))
        progress["history"].append(rec)
        progress.update(loss_sum=0.0, loss_n=0)
        log.info("step %d: %s", rec["step"], {k: round(v, 4) for k, v in rec.items()})
        best = progress["best"]
        if best is None or self.score(rec) > self.score(best):
            progress.update(best=rec, bad=0)
            self.student.save(self.out, {**self.meta, "best": rec})
        else:
            progress["bad"] += 1
        save_state(
            self.out / STATE, self.cfg.identity(), self.student.modules(), self.opt, progress
        )

    def _one_step(self, progress: dict[str, Any], batches: list[np.ndarray], epoch: int) -> None:
        t0 = time.perf_counter()
        loss = self.step(batches[progress["batch"]], epoch, progress["batch"])
        self.seconds += time.perf_counter() - t0
        self.steps_timed += 1
        progress["batch"] += 1
        progress["step"] += 1
        progress["loss_sum"] += loss
        progress["loss_n"] += 1

    def train(self, progress: dict[str, Any]) -> None:
        from tqdm import tqdm

        cfg = self.cfg
        while progress["epoch"] <= cfg.epochs and progress["bad"] < cfg.patience:
            epoch, batches = progress["epoch"], self.batches(progress["epoch"])
            bar = tqdm(total=len(batches), initial=progress["batch"], desc=f"distil epoch {epoch}",
                       disable=None, leave=False)  # fmt: skip
            while progress["epoch"] == epoch and progress["bad"] < cfg.patience:
                self._one_step(progress, batches, epoch)
                bar.update(1)
                bar.set_postfix(
                    steps_s=f"{self.steps_timed / self.seconds:.2f}",
                    loss=f"{progress['loss_sum'] / max(1, progress['loss_n']):.4f}",
                )
                if progress["batch"] == len(batches):  # end of epoch: always evaluate
                    progress.update(epoch=epoch + 1, batch=0, epoch_done=epoch)
                    self.checkpoint(progress)
                elif cfg.eval_every and progress["step"] % cfg.eval_every == 0:
                    self.checkpoint(progress)
            bar.close()


def _head_and_xnli(cfg: DistilConfig, teacher_dim: int, device: str):
    """The teacher's NLI head and the target-language XNLI dev tokens (both or neither)."""
    if bool(cfg.nli_head) != bool(cfg.xnli_dev):
        raise XProbeError("XNLI early stopping needs both --nli-head and --xnli-dev")
    if not cfg.nli_head:
        return None, None
    from xprobe.mapping.distil_data import read_xnli_tokens
    from xprobe.nli.head import load_head

    head, meta = load_head(cfg.nli_head, device=device)
    if int(meta["dim"]) != teacher_dim:
        raise XProbeError(
            f"{cfg.nli_head}: the NLI head reads {meta['dim']}-d vectors, the teacher gives "
            f"{teacher_dim}-d; train it on the teacher (train-nli --frozen {cfg.teacher})"
        )
    lang = cfg.xnli_language or cfg.target_lang
    return head, read_xnli_tokens(cfg.xnli_dev, lang, cfg.target_lang, cfg.max_xnli)


def distil(cfg: DistilConfig) -> dict[str, Any]:
    """Train (or continue, with ``cfg.resume``) a student into ``cfg.out``; returns the summary."""
    import torch

    from xprobe.encoders.neural import resolve_device
    from xprobe.mapping.distil_data import english_vocab, load_corpus, load_teacher, prepare_data

    check_lambda(cfg.lam)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    out = Path(cfg.out)
    if (out / STATE).exists() and not cfg.resume:
        raise XProbeError(
            f"{out}: already holds a distillation run; pass --resume or another --out"
        )
    device = resolve_device(cfg.device)
    corpus, source = load_corpus(cfg)
    teacher = load_teacher(cfg.teacher, english_vocab(corpus), device, cfg.source_lang)
    head, xnli = _head_and_xnli(cfg, int(teacher.dim), device)
    target_words = {t for _, s in corpus.train + corpus.heldout for t in s}
    if xnli is not None:
        target_words |= {t for s in xnli[0] + xnli[1] for t in s}
    student = _build_student(cfg, int(teacher.dim), target_words, device)
    data = prepare_data(cfg, corpus, source.files, teacher, student, xnli)
    meta = {
        "teacher": cfg.teacher,
        "teacher_id": teacher.id,
        "student_init": cfg.student,
        "source_lang": cfg.source_lang,
        "target_lang": cfg.target_lang,
        "lambda": cfg.lam,
        "stopping": "xnli_dev_accuracy" if head is not None else "heldout_mse",
        "mapping": {**data.info, "config": _recorded(cfg)},
    }
    run = _Run(cfg, student, data, head, meta, device)
    progress = _start(run, out)
    run.train(progress)
    return _finish(run, progress, teacher)


def _recorded(cfg: DistilConfig) -> dict[str, Any]:
    """The settings worth recording: all but where the output goes and how the run was started
    (so that a resumed run writes the same bytes as an uninterrupted one)."""
    return {k: v for k, v in asdict(cfg).items() if k not in ("out", "resume", "device", "threads")}


def _start(run: _Run, out: Path) -> dict[str, Any]:
    """A fresh run's progress (evaluated once before training), or the saved one on resume."""
    import torch

    cfg = run.cfg
    if cfg.resume and (out / STATE).exists():
        progress = restore_state(
            out / STATE, cfg.identity(), run.student.modules(), run.opt, "distillation state"
        )
        log.info("resuming at step %d (epoch %d)", progress["step"], progress["epoch"])
        return progress
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(derive_seed(cfg.seed, "distil-train") % (2**63))
    rec = {"step": 0, "epoch": 0, **evaluate_student(run.student, run.data, run.head)}
    log.info("before distillation: %s", rec)
    return {"epoch": 1, "batch": 0, "step": 0, "epoch_done": 0, "loss_sum": 0.0, "loss_n": 0,
            "best": None, "bad": 0, "history": [rec]}  # fmt: skip


def _finish(run: _Run, progress: dict[str, Any], teacher) -> dict[str, Any]:
    """The summary (history, best, teacher's own XNLI accuracy) into the report and metadata."""
    cfg = run.cfg
    if progress["best"] is None:
        raise XProbeError(f"{cfg.out}: no training step ran (epochs = 0?); nothing saved")
    summary = {**run.meta, "best": progress["best"], "history": progress["history"]}
    if cfg.xnli_dev_en and run.head is not None:
        from xprobe.mapping.distil_data import read_xnli_tokens
        from xprobe.nli.head import predict

        prem, hyp, labels = read_xnli_tokens(
            cfg.xnli_dev_en, cfg.source_lang, cfg.source_lang, cfg.max_xnli
        )
        pred = predict(run.head, teacher.encode(prem), teacher.encode(hyp))
        summary["teacher_xnli_en_acc"] = float((pred == labels).mean())
    write_json(Path(cfg.out) / REPORT, summary)
    secs = run.seconds
    speed = {"steps": run.steps_timed, "seconds": round(secs, 2), "device": run.device}
    speed["steps_per_s"] = round(run.steps_timed / secs, 3) if secs > 0 else math.nan
    write_json(Path(cfg.out) / SPEED, speed)
    return {**summary, "speed": speed}

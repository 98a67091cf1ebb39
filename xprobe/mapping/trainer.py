"""The one mapping trainer: a student learns to give a target sentence its teacher's vector.

X-Probe section 5.2 (Ravishankar et al. 2019) and Reimers & Gurevych (2020) are the same
objective: on parallel text, the student's vector of each target sentence is pulled towards the
frozen teacher's vector of its English translation with :func:`xprobe.mapping.loss.
alignment_loss` (X-Probe's contrastive MSE, lambda = 0.25 with in-batch contrastive sentences;
lambda = 0 is Reimers & Gurevych's plain MSE; lambda >= 0.5 is refused). Any teacher and any
student go through :func:`map_encoder` (:class:`~xprobe.mapping.config.MapConfig` says which):

* the teacher (a ``train-nli`` directory, ``st:``, ``hf:``, ``bov:``...) only encodes: its vectors
  of the English side are computed once, through the sentence-vector cache
  (:mod:`xprobe.mapping.data`), and training touches only the student;
* the student (:mod:`xprobe.mapping.student`) is X-Probe's (the teacher's architecture over mapped
  target word vectors), another architecture, or a transformer.

Evaluation, once before training and after every epoch (or every ``eval_every`` steps): MSE to
the teacher and translation retrieval accuracy (cosine nearest neighbour, both directions) on
held-out pairs, and XNLI dev accuracy in the target language through the teacher's NLI head
(:class:`xprobe.mapping.xnli.XNLIStopper`). Stopping rule: XNLI dev accuracy when a head and dev
file are known, else held-out MSE; after ``patience`` evaluations without a gain; the best
student is kept in ``OUT``.

``OUT/map_state.pt`` (weights, optimizer, RNG, position in the epoch) is written at every
evaluation: a run killed at any point continues with ``resume`` and ends with the same student
as an uninterrupted one (a kill between two saved states replays the steps after the last one,
seeded). Timings go to ``OUT/speed.json`` only; ``OUT/mapping_report.json`` holds the history.

Example::

    cfg = MapConfig(teacher="models/en-bilstm-max", vectors="de.mapped.vec", out="models/de",
                    target_lang="de", parallel_tsv="en-de.tsv", xnli_dev="xnli/dev-de.tsv")
    summary = map_encoder(cfg)     # {"best": {...}, "history": [...], "speed": {...}, ...}
"""

from __future__ import annotations

import logging
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.errors import XProbeError
from xprobe.files import derive_seed, np_rng, write_json
from xprobe.mapping.config import MapConfig
from xprobe.mapping.loss import alignment_loss, check_lambda, derangement, retrieval_accuracy
from xprobe.mapping.optim import clip_gradients, make_optimizer
from xprobe.nli.state import restore_state, save_state

__all__ = ["MapConfig", "evaluate_student", "map_encoder"]

log = logging.getLogger(__name__)

STATE, REPORT, SPEED = "map_state.pt", "mapping_report.json", "speed.json"


def evaluate_student(student, data, stopper) -> dict[str, float]:
    """XNLI dev accuracy (with a stopper), held-out MSE and retrieval (both directions)."""
    rec: dict[str, float] = {}
    if stopper is not None:
        rec["xnli_acc"] = stopper.accuracy(student)
    held = student.encode(data.held_items)
    teacher = data.teacher_held
    rec["heldout_mse"] = float(np.mean((held - teacher) ** 2))
    rec["retrieval_xx_en"] = retrieval_accuracy(held, teacher)
    rec["retrieval_en_xx"] = retrieval_accuracy(teacher, held)
    return rec


class _Run:
    """One mapping run's moving parts (kept together so each step stays small)."""

    def __init__(self, cfg: MapConfig, student, data, stopper, meta: dict, files: dict | None):
        self.cfg, self.student, self.data, self.stopper = cfg, student, data, stopper
        self.meta, self.files, self.out = meta, files, Path(cfg.out)
        self.batch_size = cfg.resolved_batch_size()
        self.params = list(student.parameters())
        fused = student.kind == "transformer"  # X-Probe's own students keep the plain loop
        self.opt = make_optimizer(self.params, cfg.resolved_lr(), fused)
        self.steps_timed, self.seconds, self.first_s, self.setup_s = 0, 0.0, 0.0, 0.0

    def batches(self, epoch: int) -> list[np.ndarray]:
        """The epoch's batches of row indices: seeded random, or (``length_batches``) pools of
        50 batches sorted by input length, cut into batches, the batches in seeded order."""
        n, bs = len(self.data.train_items), self.batch_size
        order = np_rng(self.cfg.seed, "map-shuffle", epoch).permutation(n)
        if not self.cfg.resolved_length_batches():
            return [np.sort(order[s : s + bs]) for s in range(0, n, bs) if n - s >= 2]
        lengths = np.array([len(x) for x in self.data.train_items])
        out = []
        for p in range(0, n, 50 * bs):
            pool = order[p : p + 50 * bs]
            pool = pool[np.argsort(lengths[pool], kind="stable")]
            out += [
                np.sort(pool[s : s + bs]) for s in range(0, len(pool), bs) if len(pool) - s >= 2
            ]
        return [out[i] for i in np_rng(self.cfg.seed, "map-batches", epoch).permutation(len(out))]

    def contrast(self, epoch: int, batches: list[np.ndarray], done: int):
        """The epoch's generator of contrastive rows, advanced past the ``done`` first batches
        (so a resumed epoch draws what the uninterrupted one drew)."""
        import torch

        gen = torch.Generator().manual_seed(
            derive_seed(self.cfg.seed, "map-contrast", epoch) % (2**63)
        )
        for rows in batches[:done]:
            derangement(len(rows), gen)
        return gen

    def step(self, rows: np.ndarray, gen) -> float:
        import torch

        self.student.train(True)
        x = self.student.forward([self.data.train_items[i] for i in rows])
        y = torch.from_numpy(np.asarray(self.data.teacher_train[rows], np.float32)).to(x.device)
        loss = alignment_loss(x, y, self.cfg.lam, derangement(len(rows), gen))
        self.opt.zero_grad()
        loss.backward()
        clip_gradients(self.params, 5.0)
        self.opt.step()
        return float(loss.detach())

    def score(self, rec: dict[str, float]) -> float:
        return rec["xnli_acc"] if "xnli_acc" in rec else -rec["heldout_mse"]

    def checkpoint(self, progress: dict[str, Any]) -> None:
        """Evaluate, keep the best student, save the resumable state."""
        epoch = progress["epoch"] if progress["batch"] else progress["epoch_done"]
        rec: dict[str, Any] = {"epoch": epoch, "step": progress["step"]}
        rec["train_loss"] = progress["loss_sum"] / max(1, progress["loss_n"])
        rec.update(evaluate_student(self.student, self.data, self.stopper))
        progress["history"].append(rec)
        progress.update(loss_sum=0.0, loss_n=0)
        log.info("step %d: %s", rec["step"], {k: round(v, 4) for k, v in rec.items()})
        best = progress["best"]
        if best is None or self.score(rec) > self.score(best):
            progress.update(best=rec, bad=0)
            self.student.save(self.out, {**self.meta, "best": rec}, self.files)
        else:
            progress["bad"] += 1
        save_state(
            self.out / STATE, self.cfg.identity(), self.student.modules(), self.opt, progress
        )

    def _one_step(self, progress: dict[str, Any], batches, gen) -> None:
        t0 = time.perf_counter()
        loss = self.step(batches[progress["batch"]], gen)
        took = time.perf_counter() - t0
        self.first_s = self.first_s or took  # the first step of a process warms up
        self.seconds += took
        self.steps_timed += 1
        progress["batch"] += 1
        progress["step"] += 1
        progress["loss_sum"] += loss
        progress["loss_n"] += 1

    def train(self, progress: dict[str, Any]) -> None:
        from tqdm import tqdm

        cfg = self.cfg
        while progress["epoch"] <= cfg.epochs and not self.done(progress):
            epoch, batches = progress["epoch"], self.batches(progress["epoch"])
            gen = self.contrast(epoch, batches, progress["batch"])
            bar = tqdm(total=len(batches), initial=progress["batch"], desc=f"map epoch {epoch}",
                       disable=None, leave=False)  # fmt: skip
            while progress["epoch"] == epoch and not self.done(progress):
                self._one_step(progress, batches, gen)
                bar.update(1)
                if bar.disable:  # no terminal: the log says how far the epoch is
                    self._say(progress, epoch, len(batches))
                if progress["batch"] == len(batches):  # end of epoch: always evaluate
                    progress.update(epoch=epoch + 1, batch=0, epoch_done=epoch)
                    self.checkpoint(progress)
                elif cfg.eval_every and progress["step"] % cfg.eval_every == 0:
                    self.checkpoint(progress)
                elif cfg.max_steps and progress["step"] >= cfg.max_steps:
                    self.checkpoint(progress)  # the last step is always evaluated
            bar.close()

    def _say(self, progress: dict[str, Any], epoch: int, n: int) -> None:
        """One log line per tenth of an epoch: batch, step, mean loss since the last
        evaluation, steps/s."""
        if progress["batch"] % max(1, n // 10) and progress["batch"] != n:
            return
        loss = progress["loss_sum"] / max(1, progress["loss_n"])
        rate = self.steps_timed / self.seconds if self.seconds > 0 else math.nan
        log.info("epoch %d: batch %d of %d (step %d), loss %.4f, %.2f steps/s",
                 epoch, progress["batch"], n, progress["step"], loss, rate)  # fmt: skip

    def done(self, progress: dict[str, Any]) -> bool:
        """Patience spent, or ``max_steps`` reached."""
        over = bool(self.cfg.max_steps) and progress["step"] >= self.cfg.max_steps
        return progress["bad"] >= self.cfg.patience or over


def _stopper(cfg: MapConfig, teacher, device: str):
    """The XNLI stopper: ``nli_head`` (or an X-Probe teacher's own classifier) on ``xnli_dev``."""
    head = cfg.nli_head or (cfg.teacher.path if cfg.xprobe_student else None)
    if cfg.nli_head and not cfg.xnli_dev:
        raise XProbeError("XNLI early stopping needs --xnli-dev with --nli-head")
    if cfg.xnli_dev and not head:
        raise XProbeError(f"--xnli-dev needs --nli-head (train-nli --frozen {cfg.teacher.shown})")
    if not (head and cfg.xnli_dev):
        return None
    from xprobe.mapping.xnli import load_stopper

    lang = cfg.xnli_language or cfg.target_lang
    return load_stopper(head, cfg.xnli_dev, lang, cfg.target_lang, cfg.max_xnli,
                        int(teacher.dim), device, cfg.teacher.shown)  # fmt: skip


def map_encoder(cfg: MapConfig) -> dict[str, Any]:
    """Train (or continue, with ``cfg.resume``) a student into ``cfg.out``; returns the summary
    (also in ``OUT/mapping_report.json``), with ``speed`` (steps/s, from ``OUT/speed.json``)."""
    import torch

    from xprobe.encoders.neural import resolve_device
    from xprobe.mapping.data import english_vocab, load_corpus, load_teacher, prepare_data
    from xprobe.mapping.student import build_student
    from xprobe.mapping.xnli import read_xnli_tokens

    t0 = time.perf_counter()
    check_lambda(cfg.lam)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    out = Path(cfg.out)
    if (out / STATE).exists() and not cfg.resume:
        raise XProbeError(f"{out}: already holds a mapping run; pass --resume or another --out")
    device = resolve_device(cfg.device)
    corpus, files = load_corpus(cfg)
    en = cfg.source_lang
    xnli_en = read_xnli_tokens(cfg.xnli_dev_en, en, en, cfg.max_xnli) if cfg.xnli_dev_en else None
    teacher = load_teacher(cfg, english_vocab(corpus), device, xnli_en)
    stopper = _stopper(cfg, teacher, device)
    words = {t for _, s in corpus.train + corpus.heldout for t in s}
    if stopper is not None:
        words |= {t for s in stopper.premises + stopper.hypotheses for t in s}
    student = build_student(cfg, teacher, words, device)
    data = prepare_data(cfg, corpus, files, teacher, student)
    meta = _meta(cfg, teacher, data, stopper)
    files_ = _copy_head(out, student, stopper)
    run = _Run(cfg, student, data, stopper, meta, files_)
    progress = _start(run, out)
    run.setup_s = time.perf_counter() - t0  # reading, the teacher's vectors, first evaluation
    run.train(progress)
    return _finish(run, progress, teacher, xnli_en)


def _meta(cfg: MapConfig, teacher, data, stopper) -> dict[str, Any]:
    return {
        "teacher": cfg.teacher.shown,
        "teacher_id": teacher.id,
        "student_init": cfg.student_shown or "teacher architecture",
        "source_lang": cfg.source_lang,
        "target_lang": cfg.target_lang,
        "lambda": cfg.lam,
        "stopping": "xnli_dev_accuracy" if stopper is not None else "heldout_mse",
        "mapping": {**data.info, "config": cfg.recorded()},
    }


def _copy_head(out: Path, student, stopper) -> dict[str, str] | None:
    """A vector student's directory gets the stopping head (a train-nli-like encoder)."""
    if stopper is None or student.kind != "vectors":
        return None
    from xprobe.nli.train import save_classifier

    out.mkdir(parents=True, exist_ok=True)
    return save_classifier(out, stopper.head)


def _start(run: _Run, out: Path) -> dict[str, Any]:
    """A fresh run's progress (evaluated once before training), or the saved one on resume."""
    import torch

    cfg = run.cfg
    if cfg.resume and (out / STATE).exists():
        progress = restore_state(
            out / STATE, cfg.identity(), run.student.modules(), run.opt, "mapping state"
        )
        log.info("resuming at step %d (epoch %d)", progress["step"], progress["epoch"])
        return progress
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(derive_seed(cfg.seed, "map-train") % (2**63))
    rec = {"epoch": 0, "step": 0, **evaluate_student(run.student, run.data, run.stopper)}
    log.info("before mapping: %s", rec)
    return {"epoch": 1, "batch": 0, "step": 0, "epoch_done": 0, "loss_sum": 0.0, "loss_n": 0,
            "best": None, "bad": 0, "history": [rec]}  # fmt: skip


def _finish(run: _Run, progress: dict[str, Any], teacher, xnli_en) -> dict[str, Any]:
    """The summary (history, best, teacher's own XNLI accuracy) into the report."""
    cfg = run.cfg
    if progress["best"] is None:
        raise XProbeError(f"{cfg.out}: no training step ran (epochs = 0?); nothing saved")
    summary = {**run.meta, "best": progress["best"], "history": progress["history"]}
    if xnli_en is not None and run.stopper is not None:
        from xprobe.mapping.xnli import XNLIStopper

        s = run.stopper
        en = XNLIStopper(s.head, s.meta, *xnli_en, items=(xnli_en[0], xnli_en[1]))
        summary["teacher_xnli_en_acc"] = en.accuracy(teacher)
    write_json(Path(cfg.out) / REPORT, summary)
    secs = run.seconds
    speed = {"steps": run.steps_timed, "seconds": round(secs, 2), "setup_s": round(run.setup_s, 2)}
    speed["steps_per_s"] = round(run.steps_timed / secs, 3) if secs > 0 else math.nan
    warm = secs - run.first_s  # without the first step, as sentence-transformers' timers do
    speed["steps_per_s_after_first"] = (
        round((run.steps_timed - 1) / warm, 3) if run.steps_timed > 1 and warm > 0 else math.nan
    )
    write_json(Path(cfg.out) / SPEED, speed)
    return {**summary, "speed": speed}

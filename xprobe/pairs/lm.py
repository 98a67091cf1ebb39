"""Sentence log-probabilities under a language model: causal models by the summed
log-probability of every token given the ones before it, masked models by pseudo-log-likelihood.

A causal model conditions the first token on the tokenizer's BOS token, or its EOS token where it
has no BOS (as lm-evaluation-harness does for an empty context); the sentence is tokenized
without special tokens. A masked model scores each token with it alone masked (Salazar et al.
2020), one forward pass per token, batched across sentences. Each distinct sentence is scored
once per model: scores are cached by the model's identity (its revision: a local directory's
files' digest, a hub model's commit) and the sentence's SHA-256, in ``CACHE/lm-scores/``.

Example::

    >>> lm = load_lm("hf:models/tiny-gpt2")  # doctest: +SKIP
    >>> lm.score(["the cat sleeps", "the cat sleep"])  # doctest: +SKIP
    [Score(logprob=-12.3, tokens=3), Score(logprob=-14.1, tokens=3)]
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from xprobe.errors import XProbeError
from xprobe.files import write_json

if TYPE_CHECKING:
    from xprobe.encoders.encoder_spec import EncoderSpec

__all__ = ["LanguageModel", "Score", "load_lm"]

log = logging.getLogger(__name__)


class Score(NamedTuple):
    logprob: float  # natural log
    tokens: int  # the model's tokens scored


class LanguageModel:
    """A loaded causal or masked language model with its cache of sentence scores."""

    def __init__(self, loaded: Any, kind: str, device: str, batch_size: int, cache: Path | None):
        self.model = loaded.model.to(device).eval()
        self.tokenizer = loaded.tokenizer
        self.kind, self.device, self.batch_size = kind, device, batch_size
        self.name = loaded.name
        self.identity = f"{kind}:{loaded.name}@{loaded.revision}"
        key = hashlib.sha256(self.identity.encode()).hexdigest()[:16]
        self.cache_file = None if cache is None else cache / "lm-scores" / f"{key}.json"
        self.cache: dict[str, list[float]] = {}
        if self.cache_file is not None and self.cache_file.is_file():
            self.cache = json.loads(self.cache_file.read_text(encoding="utf-8"))["scores"]
        self.scored = 0  # sentences run through the model (not from the cache)

    def score(self, sentences: Sequence[str]) -> list[Score]:
        """The score of each sentence; each distinct one not in the cache is run once."""
        keys = [hashlib.sha256(s.encode("utf-8")).hexdigest() for s in sentences]
        todo = sorted({k: s for k, s in zip(keys, sentences, strict=True)
                       if k not in self.cache}.items())  # fmt: skip
        if todo:
            fn = self._causal if self.kind == "causal" else self._masked
            for (k, _), score in zip(todo, fn([s for _, s in todo]), strict=True):
                self.cache[k] = [score.logprob, score.tokens]
            self.scored += len(todo)
            self._save()
        return [Score(self.cache[k][0], int(self.cache[k][1])) for k in keys]

    def _save(self) -> None:
        if self.cache_file is not None:
            write_json(self.cache_file, {"model": self.identity, "scores": self.cache})

    def _fits(self, seqs: list[list[int]], sentences: list[str]) -> None:
        """Every sequence within the model's positions: a longer one is an error, not a
        truncated score."""
        limit = getattr(self.model.config, "max_position_embeddings", None) or getattr(
            self.model.config, "n_positions", None
        )
        long = [i for i, s in enumerate(seqs) if limit and len(s) > limit]
        if long:
            i = long[0]
            raise XProbeError(
                f"{self.name}: {len(long)} sentence(s) longer than the model's {limit} positions "
                f"(the first: {len(seqs[i])} tokens, {sentences[i][:60]!r}...); give pairs from "
                "shorter sentences, or a model with a longer context"
            )

    def _forward(self, rows: list[list[int]], pad: int) -> tuple[Any, Any, Any]:
        """(ids, attention mask, logits) of token sequences padded on the right with ``pad``."""
        import torch

        ids = torch.full((len(rows), max(map(len, rows))), pad, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for r, seq in enumerate(rows):
            ids[r, : len(seq)] = torch.tensor(seq)
            mask[r, : len(seq)] = 1
        with torch.no_grad():
            out = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device))
        return ids, mask, out.logits

    def _encode(self, text: str, special: bool) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=special)["input_ids"])

    def _causal(self, sentences: list[str]) -> list[Score]:
        import torch

        tok = self.tokenizer
        prefix = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
        if prefix is None:
            raise XProbeError(f"{self.name}: the tokenizer has neither a BOS nor an EOS token to "
                              "condition a sentence's first token on")  # fmt: skip
        seqs = [[prefix, *self._encode(s, special=False)] for s in sentences]
        self._fits(seqs, sentences)
        out: list[Score | None] = [None] * len(seqs)
        order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            ids, mask, logits = self._forward([seqs[i] for i in batch], pad=0)
            logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
            target = ids[:, 1:].to(self.device)
            picked = logp.gather(-1, target.unsqueeze(-1)).squeeze(-1) * mask[:, 1:].to(self.device)
            for row, i in enumerate(batch):
                out[i] = Score(float(picked[row].double().sum()), len(seqs[i]) - 1)
        return [s for s in out if s is not None]

    def _masked(self, sentences: list[str]) -> list[Score]:
        import torch

        tok = self.tokenizer
        if tok.mask_token_id is None:
            raise XProbeError(f"{self.name}: a masked model's tokenizer needs a mask token")
        seqs = [self._encode(s, special=True) for s in sentences]
        self._fits(seqs, sentences)
        special = set(tok.all_special_ids)
        jobs = [(i, p) for i, seq in enumerate(seqs) for p, t in enumerate(seq) if t not in special]
        totals = [0.0] * len(seqs)
        counts = [0] * len(seqs)
        jobs.sort(key=lambda j: len(seqs[j[0]]))
        for start in range(0, len(jobs), self.batch_size):
            batch = jobs[start : start + self.batch_size]
            masked = [[tok.mask_token_id if k == p else t for k, t in enumerate(seqs[i])]
                      for i, p in batch]  # fmt: skip
            _, _, logits = self._forward(masked, pad=tok.pad_token_id or 0)
            for row, (i, p) in enumerate(batch):
                logp = torch.log_softmax(logits[row, p].float(), dim=-1)
                totals[i] += float(logp[seqs[i][p]])
                counts[i] += 1
        return [Score(t, c) for t, c in zip(totals, counts, strict=True)]


def load_lm(
    spec: str | EncoderSpec,
    kind: str = "auto",
    device: str = "auto",
    batch_size: int = 32,
    cache: Path | None = None,
) -> LanguageModel:
    """Load the language model ``spec`` (``hf:DIR_OR_HUB_NAME[revision=...,name=...]``, parsed
    once here); ``kind``: ``causal``, ``masked`` or ``auto`` (from the model's configuration)."""
    from xprobe.encoders.device import resolve_device
    from xprobe.encoders.encoder_spec import EncoderSpec
    from xprobe.encoders.hfload import load_model

    parsed = EncoderSpec.parse(spec)
    if parsed.kind != "hf":
        raise XProbeError(f"{parsed.shown}: a language model is hf:DIR or hf:HUB_NAME")
    if kind == "auto":
        kind = _kind_of(parsed.path)
    if kind not in ("causal", "masked"):
        raise XProbeError(f"{parsed.shown}: --kind must be causal, masked or auto, not {kind!r}")
    auto = "AutoModelForCausalLM" if kind == "causal" else "AutoModelForMaskedLM"
    dev = resolve_device(device)
    loaded = load_model("hf", parsed.path, dev, parsed.revision, auto=auto)
    lm = LanguageModel(loaded, kind, dev, batch_size, cache)
    lm.name = parsed.name or lm.name  # what records call it; the cache keys on the model itself
    return lm


def _kind_of(path: str) -> str:
    """``causal`` or ``masked``, from the architectures a model's config names."""
    config = Path(path).expanduser() / "config.json"
    if not config.is_file():
        raise XProbeError(f"hf:{path}: give --kind causal or masked (no local config.json to "
                          "tell which the model is)")  # fmt: skip
    arch = " ".join(json.loads(config.read_text(encoding="utf-8")).get("architectures") or [])
    if "CausalLM" in arch or "LMHead" in arch:
        return "causal"
    if "MaskedLM" in arch or "ForPreTraining" in arch:
        return "masked"
    raise XProbeError(f"hf:{path}: its config names no causal or masked LM head ({arch or 'no '}"
                      "architectures); give --kind causal or masked")  # fmt: skip

"""Minimal pairs in a study of a UD release (``[pairs]``; :mod:`xprobe.pairs`).

Per language of ``[treebanks] root``, ``pairs-CODE`` writes ``OUT/pairs/CODE`` from its probing
folder (the drafted profile where the language has no shipped one); ``lm-eval`` exports them all
as lm-evaluation-harness tasks into ``OUT/lm-eval``; ``score-pairs`` scores them with the
language models ``[pairs] models`` names (``--set 'pairs.models=["hf:DIR"]'``) beside the bigram
and length controls, into ``OUT/results/pairs.jsonl``, which the report reads.
"""

from __future__ import annotations

from typing import Any

from xprobe.study.state import Step

__all__ = ["pair_steps"]


def pair_steps(ctx: Any, treebanks: list[Step]) -> list[Step]:
    """The pairs, lm-eval and scoring steps of the languages of ``treebanks`` (the
    ``treebank-CODE`` steps); none when ``[pairs] enabled`` is false."""
    cfg = ctx.data["pairs"]
    if not cfg["enabled"] or not treebanks:
        return []
    steps, folders = [], []
    for s in treebanks:
        code = s.name.removeprefix("treebank-")
        out = str(ctx.out / "pairs" / code)
        profile = s.outputs[1] if len(s.outputs) > 1 else code  # the drafted profile's file
        argv = ["pairs", str(ctx.out / "probing" / code), "--out", out, "--lang", profile]
        if cfg["min_pairs"]:
            argv += ["--min-pairs", str(cfg["min_pairs"])]
        steps.append(Step(f"pairs-{code}", "pairs", ("cli", [argv]), (out,), origin="[pairs]"))
        folders.append(out)
    lm_eval = str(ctx.out / "lm-eval")
    argv = ["export", "lm-eval", *folders, "--out", lm_eval, "--force"]
    steps.append(Step("lm-eval", "export", ("cli", [argv]), (lm_eval,), origin="[pairs]"))
    scores = str(ctx.out / "results" / "pairs.jsonl")
    argv = ["score", *folders, "--out", scores, "--kind", cfg["kind"],
            "--device", ctx.data["study"]["device"]]  # fmt: skip
    cache = ctx.data["probe"]["options"].get("cache_dir")
    argv += ["--cache-dir", str(cache)] if cache else []
    for model in cfg["models"]:
        argv += ["--model", model]
    steps.append(Step("score-pairs", "score", ("cli", [argv]), (scores,), origin="[pairs]"))
    return steps

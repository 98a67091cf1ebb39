"""Scoring minimal pairs: `xprobe score`'s language-model scorer against a plain transformers
loop on the same model and sentences, side by side in one run.

The model is GPT-2-shaped (6 layers, 384 dimensions, 6 heads: MiniLM's size), built from a
config over a word-level vocabulary of the sentences (untrained weights: the cost of a forward
pass does not depend on them). The sentences are both sides of every pair of English EWT dev and
test (`xprobe extract --treebank --protocol cv:5`, then `xprobe pairs`), each pair's sides
scored as a user would ask for them: the plain loop runs one forward pass per side, one side at a
time; xprobe scores each distinct sentence once (shared sentences, such as the original of a
BShift and a SOMO pair, once), batched by length. Both give the same sums (checked).

Example::

    python benchmarks/bench_pairs.py --work /tmp/bench-pairs --threads 1
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data" / "ud" / "en"


def build(work: Path) -> tuple[Path, list[str]]:
    from xprobe.cli import main
    from xprobe.pairs import read_pairs

    probing, pairs = work / "probing", work / "pairs"
    if not (pairs / "manifest.json").exists():
        files = [str(SHARED / f"en_ewt-ud-{s}.conllu") for s in ("dev", "test")]
        argv = ["extract", "--treebank", "--protocol", "cv:5", "--lang", "en", "--out",
                str(probing), "--no-progress", *files]  # fmt: skip
        assert main(argv) == 0
        assert main(["pairs", str(probing), "--out", str(pairs)]) == 0
    sides = [s for f in sorted(pairs.glob("*.tsv")) for p in read_pairs(f) for s in (p.good, p.bad)]
    return pairs, sides


def model(work: Path, sides: list[str]) -> Path:
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    out = work / "gpt2-6x384"
    if (out / "config.json").exists():
        return out
    words = sorted({w for s in sides for w in s.split(" ")})
    vocab = {"<|endoftext|>": 0, "[UNK]": 1, **{w: i + 2 for i, w in enumerate(words)}}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    end = "<|endoftext|>"
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=end, eos_token=end,
                                   unk_token="[UNK]")  # fmt: skip
    fast.save_pretrained(out)
    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=len(vocab), n_positions=512, n_embd=384, n_layer=6, n_head=6,
                     bos_token_id=0, eos_token_id=0)  # fmt: skip
    GPT2LMHeadModel(cfg).eval().save_pretrained(out)
    return out


def plain(model_dir: Path, sides: list[str]) -> list[float]:
    """What one writes without xprobe: each side, one forward pass, one at a time."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    lm = AutoModelForCausalLM.from_pretrained(model_dir).eval()
    out = []
    with torch.no_grad():
        for s in sides:
            ids = torch.tensor([[tok.bos_token_id, *tok(s, add_special_tokens=False)["input_ids"]]])
            logp = torch.log_softmax(lm(ids).logits[0, :-1].float(), dim=-1)
            out.append(float(logp.gather(-1, ids[0, 1:, None]).sum()))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    args.work.mkdir(parents=True, exist_ok=True)
    _, sides = build(args.work)
    model_dir = model(args.work, sides)
    from xprobe.pairs.lm import load_lm

    t0 = time.perf_counter()
    lm = load_lm(f"hf:{model_dir}", "causal", "cpu", args.batch_size, cache=None)
    got = lm.score(sides)
    ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    theirs = plain(model_dir, sides)
    naive = time.perf_counter() - t0
    worst = max(abs(a.logprob - b) for a, b in zip(got, theirs, strict=True))
    result = {
        "sides": len(sides), "distinct": len(set(sides)), "forward_sentences": lm.scored,
        "xprobe_s": round(ours, 1), "plain_s": round(naive, 1),
        "xprobe_sides_per_s": round(len(sides) / ours, 1),
        "plain_sides_per_s": round(len(sides) / naive, 1),
        "speedup": round(naive / ours, 2), "max_abs_diff": worst, "threads": args.threads,
    }  # fmt: skip
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0 if worst < 1e-3 else 1


if __name__ == "__main__":
    sys.exit(main())

"""Tiny transformer models built from a config and saved with save_pretrained (test helpers;
the session fixtures ``tiny_bert``/``tiny_st`` in tests/conftest.py use them)."""

from __future__ import annotations

from pathlib import Path

_TEXT = "the a cat cats dog dogs sat sits on mat mats he she did didn n't 't say said hello"
WORDS = [*_TEXT.split(), "house", "houses", "walked", "walks", "today", "yesterday", "big"]
WORDS += ["small", "red", "two", "and", ".", ",", '"', "'", "(", ")"]


def build_tiny_bert(out: Path, seed: int = 0) -> Path:
    """A 2-layer BERT with a word-piece vocabulary of the test words, saved with save_pretrained."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    out.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *dict.fromkeys(WORDS)]
    vocab += ["##s", "##ed", "##ing", "##a", "##e", "##t"]
    (out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = BertTokenizerFast(vocab_file=str(out / "vocab.txt"), do_lower_case=False)
    tok.save_pretrained(out)
    torch.manual_seed(seed)
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=64,
    )
    BertModel(cfg).eval().save_pretrained(out)
    return out


def build_tiny_st(bert_dir: Path, out: Path) -> Path:
    """A sentence-transformers model (Transformer -> mean Pooling -> Normalize) on the tiny BERT."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import modules as models

    t = models.Transformer(str(bert_dir), max_seq_length=48)
    pooling = models.Pooling(t.get_embedding_dimension(), "mean")
    st = SentenceTransformer(modules=[t, pooling, models.Normalize()], device="cpu")
    st.save(str(out))
    return out


def build_tiny_lm(out: Path, sentences: list[str], seed: int = 0, steps: int = 150) -> Path:
    """A 2-layer GPT-2 over a word-level vocabulary of ``sentences``, trained on them for
    ``steps`` Adam steps (seconds on a CPU), saved with save_pretrained; BOS = EOS =
    ``<|endoftext|>``, as GPT-2's."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    for s in sentences:
        for w in s.split(" "):
            counts[w] = counts.get(w, 0) + 1
    words = sorted(counts, key=lambda w: (-counts[w], w))[:3000]
    vocab = {"<|endoftext|>": 0, "[UNK]": 1, **{w: i + 2 for i, w in enumerate(words)}}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|endoftext|>",
                                   eos_token="<|endoftext|>", unk_token="[UNK]",
                                   pad_token="<|endoftext|>")  # fmt: skip
    fast.save_pretrained(out)
    torch.manual_seed(seed)
    cfg = GPT2Config(vocab_size=len(vocab), n_positions=512, n_embd=32, n_layer=2, n_head=2,
                     bos_token_id=0, eos_token_id=0)  # fmt: skip
    model = GPT2LMHeadModel(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    ids = [[0, *fast(s, add_special_tokens=False)["input_ids"][:100]] for s in sentences]
    gen = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        batch = [ids[i] for i in torch.randint(len(ids), (16,), generator=gen).tolist()]
        width = max(map(len, batch))
        x = torch.zeros((len(batch), width), dtype=torch.long)
        labels = torch.full((len(batch), width), -100, dtype=torch.long)
        for r, seq in enumerate(batch):
            x[r, : len(seq)] = torch.tensor(seq)
            labels[r, : len(seq)] = torch.tensor(seq)
        loss = model(input_ids=x, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval().save_pretrained(out)
    return out


def build_tiny_masked_lm(out: Path, seed: int = 0) -> Path:
    """The tiny BERT's vocabulary with a masked-LM head (BertForMaskedLM), untrained: enough to
    check that pseudo-log-likelihood is computed as defined."""
    import torch
    from transformers import BertConfig, BertForMaskedLM

    build_tiny_bert(out, seed)
    torch.manual_seed(seed)
    cfg = BertConfig.from_pretrained(out)
    BertForMaskedLM(cfg).eval().save_pretrained(out)
    return out

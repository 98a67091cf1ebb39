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

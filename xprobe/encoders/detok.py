"""Moses detokenisation: probing sets hold Moses tokens; a subword tokenizer wants plain text.

Probing sentences are written Moses-tokenised (``He did n't say " hello " .``). A pretrained
transformer's tokenizer was trained on running text, so the tokens are joined back per language
with sacremoses' detokenizer (``He didn't say "hello".``) before it sees them. The corpus stage's
fix-ups (:data:`xprobe.corpus.tokenize.FIXUPS`, e.g. ``didn 't`` -> ``did n't``) are undone
first, so the text matches what Moses would detokenise. A language sacremoses has no rules for
uses the English rules, and :attr:`Detokenizer.name` says so (it is part of an encoder's id).

Example::

    >>> Detokenizer("en").detokenize(["He", "did", "n't", "say", '"', "hi", '"', "."])
    'He didn\\'t say "hi".'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xprobe.corpus.tokenize import MOSES_LANGS

__all__ = ["UNFIXUPS", "Detokenizer", "unfix_english_nt"]


def unfix_english_nt(tokens: list[str]) -> list[str]:
    """``['did', "n't"]`` -> ``['didn', "'t"]`` (the inverse of the corpus stage's fix-up)."""
    out: list[str] = []
    for tok in tokens:
        if tok.lower() == "n't" and out:
            out[-1] = out[-1] + tok[0]
            tok = tok[1:]
        out.append(tok)
    return out


UNFIXUPS: dict[str, tuple[Callable[[list[str]], list[str]], ...]] = {"en": (unfix_english_nt,)}


class Detokenizer:
    """sacremoses' detokenizer for ``lang`` (English rules where Moses has none), or none.

    ``lang=None`` joins tokens with spaces (``name`` is ``"none"``).
    """

    def __init__(self, lang: str | None) -> None:
        self.requested = lang
        self.lang = None if lang is None else (lang if lang in MOSES_LANGS else "en")
        self._moses = None
        if self.lang is not None:
            from sacremoses import MosesDetokenizer

            self._moses = MosesDetokenizer(self.lang)
        self._fixups = UNFIXUPS.get(self.lang or "", ())

    @property
    def name(self) -> str:
        """``moses-LANG`` (``moses-en(xx)`` on a fallback), or ``none``."""
        if self.lang is None:
            return "none"
        return f"moses-{self.lang}" + ("" if self.lang == self.requested else f"({self.requested})")

    def detokenize(self, tokens: Sequence[str]) -> str:
        if self._moses is None:
            return " ".join(tokens)
        toks = list(tokens)
        for fix in self._fixups:
            toks = fix(toks)
        return self._moses.detokenize(toks)

"""``profile draft`` finds the quote characters a treebank uses, ``'`` included where it quotes:
a quote-like punctuation token (a quotation mark, an apostrophe, a grave accent by its Unicode
name) that pairs up within sentences is a quote; one that stands alone (an elision, Armenian's
`` ` `` for the but-mark ՝) is not. Hand-made CoNLL-U, each sentence written out below."""

from __future__ import annotations

from pathlib import Path

from xprobe.files import tomllib
from xprobe.profiles.draft import draft_profile


def sentence(tokens: str, feats: str = "Number=Sing|Tense=Past") -> str:
    """A flat sentence: the first word is the root; punctuation by its characters."""
    rows = []
    for i, tok in enumerate(tokens.split(), 1):
        upos = "PUNCT" if not any(ch.isalnum() for ch in tok) else "VERB" if i == 1 else "NOUN"
        head, rel = (0, "root") if i == 1 else (1, "punct" if upos == "PUNCT" else "obj")
        rows.append(f"{i}\t{tok}\t{tok.lower()}\t{upos}\t_\t{feats}\t{head}\t{rel}\t_\t_")
    return "\n".join(rows) + "\n\n"


# Swedish-style quotes with ' (UD Swedish-Talbanken quotes this way), in pairs
PAIRED = ["sa ' ja ' han .", "skrev ' nej ' hon .", "ropade ' hej ' de ."]
# ' standing alone for an elided letter, ` for a mark of its own: never a pair
ALONE = ["ga ' fhios .", "var ' liom .", "gick ` hem .", "kom ` hem ."]
# unambiguous double quotes are quotes wherever they occur, as before
DOUBLE = ["sa « ja » han .", 'sa " nej han .']


def quotes_of(tmp_path: Path, lines: list[str]) -> list[str]:
    path = tmp_path / "t.conllu"
    path.write_text("".join(sentence(t) for t in lines), encoding="utf-8")
    text, _ = draft_profile([str(path)], "xx")
    return tomllib.loads(text)["quotes"]


def test_apostrophe_that_pairs_up_is_a_quote(tmp_path: Path) -> None:
    assert quotes_of(tmp_path, PAIRED + DOUBLE) == ['"', "'", "«", "»"]


def test_apostrophe_and_grave_that_stand_alone_are_not(tmp_path: Path) -> None:
    assert quotes_of(tmp_path, ALONE + DOUBLE) == ['"', "«", "»"]
    # a pair now and then among many lone ones is not enough (a third of its sentences)
    assert quotes_of(tmp_path, ALONE * 3 + PAIRED[:1] + DOUBLE) == ['"', "«", "»"]

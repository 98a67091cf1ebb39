"""Word.feat reads a FEATS column as its split items would, without splitting it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from xprobe.ud import Word


def _by_items(feats: str, name: str) -> str | None:
    """The reference: the first ``|``-separated item that starts with ``name=``."""
    if feats == "_":
        return None
    for item in feats.split("|"):
        if item.startswith(name + "="):
            return item[len(name) + 1 :]
    return None


def _word(feats: str) -> Word:
    return Word(1, "x", "x", "NOUN", "_", feats, 0, "root")


_PART = st.sampled_from(["Tense", "Mood", "Number", "Num", "ber", "=", "|", "Past", "Pres", "a"])
_FEATS = st.lists(_PART, min_size=1, max_size=8).map("".join)


@given(_FEATS, st.sampled_from(["Tense", "Mood", "Number", "Num", "ber", "", "a"]))
def test_feat_is_the_first_matching_item(feats: str, name: str) -> None:
    assert _word(feats).feat(name) == _by_items(feats, name)


def test_feat_examples() -> None:
    w = _word("Mood=Ind|Number=Sing|Tense=Past|VerbForm=Fin")
    assert (w.feat("Mood"), w.feat("Tense"), w.feat("VerbForm")) == ("Ind", "Past", "Fin")
    assert w.feat("Form") is None and w.feat("Person") is None
    assert _word("NumType=Card|Number=Plur").feat("Number") == "Plur"
    assert _word("Number=Sing|Number=Plur").feat("Number") == "Sing"
    assert _word("_").feat("Number") is None
    assert _word("Mood=Cnd,Pot").feat("Mood") == "Cnd,Pot"
    assert _word("Tense=").feat("Tense") == ""

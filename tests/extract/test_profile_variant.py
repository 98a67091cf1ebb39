"""Issue 23: a profile that is a variant of a language (``languages/en_US.toml``: English with
small-corpus settings) records its language (``en``) and its variant (``en_US``) separately, so
probing records and the report see English, the default reference language."""

from __future__ import annotations

import json
from pathlib import Path

from tests.extract.handmade import short_and_long
from xprobe.cli import main
from xprobe.languages import load_profile
from xprobe.probe.datasets import dir_language


def fixture(tmp_path: Path) -> Path:
    return short_and_long(tmp_path / "v.conllu")


def test_variant_profile_records_language_and_variant() -> None:
    p = load_profile("en_US")
    assert (p.code, p.variant) == ("en", "en_US")
    assert load_profile("en").variant == ""


def test_extract_with_a_variant_records_its_language(tmp_path: Path) -> None:
    out = tmp_path / "probing"
    argv = ["extract", "--lang", "en_US", "--out", str(out), "--sizes", "4,2,2", "--tasks",
            "SentLen", "--param", "sentence_length.bins=5,13", "--no-progress"]  # fmt: skip
    assert main([*argv, str(fixture(tmp_path))]) == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["language"] == "en" and manifest["variant"] == "en_US"
    assert dir_language(out) == "en"  # what probe records, and report compares with "en"

"""Lexical keys are assigned to splits case-folded: "People"/"people" and "Is"/"is" are one key
(TASKS.md, common rules; Conneau et al.: no target form occurs across the splits)."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from tests.extract.test_extract import write_corpus
from xprobe.extract.pipeline import ExtractConfig, check_probing_dir, extract
from xprobe.extract.pools import SplitPicker
from xprobe.tasks.base import Candidate, TaskSpec, Variant


def test_split_picker_folds_case() -> None:
    picker = SplitPicker((80, 10, 10), 7, ("en", "past_present", "key-split"))
    words = [f"word{i}" for i in range(300)] + ["people", "is", "straße", "éclair", "мир"]
    for w in words:
        split = picker.of_key(w)
        for variant in (w.upper(), w.title(), w.capitalize()):
            assert picker.of_key(variant) == split, (w, variant)
    assert picker.of_key("STRASSE") == picker.of_key("straße")  # full case folding
    # still in proportion to the sizes
    counts = [0, 0, 0]
    for w in words:
        counts[picker.of_key(w)] += 1
    assert counts[0] > 200 and counts[1] > 10 and counts[2] > 10


@dataclass(frozen=True)
class NoParams:
    pass


def _cased_key(s, ctx, rng):
    """Key: the first token, written upper-case in every other sentence (as "Is"/"is")."""
    first = s.tokens[0]
    key = first.upper() if len(s.tokens) % 2 else first
    return Candidate((Variant("hi" if int(first[1:]) >= 150 else "lo", s.tokens, key=key),))


CASED = TaskSpec("Cased", "cased", ("hi", "lo"), NoParams, _cased_key)


def test_case_variants_of_a_key_share_one_split(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c.conllu", 1500)
    cfg = ExtractConfig(
        lang="en", out=tmp_path / "out", inputs=[str(corpus)], tasks=[CASED], sizes=(60, 12, 12),
        provenance=True, progress=False,
    )  # fmt: skip
    m = extract(cfg)
    entry = m["tasks"]["cased"]
    splits: dict[str, set[str]] = defaultdict(set)
    forms: dict[str, set[str]] = defaultdict(set)
    for line in (cfg.out / entry["provenance"]).read_text(encoding="utf-8").splitlines():
        split, _, _, _, _, key = line.split("\t")
        splits[key.casefold()].add(split)
        forms[key.casefold()].add(key)
    assert sum(len(f) > 1 for f in forms.values()) >= 5  # both spellings were written
    leaks = {k: s for k, s in splits.items() if len(s) > 1}
    assert not leaks
    assert check_probing_dir(cfg.out) == []

    # the checker compares keys case-folded too
    manifest_path = cfg.out / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    keys = manifest["tasks"]["cased"]["keys"]
    keys["tr"].append("Zebra")
    keys["te"].append("zebra")
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    problems = check_probing_dir(cfg.out)
    assert any("ebra'" in p and " tr" in p and " te" in p for p in problems), problems


# Turkish capitals: "İ".casefold() is "i" + U+0307 (combining dot) and "I".casefold() is "i",
# while lower-case Turkish writes "i" and dotless "ı": a sentence-initial "İnsanlar" is the
# "insanlar" of mid-sentence, "Irmak" the "ırmak".
TURKISH = [("insanlar", "İnsanlar"), ("insanlar", "İNSANLAR"), ("ırmak", "Irmak"),
           ("ılık", "ILIK"), ("iyi", "İyi"), ("bilgi", "BİLGİ")]  # fmt: skip


def test_turkish_dotted_and_dotless_capitals_share_one_split() -> None:
    picker = SplitPicker((80, 10, 10), 7, ("tr", "past_present", "key-split"))
    for lower, upper in TURKISH:
        assert picker.of_key(upper) == picker.of_key(lower), (lower, upper)
    for seed in range(20):  # not one lucky seed: with three splits most pairs would differ
        p = SplitPicker((34, 33, 33), seed, ("tr", "subj_number", "key-split"))
        assert p.of_key("İnsanlar") == p.of_key("insanlar")


def test_checker_sees_a_turkish_key_in_two_splits(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c.conllu", 1500)
    cfg = ExtractConfig(
        lang="en", out=tmp_path / "out", inputs=[str(corpus)], tasks=[CASED], sizes=(60, 12, 12),
        provenance=True, progress=False,
    )  # fmt: skip
    extract(cfg)
    manifest_path = cfg.out / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    keys = manifest["tasks"]["cased"]["keys"]
    keys["tr"].append("insanlar")
    keys["va"].append("İnsanlar")
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
    problems = check_probing_dir(cfg.out)
    assert any("nsanlar'" in p and " tr" in p and " va" in p for p in problems), problems

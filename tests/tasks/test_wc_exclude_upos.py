"""WC's ``exclude_upos`` (docs/tasks.md, WC): a type that the corpus tags with one of these UPOS
more often than with any other is never a target. Default ``()``: SentEval's rule as before.

UD Vietnamese-VTB writes brackets as the letters ``LBKT`` and ``RBKT`` (tagged PUNCT): they are
alphabetic, rank within the ud study's band (101..) and, as every sentence holding one holds the
other, no sentence has exactly one target among them, so balancing WC empties it. Ranks are
still counted over the whole vocabulary; the excluded type is skipped as a number is.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.extract.test_extract_gold import _check_line
from xprobe.extract.check import check_probing_dir
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.languages import load_profile
from xprobe.protocol import cv_shortfall
from xprobe.tasks import Context, CorpusStats, get_task, resolve_params
from xprobe.ud import read_conllu

FORMS = Counter({"the": 9, "LBKT": 5, "lbkt": 1, "house": 5, "RBKT": 4, "garden": 3, "tree": 2})
UPOS = {
    "the": Counter({"DET": 9}),
    "LBKT": Counter({"PUNCT": 5}),
    "lbkt": Counter({"NOUN": 1}),
    "house": Counter({"NOUN": 4, "PUNCT": 1}),
    "RBKT": Counter({"PUNCT": 4}),
    "garden": Counter({"NOUN": 3}),
    "tree": Counter({"NOUN": 2}),
}


def _targets(**overrides: object) -> tuple[str, ...]:
    spec = get_task("WC")
    profile = load_profile("en")
    stats = CorpusStats(forms=FORMS, upos=UPOS)
    params = resolve_params(spec, profile, {"first_rank": 2, "count": 3, **overrides})
    ctx = Context(profile, params, stats)
    return spec.prepare(dataclasses.replace(ctx)).labels


def test_default_keeps_sentevals_rule() -> None:
    assert _targets() == ("lbkt", "house", "rbkt")  # ranks 2, 3, 4 (the: 1)


def test_excluded_upos_are_skipped_and_ranks_still_count_them() -> None:
    # lbkt: 5 PUNCT + 1 NOUN over its case variants; house: NOUN more often than PUNCT
    assert _targets(exclude_upos="PUNCT,SYM") == ("house", "garden", "tree")
    assert _targets(exclude_upos="PUNCT", first_rank=4) == ("garden", "tree")  # rbkt: rank 4


def test_vietnamese_wc_fills_without_its_bracket_words(tmp_path: Path) -> None:
    """VTB dev+test with the ud study's band (10 words from rank 101): 4 lines before (two of
    the targets are LBKT and RBKT), above the cross-validation floor without them; every line
    agrees with gold."""
    names = ["vi_vtb-ud-dev.conllu", "vi_vtb-ud-test.conllu"]
    paths = [str(shared_path("data", "ud", "vi", name)) for name in names]
    wc = {"first_rank": 101, "count": 10, "exclude_upos": "PUNCT,SYM"}
    m = extract(ExtractConfig(
        lang="vi", out=tmp_path, inputs=paths, tasks=["WC"], treebank=True, min_test=1,
        allow_partial=True, provenance=True, progress=False, params={"word_content": wc},
    ))  # fmt: skip
    assert check_probing_dir(tmp_path) == []
    entry = m["tasks"]["word_content"]
    assert not {"lbkt", "rbkt"} & set(entry["labels"]) and len(entry["labels"]) == 10
    sources = {(p, s.line): s for p in paths for s in read_conllu(p)}
    rows = (tmp_path / "word_content.txt").read_text(encoding="utf-8").splitlines()
    prov = (tmp_path / "word_content.provenance.tsv").read_text(encoding="utf-8").splitlines()
    per: Counter[str] = Counter()
    for row, p in zip(rows, prov, strict=True):
        _, label, text = row.split("\t")
        _, _, source, line, _, _ = p.split("\t")
        _check_line("word_content", label, text, sources[(source, int(line))], load_profile("vi"))
        per[label] += 1
    assert cv_shortfall(dict(per), 10) is None, per


@pytest.mark.parametrize("bad", ["punct", "NOUN,XYZ"])
def test_unknown_upos_is_a_clear_error(bad: str) -> None:
    from xprobe.errors import XProbeError

    with pytest.raises(XProbeError, match="WC"):
        _targets(exclude_upos=bad)

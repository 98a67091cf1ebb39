"""CoordInv's ``balance`` (docs/tasks.md, CoordInv): ``"thirds"`` (the default: each class split
in thirds by first clause longer / equal / shorter than the second) or ``"halves"`` (a sentence
whose clauses are equally long is not used; each class split in halves, longer / shorter).

Either way the relative length of the two clauses as a reader sees them does not predict the
label: an ``I`` line of a "longer" sentence shows the shorter clause first, so with as many
"longer" as "shorter" sentences in each class, ``O`` and ``I`` lines show each order equally
often. Equal clauses are rare (UD English-EWT: 56 of 700 candidates; German GSD dev+test: 6 of
47), so thirds keep 3 x the rarest stratum; halves keep 2 x the rarer of the other two.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.extract.test_extract_gold import _check_line
from xprobe.errors import XProbeError
from xprobe.extract.check import check_probing_dir
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.languages import load_profile
from xprobe.tasks import Context, CorpusStats, get_task, resolve_params
from xprobe.ud import Sentence, parse_conllu, read_conllu

MIRROR = {"longer": "shorter", "shorter": "longer", "equal": "equal"}


def _conllu(words: list[tuple[str, str, int, str]]) -> Sentence:
    rows = [
        f"{i}\t{form}\t{form.lower()}\t{upos}\t_\t_\t{head}\t{rel}\t_\t_"
        for i, (form, upos, head, rel) in enumerate(words, 1)
    ]
    return next(parse_conllu("\n".join(rows) + "\n\n"))


# "The cat slept , and the dog barked ." : clauses of 3 and 3 tokens (equal)
EQUAL = _conllu([
    ("The", "DET", 2, "det"), ("cat", "NOUN", 3, "nsubj"), ("slept", "VERB", 0, "root"),
    (",", "PUNCT", 8, "punct"), ("and", "CCONJ", 8, "cc"), ("the", "DET", 7, "det"),
    ("dog", "NOUN", 8, "nsubj"), ("barked", "VERB", 3, "conj"), (".", "PUNCT", 3, "punct"),
])  # fmt: skip
# "The old cat slept and the dog barked ." : 4 tokens against 3 (longer)
LONGER = _conllu([
    ("The", "DET", 3, "det"), ("old", "ADJ", 3, "amod"), ("cat", "NOUN", 4, "nsubj"),
    ("slept", "VERB", 0, "root"), ("and", "CCONJ", 8, "cc"), ("the", "DET", 7, "det"),
    ("dog", "NOUN", 8, "nsubj"), ("barked", "VERB", 4, "conj"), (".", "PUNCT", 4, "punct"),
])  # fmt: skip


def _ctx(**overrides: object) -> Context:
    spec = get_task("CoordInv")
    profile = load_profile("en")
    ctx = Context(profile, resolve_params(spec, profile, overrides), CorpusStats())
    return dataclasses.replace(ctx, data=spec.prepare(ctx))


def _stratum(s: Sentence, **overrides: object) -> str | None:
    c = get_task("CoordInv").candidate(s, _ctx(**overrides), random.Random(0))
    return None if c is None else c.stratum


def test_thirds_by_default() -> None:
    spec = get_task("CoordInv")
    assert spec.strata_of(_ctx().params) == ("longer", "equal", "shorter") == spec.strata
    assert (_stratum(EQUAL), _stratum(LONGER)) == ("equal", "longer")


def test_halves_drop_equal_clauses() -> None:
    ctx = _ctx(balance="halves")
    assert get_task("CoordInv").strata_of(ctx.params) == ("longer", "shorter")
    assert _stratum(EQUAL, balance="halves") is None
    assert _stratum(LONGER, balance="halves") == "longer"


def test_unknown_balance_is_a_clear_error() -> None:
    with pytest.raises(XProbeError, match=r"CoordInv.*balance"):
        _ctx(balance="quarters")


def _lines(out: Path, paths: list[str]) -> list[tuple[str, str, str, Sentence]]:
    sources = {(p, s.line): s for p in paths for s in read_conllu(p)}
    rows = (out / "coordination_inversion.txt").read_text(encoding="utf-8").splitlines()
    prov = (out / "coordination_inversion.provenance.tsv").read_text("utf-8").splitlines()
    got = []
    for row, p in zip(rows, prov, strict=True):
        split, label, text = row.split("\t")
        _, _, source, line, _, _ = p.split("\t")
        got.append((split, label, text, sources[(source, int(line))]))
    return got


@pytest.mark.slow
def test_halves_on_english_ewt_agree_with_gold_and_hide_clause_order(tmp_path: Path) -> None:
    """UD English-EWT (train, dev, test): 168 balanced lines in thirds, more than three times as
    many in halves; every line agrees with gold, and in every split each class shows the longer
    clause first as often as the other class does."""
    names = ["en_ewt-ud-train.conllu", "en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu"]
    paths = [str(shared_path("data", "ud", "en", name)) for name in names]
    counts = {}
    for balance in ("thirds", "halves"):
        out = tmp_path / balance
        m = extract(ExtractConfig(
            lang="en", out=out, inputs=paths, tasks=["CoordInv"], treebank=True, min_test=1,
            provenance=True, progress=False,
            params={"coordination_inversion": {"balance": balance}},
        ))  # fmt: skip
        assert check_probing_dir(out) == []
        counts[balance] = m["tasks"]["coordination_inversion"]["lines"]
    assert counts["halves"] > 3 * counts["thirds"] >= 3 * 97
    entry = m["tasks"]["coordination_inversion"]
    assert entry["strata_declared"] == ["longer", "shorter"]
    profile = load_profile("en")
    seen: Counter[tuple[str, str, str]] = Counter()
    for split, label, text, s in _lines(tmp_path / "halves", paths):
        _check_line("coordination_inversion", label, text, s, profile)
        stratum = _stratum(s, balance="halves")
        assert stratum in ("longer", "shorter"), text
        seen[(split, label, stratum if label == "O" else MIRROR[stratum])] += 1  # as written
    for split in ("tr", "va", "te"):
        for shown in ("longer", "shorter"):
            o, i = seen[(split, "O", shown)], seen[(split, "I", shown)]
            assert abs(o - i) <= 1, (split, shown, o, i)

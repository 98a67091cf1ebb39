"""Every fold of every task extracted from gold treebanks keeps the splits' rules: no source
sentence, no text and no lexical key (case-folded, as the splits compare keys) on both the test
side and the training or validation side of any rotation. The folders are what ``xprobe
extract --treebank --provenance`` writes (the ud study's settings); keys and sources are read
from the provenance files it writes beside them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import shared_path
from xprobe.cli import main
from xprobe.files import tomllib
from xprobe.probe.crossval import plan
from xprobe.probe.datasets import load_probing_dir
from xprobe.study import STUDIES_DIR
from xprobe.tasks.base import fold_key

LANGS = ("en", "wo", "el")  # a train split (en, el), keyed tasks everywhere, a drafted-size one


def _params() -> list[str]:
    study = tomllib.loads((STUDIES_DIR / "ud.toml").read_text("utf-8"))["study"]
    return [a for task, values in study["params"].items() for k, v in values.items()
            for a in ("--param", f"{task}.{k}={v}")]  # fmt: skip


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    src = shared_path("data", "ud")
    out = {}
    for code in LANGS:
        d = tmp_path_factory.mktemp(code)
        files = sorted(str(p) for p in (src / code).glob("*-ud-*.conllu"))
        argv = ["extract", "--lang", code, "--out", str(d), "--treebank", "--min-test", "1",
                "--provenance", "--allow-partial", "--seed", "1111", *_params(),
                *files]  # fmt: skip
        assert main(argv) == 0
        out[code] = d
    return out


def _provenance(source: str) -> list[tuple[str, str, str]]:
    """(source file, line, key) of every line of a task file, in file order."""
    prov = Path(source).with_name(Path(source).name.split(".")[0] + ".provenance.tsv")
    rows = [x.split("\t") for x in prov.read_text("utf-8").splitlines() if x]
    return [(r[2], r[3], r[5]) for r in rows]


@pytest.mark.parametrize("code", LANGS)
def test_no_fold_puts_a_sentence_or_key_on_both_sides(folders: dict[str, Path], code: str) -> None:
    checked = 0
    for ps in load_probing_dir(folders[code]):
        n = sum(ps.size(s) for s in ("tr", "va", "te"))
        if n < 97:
            continue
        cv = plan(ps, 10)
        prov = _provenance(ps.source)
        assert len(prov) == cv.n
        texts = [t for s in ("tr", "va", "te") for t in ps.tokens[s]]
        of = {
            "source sentence": [p[:2] for p in prov],
            "text": texts,
            "key": [fold_key(p[2]) if p[2] != "_" else None for p in prov],
        }
        for r in range(cv.k):
            tr, va, te = cv.rows(r)
            for what, values in of.items():
                test_side = {values[i] for i in te} - {None}
                train_side = {values[i] for i in (*tr, *va)} - {None}
                both = test_side & train_side
                assert not both, f"{code} {ps.task} fold {r}: {what} {sorted(both)[:3]}"
            assert sorted([*tr, *va, *te]) == list(range(cv.n))
        checked += 1
    assert checked >= 4, f"{code}: only {checked} tasks reach the floor"

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
from xprobe.protocol import parse_protocol
from xprobe.study import STUDIES_DIR
from xprobe.study.language import param_text
from xprobe.tasks.base import fold_key

LANGS = ("en", "wo", "el")  # a train split (en, el), keyed tasks everywhere, a drafted-size one


def _study() -> tuple[list[str], int]:
    """The ud study's extract parameters (as its steps pass them) and its fold count."""
    data = tomllib.loads((STUDIES_DIR / "ud.toml").read_text("utf-8"))
    params = [a for task, values in data["study"]["params"].items() for k, v in values.items()
              for a in ("--param", f"{task}.{k}={param_text(v)}")]  # fmt: skip
    return params, int(parse_protocol(data["treebanks"]["protocol"]).folds or 10)


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    src = shared_path("data", "ud")
    out = {}
    for code in LANGS:
        d = tmp_path_factory.mktemp(code)
        files = sorted(str(p) for p in (src / code).glob("*-ud-*.conllu"))
        params, k = _study()
        argv = ["extract", "--lang", code, "--out", str(d), "--treebank", "--protocol",
                f"cv:{k}", "--allow-partial", "--seed", "1111", *params, *files]  # fmt: skip
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
    assert folds_keep_rules(folders[code], _study()[1]) >= 4, f"{code}: fewer than 4 tasks"


def folds_keep_rules(folder: Path, k: int) -> int:
    """Check every rotation of every task of ``folder`` (an extract with provenance) under
    cv:k: no source sentence, text or case-folded key on both the test side and the training
    or validation side, every line tested once. Returns the tasks checked."""
    checked = 0
    for ps in load_probing_dir(folder):
        cv = plan(ps, k)
        prov = _provenance(ps.source)
        assert len(prov) == cv.n
        texts = [t for s in ("tr", "va", "te") for t in ps.tokens[s]]
        of = {
            "source sentence": [p[:2] for p in prov],
            "text": texts,
            "key": [fold_key(p[2]) if p[2] != "_" else None for p in prov],
        }
        tested = []
        for r in range(cv.k):
            tr, va, te = cv.rows(r)
            for what, values in of.items():
                test_side = {values[i] for i in te} - {None}
                train_side = {values[i] for i in (*tr, *va)} - {None}
                both = test_side & train_side
                assert not both, f"{folder} {ps.task} fold {r}: {what} {sorted(both)[:3]}"
            assert sorted([*tr, *va, *te]) == list(range(cv.n))
            tested.extend(te.tolist())
        assert sorted(tested) == list(range(cv.n))
        checked += 1
    return checked

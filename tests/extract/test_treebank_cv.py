"""Issue 38, treebank mode under ``--protocol cv:K``: every line of a task file is scored once
(the probe pools tr+va+te into K folds), so no ``--min-test`` floor: a task keeps every balanced
line its ratio fit takes and is n/a (kind ``corpus``) exactly when
:func:`xprobe.protocol.cv_shortfall` says so, its reason in numbers (the candidates, the
balanced lines, the floor), never naming ``--min-test``. Provenance is always written (the
folds read its keys), and the manifest records the protocol and the floor.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.extract.test_treebank_mode import PARAMS, corpus, rows, run
from xprobe.cli import main
from xprobe.extract.check import check_probing_dir
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.protocol import min_items


def test_150_lines_na_under_min_test_but_written_under_cv(tmp_path: Path) -> None:
    """150 balanced lines: 120/15/15; under tr/va/te the 100-line test floor needs 400 lines
    (n/a), under cv:10 all 150 are written at the ratio, every line scored once."""
    src = corpus(tmp_path / "c.conllu", 150)
    _, fixed = run(tmp_path, src, "fixed", tasks=("SentLen",))
    assert fixed["tasks"]["sentence_length"]["applicable"] is False
    out, m = run(tmp_path, src, "cv", tasks=("SentLen",), protocol="cv:10")
    entry = m["tasks"]["sentence_length"]
    assert entry.get("applicable", True) is not False, entry
    assert entry["sizes"] == {"tr": 120, "va": 15, "te": 15}
    assert len(rows(out, "sentence_length")) == 150
    tb = m["treebank"]
    assert tb["protocol"] == "cv:10" and "min_test" not in tb
    assert tb["floor"] == {"lines": min_items(), "per_class": 10, "max_half_width": 0.1}
    warnings: list[str] = []
    assert check_probing_dir(out, warnings) == [] and warnings == [], warnings


def test_below_the_cv_floor_is_na_with_the_numbers(tmp_path: Path, capsys) -> None:
    """90 balanced lines: fewer than the 97 a cv:10 cell needs: n/a of kind corpus, the reason
    naming the candidates, the balanced lines and what would fill it; never --min-test."""
    src = corpus(tmp_path / "c.conllu", 90)
    out = tmp_path / "out"
    argv = ["extract", "--lang", "en", "--out", str(out), "--treebank", "--protocol", "cv:10",
            "--tasks", "SentLen", "--param", "sentence_length.bins=5,13", "--no-progress",
            str(src)]  # fmt: skip
    assert main(argv) == 0
    m = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    entry = m["tasks"]["sentence_length"]
    assert entry["applicable"] is False and entry["kind"] == "corpus", entry
    reason = entry["reason"]
    assert "90 candidates give 90 balanced lines (72/9/9 at 80/10/10)" in reason, reason
    assert "needs 97 balanced lines for cv:10" in reason and "90 found" in reason, reason
    assert "min-test" not in reason and "min_test" not in reason, reason
    assert not (out / "sentence_length.txt").exists()
    assert main(["extract", "--check", str(out)]) == 0


def _unasked(out: Path, src: Path) -> dict:
    """cv:10 with provenance not asked for."""
    config = ExtractConfig(
        lang="en", out=out, inputs=[str(src)], tasks=["SentLen", "SubjNum"], treebank=True,
        params=PARAMS, windows="absolute", progress=False, protocol="cv:10",
    )  # fmt: skip
    return extract(config)


def test_cv_implies_provenance_and_same_bytes(tmp_path: Path) -> None:
    src = corpus(tmp_path / "c.conllu", 300, long=5)
    a, b = tmp_path / "a", tmp_path / "b"
    ma, mb = _unasked(a, src), _unasked(b, src)
    names = sorted(p.name for p in a.iterdir())
    assert "subj_number.provenance.tsv" in names and "sentence_length.provenance.tsv" in names
    assert names == sorted(p.name for p in b.iterdir())
    for name in names:
        if name != "manifest.json":
            assert (a / name).read_bytes() == (b / name).read_bytes(), name
    ma.pop("inputs"), mb.pop("inputs")
    assert json.dumps(ma, sort_keys=True).replace(str(a), "") == json.dumps(
        mb, sort_keys=True
    ).replace(str(b), "")


def test_check_says_what_cv_scores_not_the_small_test_split(tmp_path: Path, capsys) -> None:
    """A cv folder whose test splits hold 30 lines: no small-test warning (the test split is
    not what is scored); the check says every line is scored."""
    out, m = run(tmp_path, corpus(tmp_path / "c.conllu", 300), tasks=("SentLen",), protocol="cv")
    assert m["treebank"]["protocol"] == "cv:10" and "warnings" not in m
    assert m["tasks"]["sentence_length"]["sizes"]["te"] == 30
    capsys.readouterr()
    assert main(["extract", "--check", str(out)]) == 0
    printed = capsys.readouterr()
    text = printed.out + printed.err
    assert "below a useful size" not in text and "noise" not in text, text
    assert "cv:10" in text and "300 lines" in text, text


def test_cv_without_treebank_and_min_test_under_cv_are_one_line(tmp_path: Path, capsys) -> None:
    src = corpus(tmp_path / "c.conllu", 20)
    base = ["extract", "--lang", "en", "--out", str(tmp_path / "o"), "--protocol", "cv:10"]
    assert main([*base, str(src)]) == 2
    assert "--treebank" in capsys.readouterr().err
    assert main([*base, "--treebank", "--min-test", "50", str(src)]) == 2
    err = capsys.readouterr().err
    assert "--min-test" in err and "Traceback" not in err
    assert main([*base, "--treebank", "--protocol", "cv:1", str(src)]) == 2
    assert "cv:K" in capsys.readouterr().err

"""Every line extract logs names its language (issue 41: in a many-language study about 120
warnings such as "coordination_inversion: not applicable to this corpus: ..." never said whose)."""

from __future__ import annotations

import logging
from pathlib import Path

from tests.extract.test_treebank_cv import corpus
from xprobe.cli import main
from xprobe.extract.named_logs import naming_language


def test_a_line_logged_meanwhile_names_the_language(caplog) -> None:
    log = logging.getLogger("xprobe.extract.pipeline")
    with caplog.at_level(logging.INFO, logger="xprobe"), naming_language("ta"):
        log.warning("%s: not applicable to this corpus: %s", "odd_man_out", "too small")
    log.warning("after: %s", "no language")
    assert [r.getMessage() for r in caplog.records] == [
        "ta: odd_man_out: not applicable to this corpus: too small",
        "after: no language",
    ]


def test_extract_names_the_language_in_every_line(tmp_path: Path, capsys) -> None:
    src = corpus(tmp_path / "c.conllu", 90)
    argv = ["extract", "--lang", "en", "--out", str(tmp_path / "out"), "--treebank",
            "--protocol", "cv:10", "--tasks", "SentLen", "--param", "sentence_length.bins=5,13",
            "--no-progress", str(src)]  # fmt: skip
    assert main(argv) == 0
    err = capsys.readouterr().err.splitlines()
    lines = [x.split(": ", 1)[1] for x in err if " xprobe.extract." in x.split(": ", 1)[0]]
    assert any("not applicable to this corpus" in x for x in lines), lines
    assert lines and all(x.startswith("en: ") for x in lines), lines

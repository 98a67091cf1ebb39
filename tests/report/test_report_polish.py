"""Report polish (issue 23): Table 1 in percent, no empty stability headings, a task left out of
a relative figure is named."""

from __future__ import annotations

import csv
import re

from tests.report.test_report_mixing import _rec
from xprobe.report.build import write_report


def _section(text: str, heading: str) -> str:
    """The report's first section whose heading holds ``heading`` (up to the next ``## ``)."""
    start = next(m.start() for m in re.finditer("^## .*$", text, re.M) if heading in m.group())
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_table1_gives_percent_like_every_other_table(tmp_path):
    recs = [_rec("a", "en", "WC", 0.30), _rec("b", "en", "WC", 0.50),
            _rec("a", "de", "WC", 0.20), _rec("b", "de", "WC", 0.40)]  # fmt: skip
    write_report(recs, tmp_path)
    rows = list(csv.reader(open(tmp_path / "table1_xprobe_mlp.csv")))
    assert rows[0][:3] == ["task", "mean (%)", "std (points)"]
    assert rows[1][:4] == ["WC", "35.0", "11.2", "4"]  # mean .35, std .1118 over 4 cells


def test_stability_prints_only_sections_with_scores(tmp_path):
    recs = []
    for clf in ("lr", "mlp"):
        for size in (100, 1000):
            for i, enc in enumerate("abcd"):
                recs.append(_rec(enc, "en", "WC", 0.5 + 0.1 * i, clf=clf, max_train=size))
            recs.append(_rec("a", "de", "WC", 0.4, clf=clf, max_train=size))  # 1 encoder only
    write_report(recs, tmp_path)
    text = (tmp_path / "stability.md").read_text(encoding="utf-8")
    assert "## xprobe / en" in text and "| lr | 100 |" in text
    assert "## xprobe / de" not in text and "No stability scores" not in text
    assert "xprobe / de" in text  # named once, on the line of studies without scores


def test_no_stability_section_when_no_language_has_scores(tmp_path):
    recs = [_rec("a", lang, "WC", 0.4, clf=clf, max_train=size) for lang in ("en", "de")
            for clf in ("lr", "mlp") for size in (100, 1000)]  # fmt: skip
    paths = write_report(recs, tmp_path)
    assert "stability.md" not in {p.name for p in paths}
    assert "No stability scores" not in (tmp_path / "report.md").read_text(encoding="utf-8")


def test_task_missing_in_the_reference_is_named_in_the_relative_section(tmp_path):
    # X-Probe's English TreeDepth is not scored (te = va): the de cell has no en counterpart
    recs = [_rec("bov", lang, task, 0.5) for lang in ("en", "de") for task in ("SentLen", "WC")]
    recs.append(_rec("bov", "de", "TreeDepth", 0.3))
    write_report(recs, tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    rel = _section(text, "relative to en")
    assert "TreeDepth" in rel and "no en result" in rel

"""A probing folder whose manifest marks every task n/a (a treebank too small for any task, as
UD Tamil's 200 sentences at --min-test 100 in studies/ud.toml)."""

from __future__ import annotations

import json
from pathlib import Path

from xprobe.probe.harness import ProbeOptions, run_probe


def test_a_folder_whose_every_task_is_na_gives_na_records_not_an_error(tmp_path: Path) -> None:
    """A treebank too small for every task (UD Tamil at --min-test 100): each task n/a, no task
    file; the probe records every one as n/a instead of failing on a folder without files."""
    d = tmp_path / "ud" / "ta"
    d.mkdir(parents=True)
    tasks = {f: {"task": n, "applicable": False, "reason": f"{n}: test would hold 3 lines",
                 "decided_by": "extract", "file": None, "lines": 0}
             for f, n in (("sentence_length", "SentLen"), ("bigram_shift", "BShift"))}  # fmt: skip
    (d / "manifest.json").write_text(json.dumps({"language": "ta", "tasks": tasks}))
    recs = run_probe(None, d, tmp_path / "r.jsonl", ProbeOptions(classifiers=("majority",)))
    assert sorted((r["task"], r["not_applicable"]) for r in recs) == [
        ("BShift", "BShift: test would hold 3 lines"),
        ("SentLen", "SentLen: test would hold 3 lines"),
    ]
    assert all("value" not in r for r in recs)

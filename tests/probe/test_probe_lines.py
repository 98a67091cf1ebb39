"""A layer-wise encoder encodes each distinct line of a probing folder once, for every task
and layer (xprobe.probe.lines): one encoder call, one cache entry per layer holding the distinct
lines, the same vector for a line in every task, the same records on a rerun."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from tests.probe.test_probe_layers import make_probing_dir, opts
from xprobe.probe.datasets import load_probing_dir
from xprobe.probe.harness import run_probe
from xprobe.probe.lines import DistinctLines


def two_tasks(root: Path) -> Path:
    """Tense and a second task over the same sentences (repeats inside a split too)."""
    d = make_probing_dir(root)
    lines = (d / "past_present.txt").read_text(encoding="utf-8").splitlines()
    other = [f"{s}\t{'A' if i % 3 else 'B'}\t{t}" for i, (s, _, t) in
             enumerate(x.split("\t") for x in lines)]  # fmt: skip
    (d / "other_task.txt").write_text("\n".join(other) + "\n", encoding="utf-8")
    return d


def test_distinct_lines_rows() -> None:
    class PS:
        def __init__(self) -> None:
            self.tokens = {"tr": [("a", "b"), ("c",), ("a", "b")], "va": [("d",)], "te": [("c",)]}

    lines = DistinctLines.of([PS(), PS()])
    assert lines.lines == [("a", "b"), ("c",), ("d",)] and lines.total == 10
    assert lines.rows([["d"], ["a", "b"], ["c"]]).tolist() == [2, 0, 1]


def test_each_distinct_line_is_encoded_once(tiny_bert: Path, tmp_path: Path) -> None:
    from xprobe.encoders.transformer import load_transformer

    data = two_tasks(tmp_path)
    sets = load_probing_dir(data, language="en")
    distinct = len(DistinctLines.of(sets))
    assert distinct < sum(ps.size(s) for ps in sets for s in ("tr", "va", "te")) / 2
    enc = load_transformer(f"hf:{tiny_bert}", device="cpu", batch_size=16)
    rows: list[int] = []
    real = enc.encode_layers

    def counted(sentences, *a, **kw):
        rows.append(len(sentences))
        return real(sentences, *a, **kw)

    enc.encode_layers = counted
    recs = run_probe(enc, data, tmp_path / "r.jsonl", opts(tmp_path))
    assert rows == [distinct]  # one call: every distinct line, every layer
    assert {r["task"] for r in recs} == {"Tense", "other_task"}
    entries = sorted((tmp_path / "cache").rglob("*.npy"))
    assert len(entries) == 3  # one per layer
    assert all(np.load(p).shape[0] == distinct for p in entries)
    # a rerun into a fresh results file reads the cache and writes the same records
    again = run_probe(enc, data, tmp_path / "r2.jsonl", opts(tmp_path))
    assert rows == [distinct]
    assert (tmp_path / "r.jsonl").read_bytes() == (tmp_path / "r2.jsonl").read_bytes()
    assert len(again) == len(recs)


def test_same_records_from_a_fresh_cache(tiny_bert: Path, tmp_path: Path) -> None:
    data = two_tasks(tmp_path)
    a = run_probe(f"hf:{tiny_bert}", data, tmp_path / "a.jsonl", opts(tmp_path))
    shutil.rmtree(tmp_path / "cache")
    b = run_probe(f"hf:{tiny_bert}", data, tmp_path / "b.jsonl", opts(tmp_path))
    assert [r["value"] for r in a] == [r["value"] for r in b]
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()

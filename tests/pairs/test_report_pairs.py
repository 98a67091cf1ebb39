"""The report's minimal-pairs section read from what the real producers write: `xprobe probe`'s
records (a layer-wise sentence transformer under cv:5, and the baselines) and `xprobe score`'s
(the tiny GPT-2 and the controls). Each probe cell on the pairs' items equals its verdicts read
by hand at those lines; the model's cell equals its record; the verdicts follow the rule stated.
Issue 40."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.pairs.test_pairs_gold import built  # noqa: F401  (a fixture)
from tests.pairs.test_score import tiny_lm  # noqa: F401  (a fixture)
from xprobe.cli import main
from xprobe.probe.records import unpack_correct
from xprobe.report.pairs import pairs_section


@pytest.fixture(scope="module")
def produced(
    built: tuple[Path, Path, Path],  # noqa: F811
    tiny_lm: Path,  # noqa: F811
    tiny_st: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, Path]:
    _, probing, pairs = built
    tmp = tmp_path_factory.mktemp("report-pairs")
    results, scores = tmp / "results.jsonl", tmp / "pairs.jsonl"
    base = ["probe", "--data", str(probing), "--out", str(results), "--tasks", "BShift", "SOMO",
            "--cv", "5", "--cache-dir", str(tmp / "cache")]  # fmt: skip
    assert main([*base, "--classifier", "majority", "length"]) == 0
    assert main([*base, "--encoder", f"st:{tiny_st}[layers=all]", "--classifier", "lr"]) == 0
    argv = ["score", str(pairs), "--model", f"hf:{tiny_lm}", "--out", str(scores),
            "--cache-dir", str(tmp / "cache")]  # fmt: skip
    assert main(argv) == 0
    return results, scores


def _read(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_the_section_puts_each_probe_beside_the_model_on_the_same_items(
    produced: tuple[Path, Path], tmp_path: Path
) -> None:
    results, scores = produced
    probes, pairs = _read(results), _read(scores)
    lines, written = pairs_section(pairs, probes, tmp_path)
    assert (tmp_path / "pairs.md") in written and (tmp_path / "pairs_layers.md") in written
    text = "\n".join(lines)
    assert "## Minimal pairs: encoded, and used?" in text
    rows = list(csv.reader((tmp_path / "pairs.csv").read_text().splitlines()))
    header, body = rows[0], rows[1:]
    shift = next(r for r in body if r[1] == "bigram_shift")
    lm = next(p for p in pairs if p["phenomenon"] == "bigram_shift" and p.get("normalisation")
              == "sum" and p["scorer"] == "tiny-lm")  # fmt: skip
    assert shift[header.index("tiny-lm")].startswith(f"{100 * lm['value']:.1f} [")
    # the verdicts at the pairs' lines of the layer validation picks, read by hand
    enc = header[header.index("length") + 1]  # the one probed encoder
    mine = [r for r in probes if r.get("task") == "BShift" and r.get("encoder") == enc]
    dev = {r["layer"]: r["value"] for r in mine if r["split"] == "dev"}
    pick = max(dev, key=lambda k: (dev[k], -k))
    best = next(r for r in mine if r["split"] == "test" and r["layer"] == pick)
    correct = unpack_correct(best["correct"], best["n_test"])
    want = [bool(correct[i - 1]) for i in lm["probe_items"]]
    assert shift[header.index(enc)] == f"{100 * sum(want) / len(want):.1f} (n={len(want)})"
    verdict = shift[header.index("tiny-lm: verdict")]
    assert verdict in ("encoded, used", "encoded, not used", "used, not encoded", "neither")
    agreement = next(r for r in body if r[1] == "agreement_number")
    assert agreement[header.index(enc)] == "—"  # no probing task of its own


def test_the_layer_table_has_a_row_per_layer_and_the_model(
    produced: tuple[Path, Path], tmp_path: Path
) -> None:
    results, scores = produced
    pairs_section(_read(scores), _read(results), tmp_path)
    rows = list(csv.reader((tmp_path / "pairs_layers.csv").read_text().splitlines()))
    labels = [r[0] for r in rows[1:]]
    layers = {r["layer"] for r in _read(results) if r.get("layer") is not None}
    assert labels == [f"layer {k}" for k in sorted(layers)] + ["tiny-lm"]


def test_report_pairs_flag_adds_the_section_with_names_as_text(
    produced: tuple[Path, Path], tmp_path: Path
) -> None:
    results, scores = produced
    hostile = "![x](/etc/passwd)|y"
    lines = [json.loads(x) for x in scores.read_text().splitlines()]
    for r in lines:
        if r.get("scorer") == "tiny-lm":
            r["scorer"] = hostile
    renamed = tmp_path / "renamed.jsonl"
    renamed.write_text("".join(json.dumps(r) + "\n" for r in lines))
    out = tmp_path / "report"
    assert main(["report", str(results), "--out", str(out), "--pairs", str(renamed)]) == 0
    md = (out / "report.md").read_text()
    assert "## Minimal pairs: encoded, and used?" in md
    assert hostile not in md and "![x](" not in md  # escaped: text, never an image or a cell
    header = None
    for line in md.splitlines():  # every row has its table header's number of cells
        if line.startswith("| language |"):
            header = line.count("|") - line.count("\\|")
        elif line.startswith("| en | bigram_shift |"):
            assert line.count("|") - line.count("\\|") == header, line
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "probe"}\n')
    assert main(["report", str(results), "--out", str(out), "--pairs", str(bad)]) == 2


def test_scorers_are_compared_on_the_same_pairs(
    produced: tuple[Path, Path], tmp_path: Path
) -> None:
    """The model against the bigram control: the difference of their accuracies, and the sign
    test's p over the pairs where their verdicts differ, recomputed here by hand."""
    from math import comb

    results, scores = produced
    pairs = _read(scores)
    pairs_section(pairs, _read(results), tmp_path, "en")
    rows = list(csv.reader((tmp_path / "pairs_compared.csv").read_text().splitlines()))
    row = next(r for r in rows if r[1] == "bigram_shift" and r[2] == "tiny-lm − bigram")
    lm, bigram = (next(p for p in pairs if p["phenomenon"] == "bigram_shift"
                       and p.get("normalisation") == "sum" and p["scorer"] == s)
                  for s in ("tiny-lm", "bigram"))  # fmt: skip
    assert row[3] == f"{100 * (lm['value'] - bigram['value']):+.1f}"
    diff = [a - b for a, b in zip(lm["correct"], bigram["correct"], strict=True)]
    pos, neg = sum(d > 0 for d in diff), sum(d < 0 for d in diff)
    p = min(1.0, 2 * sum(comb(pos + neg, k) for k in range(min(pos, neg) + 1)) / 2 ** (pos + neg))
    holm_p = float(row[4].split("=")[1].split()[0])
    assert holm_p >= p - 1e-9  # Holm only raises a p

"""The layer report: curves per task (one line per language), layer x task heatmaps relative to
English, the best layer per task and language, and layers never averaged together."""

from __future__ import annotations

from pathlib import Path

from xprobe.probe.records import append_records, read_records
from xprobe.report.build import write_report
from xprobe.report.group import group_experiments
from xprobe.report.layers import best_layers, layer_cells
from xprobe.report.tables import row_name

# accuracy by (language, task) per layer 0, 1, 2 (hand-made: SentLen peaks early, Tense late)
ACC = {
    ("en", "SentLen"): (0.90, 0.80, 0.60),
    ("en", "Tense"): (0.60, 0.70, 0.85),
    ("de", "SentLen"): (0.70, 0.75, 0.50),
    ("de", "Tense"): (0.55, 0.65, 0.65),
}


def records() -> list[dict]:
    out = []
    for (lang, task), accs in ACC.items():
        for layer, acc in enumerate(accs):
            for split in ("dev", "test"):
                out.append(
                    {"encoder": "hf-tiny", "encoder_id": f"hf:tiny@x:layer={layer}",
                     "dataset": "xprobe", "language": lang, "task": task, "classifier": "mlp",
                     "seed": 0, "split": split, "metric": "accuracy", "value": acc,
                     "n_train": 10, "n_test": 10, "dataset_hash": f"h-{lang}-{task}",
                     "protocol": "tr/va/te", "grid": "default", "max_train": None,
                     "hyperparameters": {}, "version": "0", "layer": layer}
                )  # fmt: skip
    return out


def test_layer_records_round_trip_and_are_not_averaged(tmp_path: Path) -> None:
    append_records(tmp_path / "r.jsonl", records())
    recs = read_records(tmp_path / "r.jsonl")
    assert len(recs) == 24 and {r["layer"] for r in recs} == {0, 1, 2}
    exps = [e for e in group_experiments(recs) if e.get("split") == "test"]
    cells = {(e.get("language"), row_name(e), e.get("task")): e for e in exps}
    assert len(cells) == len(exps) == 12  # one experiment per layer, none averaged over layers
    assert cells[("en", "hf-tiny@L0", "SentLen")].mean == 0.90
    assert cells[("en", "hf-tiny@L2", "Tense")].mean == 0.85
    assert all(e.n == 1 for e in exps)


def test_best_layer_table_and_figures(tmp_path: Path) -> None:
    cells = layer_cells(records())
    best = best_layers(cells, ("xprobe", "mlp", "hf-tiny"))
    assert best[("en", "SentLen")] == (0, 0.90)
    assert best[("en", "Tense")] == (2, 0.85)
    assert best[("de", "SentLen")] == (1, 0.75)
    assert best[("de", "Tense")] == (1, 0.65)  # a tie goes to the lower layer
    written = {p.name for p in write_report(records(), tmp_path / "rep")}
    assert "layers_xprobe_mlp_hf-tiny.png" in written
    assert "layers_relative_xprobe_mlp_hf-tiny_de.png" in written
    assert "layers_relative_xprobe_mlp_hf-tiny_en.png" not in written
    table = (tmp_path / "rep" / "layers_best_xprobe_mlp_hf-tiny.md").read_text()
    # 10 test items: exact (Clopper-Pearson) intervals on the hit counts, and n (issue 23)
    assert "| SentLen | L0: 90.0 [55.5, 99.7] (e), n=10 | L1: 75.0 [" in table
    assert "| Tense | L2: 85.0 [" in table and "| L1: 65.0 [" in table
    curves = (tmp_path / "rep" / "layers_xprobe_mlp_hf-tiny_de.csv").read_text().splitlines()
    assert curves[0] == "task,L0,L1,L2" and curves[1] == "SentLen,70.0,75.0,50.0"
    for name in ("layers_xprobe_mlp_hf-tiny.png", "layers_relative_xprobe_mlp_hf-tiny_de.png"):
        data = (tmp_path / "rep" / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "accuracy (%) by layer" in report and "Best layer per task and language" in report

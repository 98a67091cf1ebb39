"""Layer curves carry intervals and the layer x task heatmap carries ns marks and n (issue 21:
a Finnish CoordInv peak at n_test = 5 looked as real as one at n_test = 10000)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from xprobe.report.build import write_report
from xprobe.report.layer_stats import curve_bands, layer_experiments, relative_layer_cells
from xprobe.report.stats import clopper_pearson

GROUP = ("xprobe", "lr", "hf-tiny")


def records(n_small: int = 5, n_big: int = 10000) -> list[dict]:
    """de beats en by 20 points at every layer; CoordInv on n_small items, SentLen on n_big."""
    out = []
    for lang, shift in (("en", 0.0), ("de", 0.2)):
        for task, n in (("SentLen", n_big), ("CoordInv", n_small)):
            for layer in range(3):
                out.append(
                    {"encoder": "hf-tiny", "encoder_id": f"hf:tiny@x:layer={layer}",
                     "dataset": "xprobe", "language": lang, "task": task, "classifier": "lr",
                     "seed": 0, "split": "test", "metric": "accuracy", "value": 0.6 + shift,
                     "n_train": 10, "n_test": n, "dataset_hash": f"h-{lang}-{task}",
                     "protocol": "tr/va/te", "grid": "default", "max_train": None,
                     "hyperparameters": {}, "version": "0", "layer": layer}
                )  # fmt: skip
    return out


def test_curve_bands_are_the_intervals_of_each_point() -> None:
    exps = layer_experiments(records())
    bands = curve_bands(exps, GROUP, ["en", "de"], ["SentLen", "CoordInv"], [0, 1, 2])
    lo, hi = clopper_pearson(3, 5)  # 3 of 5 right: an exact interval below MIN_TEST items
    assert np.allclose(bands["en"][1, :, 0], 100 * lo) and np.allclose(
        bands["en"][1, :, 1], 100 * hi
    )
    small = bands["de"][1, 0, 1] - bands["de"][1, 0, 0]
    big = bands["de"][0, 0, 1] - bands["de"][0, 0, 0]
    assert small > 40 and big < 3  # five items say little, ten thousand a lot


def test_relative_heatmap_marks_ns_and_n() -> None:
    exps = layer_experiments(records())
    d = relative_layer_cells(exps, GROUP, "de", "en", ["SentLen", "CoordInv"], [0, 1, 2])
    assert np.allclose(d.values, 20.0)
    assert d.ns[:, 1].all() and not d.ns[:, 0].any()  # CoordInv (n=5) ns, SentLen significant
    assert d.text[0][1].endswith(" ns") and not d.text[0][0].endswith("ns")
    assert d.n_test == ["10000/10000", "5/5"] and (d.comparisons, d.significant) == (6, 3)


def test_report_shows_them(tmp_path: Path) -> None:
    write_report(records(), tmp_path)
    md = (tmp_path / "layers_relative_xprobe_lr_hf-tiny_de.md").read_text(encoding="utf-8")
    assert (
        "| L0 | +20.0 [" in md and " ns |" in md and "| n_test (de/en) | 10000/10000 | 5/5 |" in md
    )
    curves = (tmp_path / "layers_xprobe_lr_hf-tiny_en.csv").read_text().splitlines()
    assert curves[-1] == "n_test (SentLen/CoordInv),10000/5,10000/5,10000/5"
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "Shaded: the 95% interval" in report and "6 comparisons" in report

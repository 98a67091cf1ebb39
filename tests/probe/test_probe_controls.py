"""Control tasks: type-level labels follow the lexical key with the task's proportions; the
label-plus-noise encoder is selective; with random labels the control sits at chance."""

from __future__ import annotations

import numpy as np
import pytest

from xprobe.probe.controls import control_labels
from xprobe.probe.datasets import load_probing_dir

pytest.importorskip("torch")


def _tense(d, n=(400, 100, 100)):
    """past_present.txt with a provenance file: the key (verb) decides nothing about the
    control label except through the seeded function."""
    g = np.random.default_rng(0)
    lines, prov = [], []
    verbs = [f"v{i}" for i in range(60)]
    for split, k in zip(("tr", "va", "te"), n, strict=True):
        for i in range(k):
            verb = verbs[int(g.integers(60))]
            label = "PAST" if g.random() < 0.75 else "PRES"  # 3:1 proportions
            lines.append(f"{split}\t{label}\tthe x{i} {verb} it\n")
            prov.append(f"{split}\t{label}\tin.conllu\t{i}\ts{i}\t{verb}\n")
    d.mkdir(parents=True)
    (d / "past_present.txt").write_text("".join(lines), encoding="utf-8")
    (d / "past_present.provenance.tsv").write_text("".join(prov), encoding="utf-8")
    (d / "manifest.json").write_text('{"language": "en"}', encoding="utf-8")


def test_type_level_control_is_a_function_of_the_key(tmp_path):
    _tense(tmp_path / "p")
    [ps] = load_probing_dir(tmp_path / "p")
    ctl = control_labels(ps, seed=0)
    assert ctl.kind == "type"
    by_key: dict[str, set[int]] = {}
    for split in ("tr", "va", "te"):
        for toks, lab in zip(ps.tokens[split], ctl.labels[split], strict=True):
            by_key.setdefault(toks[2], set()).add(int(lab))
    assert all(len(v) == 1 for v in by_key.values())  # one control label per verb
    past = ps.labels.index("PAST")
    share = np.mean([next(iter(v)) == past for v in by_key.values()])
    assert 0.55 < share < 0.95  # drawn with the task's 3:1 proportions (60 keys)
    again = control_labels(ps, seed=0)
    other = control_labels(ps, seed=1)
    assert all((again.labels[s] == ctl.labels[s]).all() for s in ctl.labels)
    assert any((other.labels[s] != ctl.labels[s]).any() for s in ctl.labels)


def test_shuffled_control_keeps_proportions(tmp_path):
    _tense(tmp_path / "p")
    (tmp_path / "p" / "past_present.provenance.tsv").unlink()
    [ps] = load_probing_dir(tmp_path / "p")
    ctl = control_labels(ps, seed=0)
    assert ctl.kind == "shuffled"
    for s in ("tr", "va", "te"):
        assert sorted(ctl.labels[s]) == sorted(ps.y(s)) and (ctl.labels[s] != ps.y(s)).any()


def _probe_with_control(tmp_path, random_labels):
    from tests.report.test_report_stats import _Signal, _task
    from xprobe.probe.classifiers import TrainConfig
    from xprobe.probe.harness import ProbeOptions, run_probe

    data = tmp_path / "d" / "xx"
    _task(data / "bigram_shift.txt", random_labels)
    cfg = TrainConfig(max_epochs=20, lr=1e-2)
    opts = ProbeOptions(classifiers=("lr",), language="xx", device="cpu", control=True,
                        cache_dir=tmp_path / "c", train=cfg)  # fmt: skip
    recs = run_probe(_Signal(0.5), data, tmp_path / "r.jsonl", opts)
    return [r for r in recs if r["split"] == "test"]


def test_label_plus_noise_is_selective(tmp_path):
    from xprobe.report.group import group_experiments
    from xprobe.report.stats import Stats

    [rec] = _probe_with_control(tmp_path, random_labels=False)
    assert rec["control"] == "shuffled" and abs(rec["control_value"] - 0.5) < 0.08
    [exp] = group_experiments([rec])
    sel, lo, hi, kind = Stats().selectivity(exp)
    assert sel > 0.3 and 0.2 < lo < sel < hi and kind == "shuffled"
    from xprobe.report.build import write_report

    write_report([rec], tmp_path / "rep")
    text = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "Selectivity = accuracy − control accuracy" in text
    assert f"| signal-0.5 | {100 * sel:.1f} [" in text


def test_random_labels_control_at_chance(tmp_path):
    from xprobe.report.group import group_experiments
    from xprobe.report.stats import Stats

    [rec] = _probe_with_control(tmp_path, random_labels=True)
    [exp] = group_experiments([rec])
    sel, lo, hi, _ = Stats().selectivity(exp)
    assert abs(rec["control_value"] - 0.5) < 0.08 and lo <= 0 <= hi and abs(sel) < 0.1

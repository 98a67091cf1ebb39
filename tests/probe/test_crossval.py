"""Cross-validated probing (``--cv K``): folds, nesting, records, and the interval's coverage.

The synthetic sets here are probing folders with precomputed embeddings (``npy:``), run through
the real harness: what is known is the truth (which rows exist, the true accuracy), not the
harness's answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from xprobe.errors import XProbeError
from xprobe.probe import context
from xprobe.probe.folds import assign_folds, groups_of, rotation
from xprobe.probe.harness import ProbeOptions, run_probe
from xprobe.probe.records import read_records, unpack_correct
from xprobe.report.stats import bootstrap_interval


def _folder(tmp: Path, y: np.ndarray, x: np.ndarray, task: str = "bigram_shift") -> Path:
    """A probing folder of one binary task (labels O/I) split 80/10/10, with its embeddings
    (rows aligned with the file) in ``tmp/emb/TASK.npy``."""
    d = tmp / "data"
    d.mkdir(parents=True, exist_ok=True)
    n = len(y)
    splits = ["tr"] * (n * 8 // 10) + ["va"] * (n // 10)
    splits += ["te"] * (n - len(splits))
    with open(d / f"{task}.txt", "w", encoding="utf-8") as f:
        for i, (s, lab) in enumerate(zip(splits, y, strict=True)):
            f.write(f"{s}\t{'IO'[lab]}\tsentence number {i} .\n")
    (tmp / "emb").mkdir(exist_ok=True)
    np.save(tmp / "emb" / f"{task}.npy", x.astype(np.float32))
    return d


def _noisy(seed: int, n: int, flip: float) -> tuple[np.ndarray, np.ndarray]:
    """Features that separate two classes perfectly, labels flipped with probability ``flip``:
    the best (and learned) rule is the sign of the first feature, right 1 - flip of the time."""
    g = np.random.default_rng(seed)
    truth = np.tile([0, 1], n // 2)
    x = np.stack([(2 * truth - 1) * 3.0 + g.normal(0, 0.3, n), g.normal(0, 1, n)], axis=1)
    y = np.where(g.random(n) < flip, 1 - truth, truth)
    return y, x


def _run(tmp: Path, y, x, k: int = 10, clf: str = "lr", **kw) -> list[dict]:
    d = _folder(tmp, y, x)
    opts = ProbeOptions(classifiers=(clf,), protocol=f"cv:{k}", language="xx", dataset="syn", **kw)
    return run_probe(f"npy:{tmp / 'emb'}", d, tmp / "r.jsonl", opts)


def test_folds_keep_keys_and_texts_in_one_fold_and_stratify() -> None:
    g = np.random.default_rng(0)
    n = 400
    y = g.integers(0, 2, n)
    keys = [f"k{g.integers(0, 40)}" if i % 3 else None for i in range(n)]
    texts = [f"t{i % 350}" for i in range(n)]  # 50 repeated texts
    folds = assign_folds(y, keys, 10, texts, ("en", "tense"))
    assert folds.shape == (n,) and set(folds.tolist()) == set(range(10))
    for attr in (keys, texts):
        seen: dict = {}
        for a, f in zip(attr, folds, strict=True):
            if a is not None:
                assert seen.setdefault(a, f) == f, f"{a} in folds {seen[a]} and {f}"
    # the same inputs, the same folds
    assert (assign_folds(y, keys, 10, texts, ("en", "tense")) == folds).all()


def test_folds_without_keys_are_stratified_to_one_line() -> None:
    y = np.repeat([0, 1, 2], [101, 57, 40])
    folds = assign_folds(y, [None] * len(y), 10, [str(i) for i in range(len(y))], ())
    counts = np.zeros((10, 3), dtype=int)
    np.add.at(counts, (folds, y), 1)
    assert (counts.max(axis=0) - counts.min(axis=0) <= 1).all(), counts


def test_groups_join_through_a_shared_key_or_text() -> None:
    ids = groups_of(["a", None, "a", None, "b"], ["x", "y", "z", "x", "w"])
    assert ids[0] == ids[2] == ids[3]  # 0-2 by key, 0-3 by text
    assert len({ids[0], ids[1], ids[4]}) == 3


def test_rotation_sides_are_disjoint_and_cover_every_line() -> None:
    folds = assign_folds(np.arange(60) % 2, [None] * 60, 5, list(range(60)), ())
    tested = []
    for r in range(5):
        tr, va, te = rotation(folds, r)
        assert not (set(tr) & set(va) or set(tr) & set(te) or set(va) & set(te))
        assert len(tr) + len(va) + len(te) == 60
        tested.extend(te.tolist())
    assert sorted(tested) == list(range(60))


def test_nested_selection_never_sees_a_test_item(tmp_path: Path, monkeypatch) -> None:
    """Every fit gets its rows' ids in a feature column: no id of the test side may reach
    the training or the validation side, and every line is tested exactly once."""
    y, x = _noisy(1, 300, 0.1)
    x = np.concatenate([x, np.arange(300, dtype=np.float64)[:, None]], axis=1)
    calls: list[tuple[set, set, set]] = []
    real = context.train_select

    def spy(xtr, ytr, xva, yva, xte, yte, **kw):
        calls.append(tuple({int(v) for v in a[:, -1]} for a in (xtr, xva, xte)))
        return real(xtr, ytr, xva, yva, xte, yte, **kw)

    monkeypatch.setattr(context, "train_select", spy)
    recs = _run(tmp_path, y, x)
    assert len(calls) == 10
    for tr, va, te in calls:
        assert not te & (tr | va), "a test item was used for training or selection"
        assert not tr & va
    tested = sorted(i for _, _, te in calls for i in te)
    assert tested == list(range(300))
    test = next(r for r in recs if r["split"] == "test")
    assert test["protocol"] == "cv:10" and test["n_test"] == 300
    assert sum(test["folds"]) == 300 and len(test["folds"]) == 10
    assert len(test["hyperparameters"]["per_fold"]) == 10
    hits = unpack_correct(test["correct"], 300)
    assert abs(hits.mean() - test["value"]) < 1e-6


def test_cv_interval_covers_the_true_accuracy_at_about_the_nominal_rate(
    tmp_path: Path,
) -> None:
    """Labels flipped at 20 % on perfectly separable features: the probe's true accuracy is
    0.8. Over 60 data sets the 95 % bootstrap interval of the cross-validated accuracy covers
    it about 95 % of the time (57 expected; 52..60 holds with probability > 0.99)."""
    covered, means = 0, []
    for seed in range(60):
        y, x = _noisy(100 + seed, 240, 0.2)
        recs = _run(tmp_path / str(seed), y, x, clf="lr")
        test = next(r for r in recs if r["split"] == "test")
        hits = unpack_correct(test["correct"], test["n_test"])
        lo, hi = bootstrap_interval(hits, np.random.default_rng(seed))
        covered += lo <= 0.8 <= hi
        means.append(hits.mean())
    assert 52 <= covered <= 60, covered
    assert abs(np.mean(means) - 0.8) < 0.01


def test_records_are_byte_identical_across_runs(tmp_path: Path) -> None:
    y, x = _noisy(3, 200, 0.1)
    for name in ("a", "b"):
        _run(tmp_path / name, y, x, clf="majority")
        _run(tmp_path / name, y, x, clf="lr")

    def text(name: str) -> str:  # the embeddings' path is the one difference
        return (tmp_path / name / "r.jsonl").read_text("utf-8").replace(str(tmp_path / name), "")

    assert text("a") == text("b")
    assert len(read_records(tmp_path / "a" / "r.jsonl")) == 4


def test_a_set_below_the_floor_is_na_with_its_numbers(tmp_path: Path) -> None:
    y, x = _noisy(4, 60, 0.1)
    recs = _run(tmp_path, y, x, clf="majority")
    assert all("not_applicable" in r for r in recs), recs
    reason = json.dumps(recs[0])
    assert "60 lines" in reason and "97" in reason


def test_a_keyed_task_without_provenance_is_refused(tmp_path: Path) -> None:
    y, x = _noisy(5, 200, 0.1)
    d = _folder(tmp_path, y, x, task="past_present")
    opts = ProbeOptions(classifiers=("majority",), protocol="cv:10", language="xx")
    with pytest.raises(XProbeError, match="provenance"):
        run_probe(None, d, tmp_path / "r.jsonl", opts)


def test_cv_and_split_records_are_kept_apart(tmp_path: Path) -> None:
    """A cv run after a tr/va/te run of the same task is not skipped as already recorded."""
    y, x = _noisy(6, 200, 0.1)
    d = _folder(tmp_path, y, x)
    out = tmp_path / "r.jsonl"
    run_probe(None, d, out, ProbeOptions(classifiers=("majority",), language="xx"))
    opts = ProbeOptions(classifiers=("majority",), protocol="cv:5", language="xx")
    recs = run_probe(None, d, out, opts)
    assert {r["protocol"] for r in recs} == {"cv:5"}
    assert {r["n_test"] for r in recs} == {200}


def test_a_report_keeps_cross_validated_tasks_of_any_size_in_one_table(tmp_path: Path) -> None:
    """Two tasks with different fold sizes, from the harness itself: one table, n_test = N."""
    from xprobe.report import write_report

    y1, x1 = _noisy(7, 200, 0.1)
    y2, x2 = _noisy(8, 300, 0.1)
    d = _folder(tmp_path, y1, x1, task="bigram_shift")
    _folder(tmp_path, y2, x2, task="coordination_inversion")
    opts = ProbeOptions(classifiers=("majority",), protocol="cv:10", language="en")
    recs = run_probe(None, d, tmp_path / "r.jsonl", opts)
    assert {r["n_test"] for r in recs if r["split"] == "test"} == {200, 300}
    write_report(recs, tmp_path / "rep")
    md = (tmp_path / "rep" / "report.md").read_text("utf-8")
    headings = [x for x in md.splitlines() if x.startswith("## ") and "test accuracy" in x]
    assert len(headings) == 1, headings  # one table, its setting said once for every table
    assert "Settings of every table: " in md and "protocol=cv:10" in md
    assert "| n_test | 200 | 300 |" in md


def test_control_task_is_cross_validated_on_the_same_folds(tmp_path: Path) -> None:
    y, x = _noisy(9, 200, 0.1)
    recs = _run(tmp_path, y, x, clf="lr", control=True)
    test = next(r for r in recs if r["split"] == "test")
    assert test["control"] == "shuffled"
    ctl = unpack_correct(test["control_correct"], 200)
    assert abs(ctl.mean() - test["control_value"]) < 1e-6
    assert test["value"] > test["control_value"] + 0.2  # the task is learnable, its control not


def test_every_layer_of_a_transformer_is_cross_validated(tmp_path: Path) -> None:
    """A tiny BERT saved with save_pretrained: one record pair per layer, all on N lines."""
    pytest.importorskip("transformers")
    from tests.tiny_models import build_tiny_bert

    model = build_tiny_bert(tmp_path / "bert")
    g = np.random.default_rng(10)
    y = np.tile([0, 1], 60)
    d = tmp_path / "data"
    d.mkdir()
    words = ["alpha", "beta", "gamma", "delta"]
    with open(d / "bigram_shift.txt", "w", encoding="utf-8") as f:
        for i, lab in enumerate(y):
            toks = " ".join(g.choice(words, 4 + lab * 3))
            f.write(f"{'tr' if i < 96 else 'va' if i < 108 else 'te'}\t{'OI'[lab]}\t{toks} w{i}\n")
    opts = ProbeOptions(classifiers=("lr",), protocol="cv:5", language="xx", device="cpu",
                        cache_dir=tmp_path / "cache")  # fmt: skip
    recs = run_probe(f"hf:{model}", d, tmp_path / "r.jsonl", opts)
    tests = [r for r in recs if r["split"] == "test"]
    assert len(tests) >= 2 and len({r["layer"] for r in tests}) == len(tests)
    assert all(r["n_test"] == 120 and r["protocol"] == "cv:5" for r in tests)
    assert all(len(unpack_correct(r["correct"], 120)) == 120 for r in tests)


@pytest.mark.parametrize("clf", ["mlp", "lr"])
def test_no_line_is_learnt_before_it_is_scored(tmp_path: Path, clf: str) -> None:
    """Random labels and one indicator feature per line: a probe can only be right about a
    line above chance by having trained on it. Every line is scored by a probe that never
    trained on it (nor selected on it), so the accuracy stays at chance; the same probe
    scores about 100 % on lines it trained on."""
    n = 200
    y = np.tile([0, 1], n // 2)
    np.random.default_rng(11).shuffle(y)
    x = np.eye(n)
    recs = _run(tmp_path, y, x, clf=clf)
    test = next(r for r in recs if r["split"] == "test")
    assert abs(test["value"] - 0.5) < 0.1, test["value"]  # chance: 0.5 +/- 3.5 sd
    from xprobe.probe.classifiers import TrainConfig, train_select

    seen = train_select(x[:100], y[:100], x[:100], y[:100], x[:100], y[:100], kind=clf,
                        config=TrainConfig(device="cpu"))  # fmt: skip
    assert seen.test_acc > 0.95  # the features do let a probe learn a line it trained on

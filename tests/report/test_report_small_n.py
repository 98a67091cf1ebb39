"""Statistics on a handful of test items (issue 23).

Finnish cells with n_test = 5 were reported as significant differences from English, intervals
of differences left the possible range (``CoordInv +12.5 [-91.9, +116.9]`` for Turkish n = 2
against English n = 8): a normal approximation on two to eight items. Below
:data:`~xprobe.report.stats.MIN_TEST` test items the report uses exact methods (Clopper-Pearson
for one accuracy; Newcombe's score interval and Fisher's exact test for a difference), marked
``(e)``. The best-layer table gives an interval and n; the legend says which intervals are per
comparison and which marks are Holm-corrected; the selectivity differences get marks too.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.report.test_report_mixing import _rec
from xprobe.probe.records import pack_correct
from xprobe.report.build import write_report
from xprobe.report.group import group_experiments
from xprobe.report.stats import MIN_TEST, Stats


def _items(enc, lang, task, hits, seed=0, **extra):
    hits = np.asarray(hits, dtype=bool)
    r = _rec(enc, lang, task, round(float(hits.mean()), 6), seed=seed, correct=pack_correct(hits),
             **extra)  # fmt: skip
    return {**r, "n_test": len(hits), "dataset_hash": f"{lang}-{task}"}


def _one(recs):
    [e] = group_experiments(recs)
    return e


def test_min_test_is_documented_and_small():
    assert 10 <= MIN_TEST <= 100


def test_one_accuracy_on_five_items_gets_an_exact_interval():
    e = _one([_items("bov", "fi", "SentLen", [1, 1, 1, 1, 0])])  # 4 of 5
    lo, hi, how = Stats().interval(e)
    assert how == "exact"
    assert lo == pytest.approx(0.2836, abs=1e-4) and hi == pytest.approx(0.9949, abs=1e-4)
    assert Stats().interval_text(e) == " [28.4, 99.5] (e)"


def test_difference_of_two_and_eight_items_stays_in_range():
    # the CoordInv cell: tr 1 of 2 (50.0) against en 3 of 8 (37.5): +12.5
    tr = _one([_items("bov", "tr", "CoordInv", [1, 0])])
    en = _one([_items("bov", "en", "CoordInv", [1, 1, 1, 0, 0, 0, 0, 0])])
    st = Stats()
    d, lo, hi, p = st.compare(tr, en)
    assert d == pytest.approx(0.125) and -1 <= lo < 0 < hi <= 1 and p > 0.5
    assert st.exact(tr, en)


def test_five_seed_averaged_items_are_not_significant_against_many(tmp_path):
    # 3 seeds on 5 Finnish items: per-item shares .67 .67 .33 .33 0 (mean 40%); the normal
    # approximation on those shares called -31 points "significant" against English's 71%
    seeds = [[1, 1, 0, 1, 0], [1, 0, 1, 0, 0], [0, 1, 0, 0, 0]]
    g = np.random.default_rng(0)
    en = g.random(1000) < 0.713
    recs = [_items("bov", "fi", "SentLen", h, seed=s) for s, h in enumerate(seeds)]
    recs += [_items("bov", "en", "SentLen", en, seed=s) for s in range(3)]
    write_report(recs, tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    row = next(ln for ln in text.splitlines() if ln.startswith("| bov | -"))  # fi - en
    cell = row.split("|")[2].strip()
    assert cell.startswith("-") and "(e)" in cell and cell.endswith(" ns"), cell
    lo, hi = (float(x) for x in cell.split("[")[1].split("]")[0].split(","))
    assert -100 <= lo < 0 < hi <= 100
    assert "1 comparisons, Holm-corrected at α = 0.05: 0 significant" in text


def test_legend_says_which_intervals_are_per_comparison(tmp_path):
    g = np.random.default_rng(1)
    recs = [_items("bov", lang, "WC", g.random(200) < p) for lang, p in (("en", 0.6), ("de", 0.4))]
    write_report(recs, tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "not adjusted for the 1 comparisons" in text
    assert f"fewer than {MIN_TEST} test items" in text


def test_best_layer_table_gives_interval_and_n(tmp_path):
    recs = [_items("hf", lang, "SentLen", hits, layer=layer)
            for lang, by_layer in (("en", ([1] * 9 + [0], [1] * 5 + [0] * 5)),
                                   ("fi", ([1, 0, 0, 0, 0], [1, 1, 1, 1, 0])))
            for layer, hits in enumerate(by_layer)]  # fmt: skip
    write_report(recs, tmp_path)
    table = (tmp_path / "layers_best_xprobe_mlp_hf.md").read_text(encoding="utf-8")
    # en: 9 of 10 at L0 (Clopper-Pearson 55.5-99.7); fi: 4 of 5 at L1 (28.4-99.5)
    assert "| SentLen | L0: 90.0 [55.5, 99.7] (e), n=10 | L1: 80.0 [28.4, 99.5] (e), n=5 |" in table


def _sel(lang, task, hits, ctl):
    hits, ctl = np.asarray(hits, dtype=bool), np.asarray(ctl, dtype=bool)
    r = _items(
        "bov",
        lang,
        task,
        hits,
        control="type",
        control_value=round(float(ctl.mean()), 6),
        control_correct=pack_correct(ctl),
    )
    return r


def test_selectivity_differences_carry_significance_marks(tmp_path):
    g = np.random.default_rng(2)
    n = 2000
    same = (g.random(n) < 0.7, g.random(n) < 0.5)  # selectivity 20 in both languages
    recs = [
        _sel("en", "WC", g.random(n) < 0.8, g.random(n) < 0.3),  # selectivity 50
        _sel("de", "WC", g.random(n) < 0.5, g.random(n) < 0.3),  # 20: 30 points lower
        _sel("en", "SentLen", *same),
        _sel("de", "SentLen", *same),
    ]
    write_report(recs, tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    part = text.split("Selectivity, de − en")[1]
    row = next(ln for ln in part.splitlines() if ln.startswith("| bov | "))
    sentlen, wc = row.split(" | ")[1:3]
    assert sentlen.endswith(" ns") and wc.startswith("-") and not wc.endswith("ns")
    assert "2 comparisons, Holm-corrected" in part.split("| encoder |")[0]


def test_exact_methods_hand_checked():
    from xprobe.report.stats import clopper_pearson, fisher_exact, newcombe, sign_test

    # 0 of 5: upper = 1 - 0.025 ** (1 / 5); 5 of 5: lower = 0.025 ** (1 / 5)
    assert clopper_pearson(0, 5) == pytest.approx((0.0, 1 - 0.025**0.2), abs=1e-6)
    assert clopper_pearson(5, 5) == pytest.approx((0.025**0.2, 1.0), abs=1e-6)
    # Fisher's tea tasting: 3 of 4 against 1 of 4, two-sided p = 34/70
    assert fisher_exact(3, 4, 1, 4) == pytest.approx(34 / 70)
    assert fisher_exact(2, 4, 2, 4) == pytest.approx(1.0)
    # Newcombe (1998), Table II, 56/70 - 48/80 = .2, method 10 (hybrid score): .0524 to .3339
    assert newcombe(56 / 70, 70, 48 / 80, 80) == pytest.approx((0.0524, 0.3339), abs=1e-4)
    assert sign_test(np.array([1, 1, 1, 1, 1, 0, 0])) == pytest.approx(2 / 32)

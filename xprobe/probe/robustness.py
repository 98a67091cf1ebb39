"""Design-choice robustness (Eger, Daxenberger & Gurevych 2020).

Probe the same encoders with several classifiers (LR; MLP over the hidden x dropout x L2 grid,
``grid="full"``; Gaussian naive Bayes, untuned; random forest with its depth tuned over 10, 50,
100, unlimited) and training sizes (subsamples that keep the class proportions: 2k, 5k, 10k,
20k, 30k, 100k by default), as Eger et al. did, then ask how stable the *ranking of encoders* is
across these settings, within one language and dataset (:func:`stability_groups`; records of
several languages are never pooled):

* ``sim_c(s, t)``: for classifier c, the correlation (Pearson, their main-text measure;
  Spearman; or Kendall) between the encoders' scores at sizes s and t, set to 0 when its
  p-value exceeds 0.2, averaged over tasks (Eq. 1);
  ``sim_c(s)``: its mean over all sizes t (Eq. 2);
* ``sim_{c,d}(s, t)``: the same between classifiers c and d (Eq. 3), summarised as min/avg;
* ``mu(c, s)``: per task, the correlation between the ranking of setting (c, s) and the ranking
  with most support over all settings, counted when at least 0.75, summed over tasks (Eq. 4).
  The ranking with most Spearman support is found exactly by sorting encoders by mean rank
  (minimising the summed squared rank differences is the rearrangement problem); for Kendall the
  same ranking is used (the Borda approximation of the Kemeny ranking).

:func:`ranking_support` adds how well each ordering survives test-set noise: the share of
bootstrap resamples of the test items in which a setting's ordering of encoders holds.

The measurements are ordinary probe records (``xprobe probe --classifier lr mlp nb rf
--max-train N``, one run per size: :func:`robustness_study`), so they share the embedding cache;
:func:`stability` works on those records.

Example::

    recs = robustness_study(["bov:en.vec", "pmeans:en.vec", "random:bilstm-max:en.vec"],
                            "probing/en", "robust.jsonl", sizes=(2000, 10000))
    rep = stability(recs)
    rep.most_stable[:3]
"""

from __future__ import annotations

import itertools
import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from xprobe.errors import XProbeError
from xprobe.probe.records import PER_RUN_FIELDS as _PER_RUN

__all__ = [
    "ROBUSTNESS_CLASSIFIERS",
    "SIZES",
    "StabilityReport",
    "ranking_support",
    "robustness_study",
    "stability",
    "stability_groups",
    "study_key",
]

SIZES = (2000, 5000, 10000, 20000, 30000, 100000)
ROBUSTNESS_CLASSIFIERS = ("lr", "mlp", "nb", "rf")


def robustness_study(
    encoders: Sequence[str],
    data_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    sizes: Sequence[int] = SIZES,
    classifiers: Sequence[str] = ROBUSTNESS_CLASSIFIERS,
    opts: Any = None,
) -> list[dict[str, Any]]:
    """Probe every encoder spec at every training size with every classifier (records appended
    to ``out``; reruns skip what is recorded); returns all records of ``out`` for these runs."""
    from xprobe.probe.harness import ProbeOptions, run_probe
    from xprobe.probe.records import read_records

    base = opts or ProbeOptions(grid="full")  # the MLP's hidden x dropout x L2 grid (Eger et al.)
    for spec in encoders:
        for size in sizes:
            run_probe(spec, data_dir, out, replace(base, classifiers=tuple(classifiers),
                                                   max_train=int(size)))  # fmt: skip
    return read_records(out)


@dataclass
class StabilityReport:
    """Stability scores; settings are (classifier, size) pairs, sizes are ``max_train`` values."""

    method: str
    encoders: list[str]
    tasks: list[str]
    size_sim: dict[str, dict[tuple[int, int], float]]
    size_stability: dict[str, dict[int, float]]
    classifier_sim: dict[tuple[str, str], dict[str, float]]
    mu: dict[tuple[str, int], float]
    most_stable: list[tuple[tuple[str, int], float]]
    consensus: dict[str, list[str]] = field(default_factory=dict)  # task -> encoders, best first


def _corr(a: np.ndarray, b: np.ndarray, method: str, p_max: float) -> float:
    from scipy.stats import kendalltau, pearsonr, spearmanr

    if len(a) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return 0.0
    f = {"spearman": spearmanr, "pearson": pearsonr, "kendall": kendalltau}[method]
    res = f(a, b)
    rho, p = float(res[0]), float(res[1])
    if not np.isfinite(rho) or p > p_max:
        return 0.0
    return rho


# What varies inside one stability study (the settings and the cells); every other field of a
# record (dataset, language, protocol, layer, ...) separates studies. Per-run fields are ignored.
_WITHIN = frozenset({"classifier", "max_train", "grid", "n_train", "encoder", "encoder_id",
                     "task", "dataset_hash", "n_test", "mapped_from", "teacher", "partial",
                     "test_overlap", "test_overlap_removed", "overlap_removed",
                     "vocab_coverage", "training_protocol"})  # fmt: skip


def study_key(r: dict[str, Any]) -> tuple:
    return tuple(sorted((k, str(v)) for k, v in r.items() if k not in _WITHIN | _PER_RUN))


def stability_groups(
    records: Iterable[dict[str, Any]], **kwargs: Any
) -> dict[tuple, StabilityReport | str]:
    """One stability study per language and dataset (and any other field that is not a design
    choice, e.g. protocol or layer): study key -> report, or the reason there is none."""
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r["split"] == "test" and r["encoder"] != "baseline":
            groups[study_key(r)].append(r)
    out: dict[tuple, StabilityReport | str] = {}
    for key, recs in sorted(groups.items()):
        if len({_setting(r) for r in recs}) < 2:
            out[key] = "fewer than 2 (classifier, size) settings"
            continue
        try:
            out[key] = stability(recs, **kwargs)
        except XProbeError as e:
            out[key] = str(e)
    return out


def _setting(r: dict[str, Any]) -> tuple[str, int]:
    """A design point: the classifier (with its grid when not the default) and the train size."""
    clf = r["classifier"] if r.get("grid") in ("default", "none", None) else (
        f"{r['classifier']}[{r['grid']}]")  # fmt: skip
    size = r["max_train"] if r["max_train"] is not None else r["n_train"]
    return clf, int(size)


def _table(records: Iterable[dict[str, Any]]):
    """(classifier, size) -> task -> encoder -> mean test accuracy over seeds; an error when
    the records hold more than one study (two languages would be pooled into one ranking)."""
    acc: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    studies = set()
    for r in records:
        if r["split"] != "test" or r["encoder"] == "baseline" or "not_applicable" in r:
            continue  # baselines and tasks that do not apply (a reason, no value) rank nothing
        studies.add(study_key(r))
        acc[_setting(r)][r["task"]][r["encoder"]].append(r["value"])
    if len(studies) > 1:
        diff = sorted({kv for s in studies for kv in s} - set.intersection(*map(set, studies)))
        raise XProbeError(
            "records of several studies (they differ in "
            + ", ".join(sorted({k for k, _ in diff}))
            + "): rankings are compared within one language and dataset; use stability_groups"
        )
    return acc


def stability(
    records: Iterable[dict[str, Any]],
    method: str = "spearman",
    p_max: float = 0.2,
    closeness: float = 0.75,
) -> StabilityReport:
    """Eger et al.'s stability scores from probe records (test split; mean over seeds).

    Only (task, encoder) cells present in every setting are used; at least 3 encoders needed.
    """
    acc = _table(records)
    settings = sorted(acc)
    if not settings:
        raise XProbeError("no probe records (test split, non-baseline) to compute stability from")
    tasks = sorted(set.intersection(*(set(acc[s]) for s in settings)))
    encs = sorted(
        set.intersection(*(set(acc[s][t]) for s in settings for t in tasks)) if tasks else set()
    )
    if len(encs) < 3 or not tasks:
        raise XProbeError(
            f"stability needs >= 3 encoders measured in every setting; found {len(encs)}"
        )
    vec = {(s, t): np.array([np.mean(acc[s][t][e]) for e in encs]) for s in settings for t in tasks}

    def sim(s1, s2) -> float:
        return float(np.mean([_corr(vec[(s1, t)], vec[(s2, t)], method, p_max) for t in tasks]))

    clfs = sorted({c for c, _ in settings})
    sizes = {c: sorted(s for cc, s in settings if cc == c) for c in clfs}
    size_sim = {c: {(a, b): sim((c, a), (c, b)) for a in sizes[c] for b in sizes[c]} for c in clfs}
    size_stab = {
        c: {a: float(np.mean([size_sim[c][(a, b)] for b in sizes[c]])) for a in sizes[c]}
        for c in clfs
    }
    clf_sim = {}
    for c, d in itertools.combinations(clfs, 2):
        vals = [sim((c, a), (d, b)) for a in sizes[c] for b in sizes[d]]
        clf_sim[(c, d)] = {"min": float(np.min(vals)), "avg": float(np.mean(vals))}
    mu, consensus = _mu(vec, settings, tasks, method, closeness)
    ranked = sorted(mu.items(), key=lambda kv: (-kv[1], kv[0]))
    order = {t: [encs[i] for i in np.argsort(c, kind="stable")] for t, c in consensus.items()}
    return StabilityReport(method, encs, tasks, size_sim, size_stab, clf_sim, mu, ranked, order)


def _mu(vec, settings, tasks, method: str, closeness: float):
    """mu per setting, and per task the consensus rank of each encoder (1 = best).
    Rankings are compared with Spearman (Pearson on ranks is Spearman) or Kendall."""
    from scipy.stats import kendalltau, rankdata, spearmanr

    mu = dict.fromkeys(settings, 0.0)
    cons = {}
    for t in tasks:
        ranks = {s: rankdata(-vec[(s, t)]) for s in settings}
        consensus = rankdata(np.mean([ranks[s] for s in settings], axis=0), method="ordinal")
        cons[t] = consensus
        for s in settings:
            if np.ptp(ranks[s]) == 0:
                continue
            f = kendalltau if method == "kendall" else spearmanr
            rho = float(f(ranks[s], consensus)[0])
            if np.isfinite(rho) and rho >= closeness:
                mu[s] += rho
    return mu, cons


def ranking_support(
    records: Iterable[dict[str, Any]], resamples: int = 200, seed: int = 0
) -> dict[tuple[str, int], dict[str, float]]:
    """Per setting and task: the share of bootstrap resamples of the test items in which the
    observed ordering of the encoders holds (every encoder at least as good as the next).

    Items are resampled jointly for all encoders (they share the test set); each item's
    correctness is averaged over seeds. Only records with per-item correctness (``correct``)
    count; a (setting, task) with fewer than 2 such encoders, or with test sets of different
    sizes, is left out. Records must be of one study (one language and dataset)."""
    from xprobe.files import np_rng
    from xprobe.probe.records import unpack_correct

    _table(records)  # raises on records of several studies
    items: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in records:
        if r["split"] == "test" and r["encoder"] != "baseline" and "correct" in r:
            hits = unpack_correct(r["correct"], int(r["n_test"]))
            items[_setting(r)][r["task"]][r["encoder"]].append(hits)
    out: dict[tuple[str, int], dict[str, float]] = {}
    for setting, tasks in sorted(items.items()):
        for task, encs in sorted(tasks.items()):
            mats = [np.mean(v, axis=0) for _, v in sorted(encs.items())]
            if len(mats) < 2 or len({len(m) for m in mats}) != 1:
                continue
            c = np.stack(mats)
            order = np.argsort(-c.mean(1), kind="stable")
            gen = np_rng(seed, setting[0], setting[1], task, "ranking")
            held = 0
            for _ in range(resamples):
                m = c[order][:, gen.integers(0, c.shape[1], size=c.shape[1])].mean(1)
                held += bool(np.all(np.diff(m) <= 0))
            out.setdefault(setting, {})[task] = held / resamples
    return out

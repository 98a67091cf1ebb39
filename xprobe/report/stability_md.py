"""``stability.md``: Eger et al.'s stability study, one section per language and dataset.

Rankings are never pooled across languages (:func:`xprobe.probe.robustness.stability_groups`).
Each section gives Pearson (Eger et al.'s main-text measure) beside Spearman: the most stable
settings (mu), the stability of each size sim_c(s), their Table 3 (min/avg of sim_c(s, t) over
pairs of sizes, per classifier), the agreement between classifiers sim_cd, and the consensus
ranking of encoders per task.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from xprobe.report.md import md_table

__all__ = ["stability_markdown"]


def _label(key: tuple) -> str:
    d = dict(key)
    head = f"{d.pop('dataset', '?')} / {d.pop('language', '?')}"
    for k in ("split", "metric"):
        d.pop(k, None)
    rest = ", ".join(f"{k}={v}" for k, v in sorted(d.items()))
    return head + (f" ({rest})" if rest else "")


def _section(sp, pe) -> str:
    mu_p = dict(pe.mu)
    rows = [[c, str(s), f"{v:.2f}", f"{mu_p.get((c, s), float('nan')):.2f}"]
            for (c, s), v in sp.most_stable]  # fmt: skip
    md = md_table(["classifier", "train size", "mu (Spearman)", "mu (Pearson)"], rows)
    sz = [[c, str(s), f"{v:.3f}", f"{pe.size_stability[c][s]:.3f}"]
          for c, d in sp.size_stability.items() for s, v in d.items()]  # fmt: skip
    md += "\nStability of each size, sim_c(s):\n\n"
    md += md_table(["classifier", "size", "Spearman", "Pearson"], sz)
    t3 = []
    for c in sp.size_sim:
        vals = {m: [v for (a, b), v in r.size_sim[c].items() if a < b] for m, r in
                (("s", sp), ("p", pe))}  # fmt: skip
        if vals["s"]:
            t3.append([c] + [f"{np.min(vals[m]):.3f}/{np.mean(vals[m]):.3f}" for m in "ps"])
    md += "\nSimilarity across sizes per classifier, min/avg of sim_c(s, t), s < t (Eger et al. "
    md += "Table 3):\n\n" + md_table(["classifier", "Pearson min/avg", "Spearman min/avg"], t3)
    cs = [[c, d, f"{v['min']:.3f}/{v['avg']:.3f}",
           f"{pe.classifier_sim[(c, d)]['min']:.3f}/{pe.classifier_sim[(c, d)]['avg']:.3f}"]
          for (c, d), v in sp.classifier_sim.items()]  # fmt: skip
    md += "\nAgreement between classifiers, sim_cd min/avg:\n\n"
    md += md_table(["c", "d", "Spearman", "Pearson"], cs)
    cons = [[t, " > ".join(order)] for t, order in sp.consensus.items()]
    md += "\nConsensus ranking of encoders per task (best first):\n\n"
    md += md_table(["task", "ranking"], cons)
    return md


def _support(recs: list[dict[str, Any]]) -> str:
    from xprobe.probe.robustness import ranking_support

    sup = ranking_support(recs)
    if not sup:
        return ("\nRanking robustness: no per-item correctness in these records (probe again to "
                "get it).\n")  # fmt: skip
    tasks = sorted({t for d in sup.values() for t in d})
    rows = [[c, str(s)] + [f"{100 * d[t]:.0f}%" if t in d else "" for t in tasks]
            for (c, s), d in sup.items()]  # fmt: skip
    return ("\nRanking robustness: share of bootstrap resamples of the test items in which each "
            "setting's ordering of encoders holds:\n\n"
            + md_table(["classifier", "size", *tasks], rows))  # fmt: skip


def stability_markdown(records: Iterable[dict[str, Any]]) -> str | None:
    """The stability study as Markdown, one section per study with scores (the others named on
    one line); None when no study has scores."""
    from xprobe.probe.robustness import stability_groups, study_key

    records = list(records)
    sp = stability_groups(records, method="spearman")
    pe = stability_groups(records, method="pearson")
    scored = [key for key, rep in sp.items() if not isinstance(rep, str)]
    if not scored:
        return None
    parts = [
        "# Stability of encoder rankings (Eger et al. 2020)\n",
        "One study per language and dataset: rankings are never pooled across languages.\n",
    ]
    for key in scored:
        recs = [r for r in records if r["split"] == "test" and r["encoder"] != "baseline"
                and study_key(r) == key]  # fmt: skip
        parts.append(f"## {_label(key)}\n")
        parts.append(_section(sp[key], pe[key]) + _support(recs))
    why: dict[str, list[str]] = {}
    for key, rep in sp.items():
        if isinstance(rep, str):
            why.setdefault(rep, []).append(_label(key))
    for reason, labels in sorted(why.items()):
        parts.append(f"Not studied ({reason}): {'; '.join(sorted(labels))}.\n")
    return "\n".join(parts)

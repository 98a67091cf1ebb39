"""Tables and figures from result records (always built from the records, nothing else).

``write_report(records, out_dir)`` writes:

* ``table4_<dataset>_<classifier>_<lang>.{md,csv}``: test accuracy, rows encoders (baselines
  first), columns tasks, mean over seeds with ± std when there are several (X-Probe Table 4);
* ``table1_<dataset>_<classifier>.{md,csv}``: per task, mean and std across languages and
  encoders of the per-(language, encoder) accuracies (X-Probe Table 1; baselines excluded);
* ``relative_<dataset>_<classifier>_<lang>.png``: heatmap of language minus reference language
  (rows encoders, columns tasks, diverging colormap centred at 0, annotated; X-Probe Figure 4);
* ``datasets_<lang>_<classifier>_<A>_vs_<B>.png``: the reference language on two datasets
  (record field ``dataset``): both panels and their difference (X-Probe Figure 2);
* with XNLI accuracies: ``xnli_spearman_<dataset>_<classifier>.{md,csv,png}``: per language and
  task, the Spearman correlation across encoders between probing and XNLI accuracy (Figure 3);
* ``stability.md`` when records hold >= 2 (classifier, max_train) settings over >= 3 encoders
  (Eger et al. 2020; see :mod:`xprobe.probe.robustness`);
* for layer-wise encoders (records with ``layer``; each layer is its own row ``ENC@L<n>`` in
  the tables above): accuracy-by-layer curves, layer x task heatmaps relative to the reference
  language and the best layer per task and language (:mod:`xprobe.report.layers`);
* ``report.md``: all tables in one Markdown file, with links to the figures.

XNLI files: JSON ``{"LANG": {"ENCODER": acc}}`` or a list of ``{"language", "encoder",
"accuracy"}`` objects, or a TSV/CSV with columns language, encoder, accuracy (header optional).

Example::

    write_report(read_records("results/all.jsonl"), "report/", reference="en", xnli="xnli.json")
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.errors import InputError, XProbeError
from xprobe.files import atomic_write
from xprobe.report.layers import write_layer_report

__all__ = ["Cell", "aggregate", "load_xnli", "table1", "table4", "write_report"]

# SentEval order of the X-Probe tasks; unknown tasks follow alphabetically.
TASK_ORDER = (
    "SentLen", "WC", "TreeDepth", "BShift", "Tense", "SubjNum", "ObjNum", "SOMO", "CoordInv",
)  # fmt: skip

Cell = tuple[float, float, int]  # mean, std, n seeds


def aggregate(records: Iterable[dict[str, Any]]) -> dict[tuple, Cell]:
    """(dataset, classifier, language, encoder, task) -> (mean, std, n) of test accuracy.

    Baseline records are keyed with encoder = the baseline name and classifier = ``baseline``.
    """
    vals: dict[tuple, list[float]] = defaultdict(list)
    for r in records:
        if r["split"] != "test" or r["metric"] != "accuracy":
            continue
        if r["encoder"] == "baseline":
            key = (r["dataset"], "baseline", r["language"], r["classifier"], r["task"])
        else:
            enc = r["encoder"] if r.get("layer") is None else f"{r['encoder']}@L{r['layer']}"
            key = (r["dataset"], r["classifier"], r["language"], enc, r["task"])
        vals[key].append(float(r["value"]))
    return {k: (float(np.mean(v)), float(np.std(v)), len(v)) for k, v in vals.items()}


def _tasks(cells: Iterable[tuple]) -> list[str]:
    found = {k[4] for k in cells}
    return [t for t in TASK_ORDER if t in found] + sorted(found - set(TASK_ORDER))


def _fmt(cell: Cell | None) -> str:
    if cell is None:
        return ""
    mean, std, n = cell
    return f"{100 * mean:.1f}" + (f" ± {100 * std:.1f}" if n > 1 else "")


def table4(agg: dict[tuple, Cell], dataset: str, classifier: str, lang: str):
    """Rows (baselines, then encoders) x task columns of one language: header, rows of cells."""
    tasks = _tasks(k for k in agg if k[0] == dataset)
    keys = [k for k in agg if k[0] == dataset and k[2] == lang]
    from xprobe.probe.baselines import BASELINES

    found = {k[3] for k in keys if k[1] == "baseline"}
    base = [b for b in BASELINES if b in found] + sorted(found - set(BASELINES))
    encs = sorted({k[3] for k in keys if k[1] == classifier})
    rows = [(b, [agg.get((dataset, "baseline", lang, b, t)) for t in tasks]) for b in base]
    rows += [(e, [agg.get((dataset, classifier, lang, e, t)) for t in tasks]) for e in encs]
    return tasks, rows


def table1(agg: dict[tuple, Cell], dataset: str, classifier: str):
    """Per task: mean and std across languages and encoders (rows: task, mean, std, n)."""
    tasks = _tasks(k for k in agg if k[0] == dataset and k[1] == classifier)
    out = []
    for t in tasks:
        v = [c[0] for k, c in agg.items() if k[:2] == (dataset, classifier) and k[4] == t]
        out.append((t, float(np.mean(v)), float(np.std(v)), len(v)))
    return out


def _md(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _write_table(out: Path, stem: str, header: list[str], rows: list[list[str]]) -> str:
    md = _md(header, rows)
    with atomic_write(out / f"{stem}.md") as f:
        f.write(md)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    with atomic_write(out / f"{stem}.csv") as f:
        f.write(buf.getvalue())
    return md


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-." else "_" for ch in text)


def load_xnli(path: str | os.PathLike[str]) -> dict[tuple[str, str], float]:
    """(language, encoder) -> XNLI accuracy, from JSON or TSV/CSV (see module docstring)."""
    p = Path(path)
    if not p.is_file():
        raise XProbeError(f"{p}: XNLI file not found")
    text = p.read_text(encoding="utf-8")
    out: dict[tuple[str, str], float] = {}
    if p.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(str(p), e.lineno, f"not JSON ({e.msg})") from None
        if isinstance(data, dict):
            for lang, encs in data.items():
                if not isinstance(encs, dict):
                    raise InputError(str(p), None, f"{lang}: expected an encoder -> accuracy map")
                out.update({(lang, e): float(a) for e, a in encs.items()})
        else:
            for i, item in enumerate(data):
                try:
                    out[(item["language"], item["encoder"])] = float(item["accuracy"])
                except (KeyError, TypeError, ValueError):
                    raise InputError(str(p), None, f"item {i}: needs language, encoder, "
                                     "accuracy") from None  # fmt: skip
        return out
    delim = "\t" if "\t" in text else ","
    for lineno, row in enumerate(csv.reader(io.StringIO(text), delimiter=delim), 1):
        if not row or not "".join(row).strip():
            continue
        if len(row) < 3:
            raise InputError(str(p), lineno, "expected language, encoder, accuracy")
        try:
            out[(row[0].strip(), row[1].strip())] = float(row[2])
        except ValueError:
            if lineno == 1:
                continue  # header
            raise InputError(str(p), lineno, f"accuracy must be a number, not {row[2]!r}") from None
    return out


def write_report(
    records: Iterable[dict[str, Any]],
    out_dir: str | os.PathLike[str],
    reference: str = "en",
    xnli: str | os.PathLike[str] | None = None,
) -> list[Path]:
    """Write every table and figure for ``records`` into ``out_dir``; return the paths written."""
    from xprobe.report import plots

    records = list(records)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    agg = aggregate(records)
    if not agg:
        raise XProbeError("no test-split accuracy records to report")
    written: list[Path] = []
    sections = ["# Probing report\n"]
    combos = sorted({(k[0], k[1]) for k in agg if k[1] != "baseline"})
    if not combos:  # baselines only
        combos = sorted({(k[0], "baseline") for k in agg})
    for dataset, clf in combos:
        langs = sorted({k[2] for k in agg if k[0] == dataset})
        for lang in langs:
            tasks, rows = table4(agg, dataset, clf, lang)
            stem = _slug(f"table4_{dataset}_{clf}_{lang}")
            body = [[name] + [_fmt(c) for c in cells] for name, cells in rows]
            md = _write_table(out, stem, ["encoder", *tasks], body)
            sections.append(f"## {dataset} / {lang} / {clf}: test accuracy (%)\n\n{md}")
            written += [out / f"{stem}.md", out / f"{stem}.csv"]
            if lang != reference and clf != "baseline":
                written += _relative(agg, out, dataset, clf, lang, reference, sections, plots)
        if clf != "baseline":
            t1 = table1(agg, dataset, clf)
            stem = _slug(f"table1_{dataset}_{clf}")
            body = [[t, f"{m:.3f}", f"{s:.3f}", str(n)] for t, m, s, n in t1]
            md = _write_table(out, stem, ["task", "mean", "std", "n"], body)
            sections.append(f"## {dataset} / {clf}: mean and std across languages and "
                             f"encoders\n\n{md}")  # fmt: skip
            written += [out / f"{stem}.md", out / f"{stem}.csv"]
    written += _datasets_figures(agg, out, reference, sections, plots)
    if xnli is not None:
        written += _xnli(agg, load_xnli(xnli), out, sections, plots)
    written += _stability(records, out, sections)
    written += write_layer_report(records, out, reference, sections)  # records with a layer
    with atomic_write(out / "report.md") as f:
        f.write("\n".join(sections))
    written.append(out / "report.md")
    return written


def _matrix(agg, dataset, clf, lang, encs, tasks) -> np.ndarray:
    return np.array(
        [[agg.get((dataset, clf, lang, e, t), (np.nan,))[0] for t in tasks] for e in encs]
    )


def _relative(agg, out, dataset, clf, lang, ref, sections, plots) -> list[Path]:
    encs = sorted({k[3] for k in agg if k[:3] == (dataset, clf, lang)})
    encs = [e for e in encs if any(k[:4] == (dataset, clf, ref, e) for k in agg)]
    if not encs:
        return []
    tasks = _tasks(k for k in agg if k[:3] in ((dataset, clf, lang), (dataset, clf, ref)))
    diff = _matrix(agg, dataset, clf, lang, encs, tasks) - _matrix(
        agg, dataset, clf, ref, encs, tasks
    )
    png = out / _slug(f"relative_{dataset}_{clf}_{lang}.png")
    plots.heatmap(diff * 100, encs, tasks, png, f"{lang} − {ref} accuracy (points), {clf}",
                  diverging=True)  # fmt: skip
    sections.append(f"![{lang} relative to {ref}]({png.name})\n")
    return [png]


def _datasets_figures(agg, out, ref, sections, plots) -> list[Path]:
    written = []
    datasets = sorted({k[0] for k in agg if k[2] == ref and k[1] != "baseline"})
    for i, a in enumerate(datasets):
        for b in datasets[i + 1 :]:
            for clf in sorted({k[1] for k in agg if k[0] in (a, b) and k[1] != "baseline"}):
                encs = sorted(
                    {k[3] for k in agg if k[:3] == (a, clf, ref)}
                    & {k[3] for k in agg if k[:3] == (b, clf, ref)}
                )
                if not encs:
                    continue
                tasks = _tasks(k for k in agg if k[0] in (a, b) and k[1:3] == (clf, ref))
                ma = _matrix(agg, a, clf, ref, encs, tasks)
                mb = _matrix(agg, b, clf, ref, encs, tasks)
                png = out / _slug(f"datasets_{ref}_{clf}_{a}_vs_{b}.png")
                plots.compare(ma * 100, mb * 100, encs, tasks, (a, b), png)
                sections.append(f"![{a} vs {b} ({ref}, {clf})]({png.name})\n")
                written.append(png)
    return written


def _xnli(agg, xnli, out, sections, plots) -> list[Path]:
    from scipy.stats import spearmanr

    written = []
    for dataset, clf in sorted({(k[0], k[1]) for k in agg if k[1] != "baseline"}):
        langs = sorted({k[2] for k in agg if k[:2] == (dataset, clf)})
        tasks = _tasks(k for k in agg if k[:2] == (dataset, clf))
        rho = np.full((len(langs), len(tasks)), np.nan)
        for i, lang in enumerate(langs):
            for j, t in enumerate(tasks):
                pairs = [
                    (c[0], xnli[(lang, k[3])])
                    for k, c in agg.items()
                    if k[:3] == (dataset, clf, lang) and k[4] == t and (lang, k[3]) in xnli
                ]
                if len(pairs) >= 3:
                    a, b = zip(*pairs, strict=False)
                    if np.ptp(a) > 0 and np.ptp(b) > 0:
                        rho[i, j] = float(spearmanr(a, b)[0])
        if np.all(np.isnan(rho)):
            continue
        stem = _slug(f"xnli_spearman_{dataset}_{clf}")
        body = [[lang] + ["" if np.isnan(v) else f"{v:.2f}" for v in row]
                for lang, row in zip(langs, rho, strict=False)]  # fmt: skip
        md = _write_table(out, stem, ["language", *tasks], body)
        plots.heatmap(rho, langs, tasks, out / f"{stem}.png",
                      f"Spearman ρ: probing vs XNLI accuracy ({clf})", diverging=True,
                      vlim=1.0, fmt="{:.2f}")  # fmt: skip
        sections.append(f"## {dataset} / {clf}: Spearman ρ, probing vs XNLI\n\n{md}\n"
                        f"![xnli]({stem}.png)\n")  # fmt: skip
        written += [out / f"{stem}.md", out / f"{stem}.csv", out / f"{stem}.png"]
    return written


def _stability(records, out, sections) -> list[Path]:
    from xprobe.probe.robustness import stability

    settings = {(r["classifier"], r["max_train"]) for r in records if r["encoder"] != "baseline"}
    if len(settings) < 2:
        return []
    try:
        rep = stability(records)
    except XProbeError:
        return []
    rows = [[c, str(s), f"{v:.2f}"] for (c, s), v in rep.most_stable]
    md = _md(["classifier", "train size", "mu"], rows)
    sz = [[c, str(s), f"{v:.3f}"] for c, d in rep.size_stability.items() for s, v in d.items()]
    md += "\nStability of each size, sim_c(s):\n\n" + _md(["classifier", "size", "sim"], sz)
    cs = [[c, d, f"{v['min']:.3f}", f"{v['avg']:.3f}"] for (c, d), v in rep.classifier_sim.items()]
    md += "\nAgreement between classifiers, sim_cd:\n\n" + _md(["c", "d", "min", "avg"], cs)
    with atomic_write(out / "stability.md") as f:
        f.write(md)
    sections.append(f"## Stability of encoder rankings ({rep.method})\n\n{md}")
    return [out / "stability.md"]

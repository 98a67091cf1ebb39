"""Tables and figures from result records (always built from the records, nothing else).

Records are first grouped into experiments (:mod:`xprobe.report.group`): only seeds are
averaged; any other difference (subsample size, grid, protocol, layer, data) keeps records in
separate cells or tables. ``write_report(records, out_dir)`` writes:

* ``table4_<dataset>_<classifier>_<lang>[_<setting>].{md,csv}``: test accuracy, rows encoders
  (baselines first), columns tasks, a final ``n_test`` row (X-Probe Table 4);
* ``baselines_<dataset>_<lang>.{md,csv}``: majority, length, NB and bag-of-vectors per language;
* ``table1_<dataset>_<classifier>[_<setting>].{md,csv}``: per task, mean (%) and std (points)
  across languages and encoders (X-Probe Table 1; baselines excluded);
* ``relative_<dataset>_<classifier>_<lang>[_<setting>].png``: language minus reference language
  per paired encoder (:mod:`xprobe.report.relative`; X-Probe Figure 4);
* ``datasets_<lang>_<classifier>_<A>_vs_<B>.png``: the reference language on two datasets;
* ``languages_<dataset>_<classifier>_<encoder>.{png,md}``: with three languages or more, test
  accuracy with languages as rows, tasks as columns (:mod:`xprobe.report.languages`);
* with XNLI accuracies: ``xnli_spearman_<dataset>_<classifier>.{md,csv,png}`` (Figure 3);
* ``stability.md`` when a language's records hold >= 2 (classifier, max_train) settings over
  >= 3 encoders (Eger et al. 2020; see :mod:`xprobe.probe.robustness`);
* for layer-wise encoders (records with ``layer``; each layer is its own row ``ENC@L<n>`` in
  the tables above): accuracy-by-layer curves, layer x task heatmaps relative to the reference
  language and the best layer per task and language (:mod:`xprobe.report.layers`);
* ``report.md``: everything in one Markdown file, in the order a reader needs (:class:`Page`):
  the answer (one sentence per comparison with its counts), the figures that show it (the
  relative heatmaps; with three languages or more the languages x tasks heatmap and the
  coverage grid), the tables, the rest, "How to read this report", "Notes on the data" from
  record fields (:mod:`xprobe.report.notes`) and the tasks that do not apply
  (:mod:`xprobe.report.na`).

Example::

    write_report(read_records("results/all.jsonl"), "report/", reference="en", xnli="xnli.json")
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.errors import XProbeError
from xprobe.files import atomic_write
from xprobe.report.answer import no_answer, relative_figures
from xprobe.report.coverage import copy_coverage, coverage_section
from xprobe.report.group import Experiment, group_experiments, setting_label
from xprobe.report.languages import MIN_LANGUAGES, write_language_heatmaps
from xprobe.report.layers import write_layer_report
from xprobe.report.md import escape, escape_records, slug, write_table
from xprobe.report.na import add_na_columns, split_records
from xprobe.report.notes import data_notes
from xprobe.report.page import (
    HOW_TO_READ,
    Page,
    file_stem,
    heading,
    how_to_read,
    multi_settings,
    varying_fields,
)
from xprobe.report.tables import (
    Table,
    baseline_block,
    build_tables,
    order_tasks,
    overlap,
    render,
)
from xprobe.report.xnli import load_xnli

__all__ = ["HOW_TO_READ", "check_reference", "load_xnli", "table1", "write_report"]


def _footnotes(t: Table) -> str:
    exps = t.experiments()
    notes = []
    over = sorted({e.get("task") for e in exps if overlap(e) > 0})
    if over:
        notes.append(f"† test overlaps training: {', '.join(over)}")
    part = sorted({e.get("task") for e in exps if e.get("partial")})
    if part:
        notes.append(f"* partially filled (manifest): {', '.join(part)}")
    one = sorted({e.get("task") for e in exps if e.get("one_class")})
    if one:
        notes.append(f"§ a test or validation split holds one class only: {', '.join(one)} "
                     "(see Notes on the data)")  # fmt: skip
    if any(len(c) > 1 for _, cells in t.rows for c in cells):
        notes.append("‡ two experiments on different data (dataset_hash) in one cell")
    return "".join(f"\n{n}\n" for n in notes)


def table1(tables: list[Table], dataset: str, classifier: str, setting_key: str):
    """Per task: mean and std across languages and encoders (rows: task, mean, std, n)."""
    tabs = [t for t in tables if (t.dataset, t.classifier) == (dataset, classifier)
            and t.setting_key() == setting_key]  # fmt: skip
    tasks = order_tasks({task for t in tabs for task in t.tasks})
    out = []
    for task in tasks:
        v = [e.mean for t in tabs if task in t.tasks
             for _, cells in t.rows[len(t.rows) - len(t.encoder_rows):]
             for e in cells[t.tasks.index(task)]]  # fmt: skip
        if v:
            out.append((task, float(np.mean(v)), float(np.std(v)), len(v)))
    return out


def check_reference(records: list[dict[str, Any]], reference: str, what: str) -> None:
    """An :class:`XProbeError` when no record has language ``reference``: every relative figure
    would be left out. ``what`` names the setting in the message."""
    langs = sorted({str(r.get("language")) for r in records})
    if reference not in langs:
        raise XProbeError(
            f"{what} {reference}: no record has language {reference!r}, so no relative figure "
            f"could be drawn; languages in the records: {', '.join(langs) or 'none'}"
        )


def write_report(
    records: Iterable[dict[str, Any]],
    out_dir: str | os.PathLike[str],
    reference: str = "en",
    xnli: str | os.PathLike[str] | None = None,
    coverage: str | os.PathLike[str] | None = None,
    pairs: str | os.PathLike[str] | None = None,
) -> list[Path]:
    """Write every table and figure for ``records`` into ``out_dir``; return the paths written.
    Records of two or more languages, none of them ``reference``, are an error. ``coverage``:
    a ``coverage.json`` (:mod:`xprobe.report.coverage`) whose grid the report opens with;
    ``pairs``: ``xprobe score``'s records, set beside the probes (:mod:`xprobe.report.pairs`)."""
    records = list(records)
    raw = records
    if len({r.get("language") for r in records}) > 1:
        check_reference(records, reference, "reference language")
    # names are text: escaped once here for every table, heading and note (CSV: unescaped)
    records, na = split_records(escape_records(records))
    reference = escape(reference)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    from xprobe.report.stats import Stats

    exps = group_experiments(records)
    tables = build_tables(exps)
    stats = Stats()
    if not tables:
        raise XProbeError("no test-split accuracy records to report")
    page = Page(varying=varying_fields(tables))
    many = len({t.language for t in tables}) >= MIN_LANGUAGES
    written: list[Path] = []
    written += write_language_heatmaps(exps, out, page.first, na, stats)  # >= 3 languages
    if coverage is not None:  # after the first grid: the encoder's, then the coverage
        page.first.insert(min(1, len(page.first)), coverage_section(coverage, na))
        written += copy_coverage(coverage, out)
    written += _main_tables(tables, out, page, stats, na)
    written += _baselines(exps, out, page.tables, stats, na)
    written += relative_figures(tables, out, reference, page, stats, many, na)
    written += _table1_all(tables, out, page.more, page.varying)
    written += _datasets_figures(tables, out, reference, page.more)
    if xnli is not None:
        acc = {(escape(lang), escape(enc)): v for (lang, enc), v in load_xnli(xnli).items()}
        written += _xnli(tables, acc, out, page.more)
    written += _stability(records, out, page.more)
    written += write_layer_report(records, out, reference, page.more)  # records with a layer
    if pairs is not None:
        from xprobe.report.pairs import pairs_section, read_pair_records

        lines, files = pairs_section(read_pair_records(pairs), raw, out, reference)
        page.more += lines
        written += files
    title = "# Probing report: " + ", ".join(sorted({t.dataset for t in tables})) + "\n"
    answer = "\n\n".join(page.answer) or no_answer(tables, reference)
    sections = [title, answer + "\n", *page.first, *page.tables, *page.more,
                how_to_read(tables, page), *data_notes(records), *na.section()]  # fmt: skip
    with atomic_write(out / "report.md") as f:
        f.write("\n".join(sections))
    written.append(out / "report.md")
    return written


def _main_tables(tables: list[Table], out: Path, page: Page, stats, na) -> list[Path]:
    from xprobe.report.compare import separability
    from xprobe.report.mdl_md import mdl_markdown
    from xprobe.report.selectivity import selectivity_markdown

    multi = multi_settings(tables)
    written = []
    for t in tables:
        stem = file_stem("table4", t, multi, t.language)
        header, body = add_na_columns(t, *render(t, stats), na)
        md = write_table(out, stem, header, body)
        sep = separability(t, stats) + selectivity_markdown(t, stats) + mdl_markdown(t, stats)
        head = heading(page, t, ": test accuracy (%)")
        page.tables.append(f"{head}{md}{_footnotes(t)}{sep}")
        written += [out / f"{stem}.md", out / f"{stem}.csv"]
    return written


def _baselines(exps: list[Experiment], out: Path, sections: list[str], stats, na) -> list[Path]:
    written = []
    pairs = sorted({(e.get("dataset"), e.get("language")) for e in exps})
    for ds, lang in pairs:
        t = baseline_block(exps, ds, lang)
        if t is None:
            sections.append(f"## {lang}: baselines ({ds})\n\nNo baseline or bag-of-vectors "
                            "records for this language (run `xprobe probe --classifier majority "
                            "length nb-unigram`).\n")  # fmt: skip
            continue
        stem = slug(f"baselines_{ds}_{lang}")
        header, body = add_na_columns(t, *render(t, stats), na)
        md = write_table(out, stem, header, body)
        sections.append(f"## {lang}: baselines ({ds})\n\n{md}{_footnotes(t)}")
        written += [out / f"{stem}.md", out / f"{stem}.csv"]
    return written


def _cell_mean(cell: list[Experiment]) -> float:
    return cell[0].mean if len(cell) == 1 else np.nan


def _table1_all(tables, out, sections, varying: list[str]) -> list[Path]:
    multi = multi_settings(tables)
    written = []
    done = set()
    for t in tables:
        key = (t.dataset, t.classifier, t.setting_key())
        if t.classifier == "baseline" or key in done:
            continue
        done.add(key)
        rows = table1(tables, *key)
        stem = file_stem("table1", t, multi)
        body = [[task, f"{100 * m:.1f}", f"{100 * s:.1f}" if n > 1 else "", str(n)]
                for task, m, s, n in rows]  # fmt: skip
        md = write_table(out, stem, ["task", "mean (%)", "std (points)", "n"], body)
        s = setting_label({k: t.setting.get(k) for k in varying if k in t.setting})
        sections.append(f"## {t.dataset} / {t.classifier}: mean and std across languages and "
                        f"encoders\n\n{f'Setting: {s}.' if s else ''}\n\n{md}")  # fmt: skip
        written += [out / f"{stem}.md", out / f"{stem}.csv"]
    return written


def _matrix(t: Table, names: list[str], tasks: list[str]) -> np.ndarray:
    nb = len(t.rows) - len(t.encoder_rows)
    idx = {name: nb + i for i, (name, _) in enumerate(t.encoder_rows)}
    return np.array([[_cell_mean(t.rows[idx[e]][1][t.tasks.index(x)]) if x in t.tasks else np.nan
                      for x in tasks] for e in names])  # fmt: skip


def _datasets_figures(tables, out, ref, sections) -> list[Path]:
    from xprobe.report import plots

    written = []
    refs = [t for t in tables if t.language == ref and t.classifier != "baseline"]
    for i, a in enumerate(refs):
        for b in refs[i + 1 :]:
            if a.dataset == b.dataset or (a.classifier, a.setting_key()) != (
                b.classifier, b.setting_key()):  # fmt: skip
                continue
            a, b = sorted((a, b), key=lambda x: x.dataset)
            encs = sorted({n for n, _ in a.encoder_rows} & {n for n, _ in b.encoder_rows})
            if not encs:
                continue
            tasks = order_tasks(set(a.tasks) | set(b.tasks))
            ma, mb = _matrix(a, encs, tasks), _matrix(b, encs, tasks)
            png = out / slug(f"datasets_{ref}_{a.classifier}_{a.dataset}_vs_{b.dataset}.png")
            plots.compare(ma * 100, mb * 100, encs, tasks, (a.dataset, b.dataset), png)
            sections.append(f"![{a.dataset} vs {b.dataset} ({ref}, {a.classifier})]({png.name})\n")
            written.append(png)
    return written


def _xnli(tables, xnli, out, sections) -> list[Path]:
    from xprobe.report import plots
    from xprobe.report.xnli import spearman_grid

    written = []
    multi = multi_settings(tables)
    for tabs, langs, tasks, rho, reasons in spearman_grid(tables, xnli):
        t = tabs[0]
        head = f"## {t.dataset} / {t.classifier}: Spearman ρ, probing vs XNLI\n\n"
        why = "".join(f"\n* {lang}: {r}" for lang, r in sorted(reasons.items()))
        if np.all(np.isnan(rho)):
            sections.append(head + f"No figure: no language has a correlation.{why}\n")
            continue
        stem = file_stem("xnli_spearman", t, multi)
        body = [[lang] + ["" if np.isnan(v) else f"{v:.2f}" for v in row]
                for lang, row in zip(langs, rho, strict=True)]  # fmt: skip
        md = write_table(out, stem, ["language", *tasks], body)
        plots.heatmap(rho, langs, tasks, out / f"{stem}.png",
                      f"Spearman ρ: probing vs XNLI accuracy ({t.classifier})", diverging=True,
                      vlim=1.0, fmt="{:.2f}")  # fmt: skip
        gaps = f"\nEmpty cells:{why}\n" if why else ""
        sections.append(head + f"{md}{gaps}\n![xnli]({stem}.png)\n")
        written += [out / f"{stem}.md", out / f"{stem}.csv", out / f"{stem}.png"]
    return written


def _stability(records, out, sections) -> list[Path]:
    from xprobe.report.stability_md import stability_markdown

    md = stability_markdown(records)
    if md is None:
        return []
    with atomic_write(out / "stability.md") as f:
        f.write(md)
    sections.append("\n".join("#" + ln if ln.startswith("#") else ln for ln in md.splitlines()))
    return [out / "stability.md"]

"""The report stage: result records -> tables and heatmaps, relative to English.

Reads the JSONL records that :mod:`xprobe.probe` writes (and optionally XNLI accuracies and a
coverage grid); writes Markdown and CSV tables, PNG figures and report.md into one folder, the
answer first. Records -> experiments (:mod:`~xprobe.report.group`) -> tables of cells
(:mod:`~xprobe.report.tables`, differences: :mod:`~xprobe.report.compare`, n/a:
:mod:`~xprobe.report.na`) -> Markdown and CSV from the same cells (:mod:`~xprobe.report.md`),
HTML from the Markdown (:mod:`~xprobe.report.html`); :mod:`~xprobe.report.page` orders the
page, :mod:`~xprobe.report.answer` writes its answer, :mod:`~xprobe.report.plots` draws.

Entry point: :func:`write_report`.
"""

from xprobe.report.build import write_report

__all__ = ["write_report"]

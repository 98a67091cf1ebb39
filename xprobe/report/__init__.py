"""The report stage: result records -> tables and heatmaps, relative to English.

Reads the JSONL records that :mod:`xprobe.probe` writes (and optionally XNLI accuracies);
writes Markdown tables and PNG figures into one folder. :mod:`~xprobe.report.build` aggregates
and writes the tables, :mod:`~xprobe.report.plots` draws.

Entry point: :func:`write_report`.
"""

from xprobe.report.build import write_report

__all__ = ["write_report"]

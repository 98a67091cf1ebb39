"""The end-to-end demo: every stage on the generated bilingual sample (``xprobe demo``).

Reads nothing; writes ``OUT/{sample,models,corpus,probing,vectors,results,report}``.
:mod:`~xprobe.demo.runner` runs ordered, resumable stages; :mod:`~xprobe.demo.stages` defines
them over the CLI; :mod:`~xprobe.demo.run` ties them together.

Entry point: :func:`run_demo`.
"""

from xprobe.demo.run import run_demo

__all__ = ["run_demo"]

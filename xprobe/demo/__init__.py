"""The end-to-end demo: every stage on the generated bilingual sample (``xprobe demo``).

Reads nothing; writes ``OUT/{sample,models,corpus,probing,vectors,results,report}``. The demo is
the study ``studies/sample.toml`` (:mod:`xprobe.study`), run by :func:`run_demo`, which adds a
summary of where everything is and the headline scores.
"""

from xprobe.demo.run import run_demo

__all__ = ["run_demo"]

"""Studies: one TOML file runs the whole benchmark (``xprobe run STUDY.toml --out DIR``).

Reads a study file (``studies/*.toml``; keys in ``docs/studies.md``); writes everything the
stages write under ``DIR`` (``sample/``, ``models/``, ``corpus/``, ``probing/``, ``vectors/``,
``results/``, ``report/``) and its bookkeeping in ``DIR/.study/``. :mod:`~xprobe.study.schema`
validates the file, :mod:`~xprobe.study.build` and :mod:`~xprobe.study.steps` turn it into steps
(:mod:`~xprobe.study.language`: the one place a language becomes corpus and extract steps),
:mod:`~xprobe.study.state` fingerprints them and decides what is done, :mod:`~xprobe.study.engine`
runs the rest as a Dask graph, under :mod:`~xprobe.study.lock` (one run at a time per ``DIR``).

Entry points: :func:`load_study`, :func:`make_plan`, :func:`run_study`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xprobe.resources import data_dir
from xprobe.study.build import Study, load_study
from xprobe.study.engine import run_plan
from xprobe.study.lock import study_lock
from xprobe.study.state import Plan, Step, make_plan

__all__ = ["STUDIES_DIR", "Plan", "Step", "Study", "load_study", "make_plan", "run_study"]

STUDIES_DIR = data_dir("studies").path  # the checkout's studies/, or the wheel's copy


def run_study(
    path: Path,
    out: Path,
    variant: str | None = None,
    overrides: dict[str, Any] | None = None,
    jobs: int = 0,
    scheduler: str | None = None,
) -> dict[str, float]:
    """Validate, plan and run (or resume) the study ``path`` under ``out``; returns the seconds
    of each step run and ``total``. ``jobs``: steps at once locally (0: one per core)."""
    study = load_study(path, out, variant, overrides, scheduler)
    with study_lock(study.out):  # one run at a time per output folder
        plan = make_plan(study.steps, study.out)
        return run_plan(plan, jobs, scheduler, study.data["study"]["threads"])

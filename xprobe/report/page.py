"""The page a report is: its parts in the order a reader needs them, headings, settings.

:class:`Page` gathers report.md's sections: the answer (one sentence per comparison), the
figures that show it, the tables, the rest; "How to read this report" (:data:`HOW_TO_READ`,
with the settings every table shares) comes after them. A heading carries the comparison
(:func:`heading`: ``de relative to en (sample, mlp)``); only the setting fields that differ
between the tables of the page (:func:`varying_fields`) go on a line under it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xprobe.report.group import setting_label
from xprobe.report.md import slug
from xprobe.report.stats import MIN_TEST
from xprobe.report.tables import Table

__all__ = [
    "HOW_TO_READ",
    "Page",
    "file_stem",
    "heading",
    "how_to_read",
    "multi_settings",
    "varying_fields",
]  # fmt: skip

HOW_TO_READ = f"""\
## How to read this report

* Every number is a test accuracy in %, the mean over seeds of one experiment. Records are
  averaged only over seeds: runs that differ in anything else (training subsample `max_train`,
  grid, protocol, layer, data) appear in separate tables; the setting that differs between
  tables is stated under each heading.
* `[lo, hi]` is a 95% bootstrap interval over the test items (seeds combined); `(b)` after it
  marks a binomial (Wilson) interval for records without per-item correctness; `(e)` an exact
  method, used where a cell (or either side of a difference) has
  fewer than {MIN_TEST} test items, where the normal approximation and the bootstrap fail:
  Clopper-Pearson for an accuracy, Newcombe's score interval with Fisher's exact test for a
  difference between languages, the sign test for one on the same items; such intervals stay
  within 0-100 (differences within ±100). `± s (k seeds)` is the standard deviation over k
  seeds (shown only when k > 1). The `n_test` row gives the number of test items behind each
  column. Under `protocol=cv:K` (the settings) every line of a task is a test item once,
  scored by a probe trained and selected on other folds (docs/probing.md,
  "Cross-validation"): `n_test` is all of the task's lines.
* "Ranks per task" chains encoders best first: `>` where the adjacent difference is
  significant (paired test on the same test items), `≈` where it is not.
* Relative figures: differences not significant after Holm's correction over the figure's
  cells are grey (and marked `ns` in the table below the figure); the number of comparisons
  is stated. The printed intervals are per comparison (not adjusted), so a cell can show an
  interval that excludes 0 and still be `ns`: the mark is the corrected verdict.
* Marks: `†` the test split overlapped training, `*` the task was only partly filled by
  extract (manifest), `‡` one cell holds two experiments on different data (shown side by side),
  `§` the test or validation split holds one class only (probed with `--allow-one-class`): the
  accuracy says only how often the probe predicts that class.
* Relative figures subtract the reference language's accuracy from a language's, per encoder
  pair: a mapped encoder is paired with the encoder it was mapped from (checkpoint metadata),
  other encoders by name, and a bag of vectors over each language's own vectors (`bov-en`,
  `bov-fi`) by kind (same pooling and casing); what could not be paired is listed. A cell
  marked `°` has a side that does not beat its language's majority baseline (the lower end of
  the probe's 95% interval is at or below the baseline): never counted as significant.
* Selectivity (probes run with `--control`) is accuracy minus the accuracy of the same probe on
  a control task whose labels carry no linguistic information (a seeded function of the lexical
  key, or shuffled labels): what the representation, not the probe, contributes. Rows named
  `random-ARCH-...` are untrained encoders: the control for a trained encoder of that
  architecture.
* MDL (probes run with `--classifier mdl-mlp`): the online codelength of the training labels
  given the representation (Voita & Titov 2020) and its compression against the uniform code;
  1.0 means nothing was learnable, higher means the labels are easier to extract.
* Compare an encoder with the baselines of its language (majority, length, naive Bayes,
  bag of vectors) before reading anything into its number.
"""


@dataclass
class Page:
    """report.md in the order a reader needs it: the answer (one sentence per comparison), the
    figures that show it, the tables, then the rest ("How to read" after)."""

    answer: list[str] = field(default_factory=list)
    first: list[str] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    more: list[str] = field(default_factory=list)
    varying: list[str] = field(default_factory=list)  # setting fields that differ among tables


def file_stem(prefix: str, t: Table, varying: dict, *parts: str) -> str:
    """File stem; where a dataset/classifier was run in several settings, the setting fields
    that vary among them are added (``table4_xprobe_mlp_en_max_train-2000``)."""
    s = f"{prefix}_{t.dataset}_{t.classifier}" + "".join(f"_{p}" for p in parts)
    keys = varying.get((t.dataset, t.classifier), ())
    if keys:
        sub = {k: t.setting.get(k) for k in keys}
        s += "_" + setting_label(sub).replace(", ", "_").replace("=", "-")
    return slug(s)


def heading(page: Page, t: Table, what: str) -> str:
    """``## de: test accuracy (%) (sample, mlp)`` and, under it, the setting fields that differ
    between the tables of the page (the rest is said once, in "How to read")."""
    sub = {k: t.setting.get(k) for k in page.varying if k in t.setting}
    line = f"Setting: {setting_label(sub)}.\n\n" if sub else ""
    return f"## {t.language}{what} ({t.dataset}, {t.classifier})\n\n{line}"


def how_to_read(tables: list[Table], page: Page) -> str:
    enc = [t for t in tables if t.classifier != "baseline"] or tables
    common = {k: v for k, v in (enc[0].setting if enc else {}).items() if k not in page.varying}
    said = f"* Settings of every table: {setting_label(common)}.\n" if common else ""
    return HOW_TO_READ.replace("\n\n", "\n\n" + said, 1)


def varying_fields(tables: list[Table], baselines: bool = False) -> list[str]:
    """The setting fields whose values differ among the (encoder) tables."""
    settings = [t.setting for t in tables if baselines or t.classifier != "baseline"]
    names = sorted({f for s in settings for f in s})
    return [f for f in names if len({str(s.get(f)) for s in settings}) > 1]


def multi_settings(tables: list[Table]) -> dict[tuple[str, str], list[str]]:
    """(dataset, classifier) -> the setting fields whose values differ among its tables."""
    seen: dict[tuple[str, str], list[Table]] = {}
    for t in tables:
        seen.setdefault((t.dataset, t.classifier), []).append(t)
    return {k: varying_fields(ts, baselines=True) for k, ts in seen.items()}

"""Tables of experiments: one per (dataset, classifier, language, setting), never pooled.

A :class:`Table` has task columns and one row per encoder (``encoder`` + ``encoder_id``; two
encoders with one name but different weights get separate rows), baselines first. Each cell holds
the experiments that fill it: normally one; two when the same encoder and task were measured on
different data (different ``dataset_hash``), shown side by side and flagged, never averaged.

Example::

    tabs = build_tables(group_experiments(records))
    tabs[0].title(), tabs[0].tasks, [label for label, _ in tabs[0].rows]
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from xprobe.report.group import Experiment, setting_label

__all__ = [
    "TASK_ORDER",
    "Table",
    "baseline_block",
    "build_tables",
    "fmt_cell",
    "order_tasks",
    "render",
    "row_name",
]

# SentEval order of the X-Probe tasks; unknown tasks follow alphabetically.
TASK_ORDER = (
    "SentLen", "WC", "TreeDepth", "BShift", "Tense", "SubjNum", "ObjNum", "SOMO", "CoordInv",
)  # fmt: skip
# Baselines are matched to an encoder table on these setting fields only.
BASELINE_SETTING = ("max_train", "protocol")


def order_tasks(found: set[str]) -> list[str]:
    return [t for t in TASK_ORDER if t in found] + sorted(found - set(TASK_ORDER))


@dataclass
class Table:
    """Rows of cells (each a list of experiments) for one dataset/classifier/language/setting."""

    dataset: str
    classifier: str
    language: str
    setting: dict[str, Any]
    tasks: list[str]
    rows: list[tuple[str, list[list[Experiment]]]] = field(default_factory=list)
    encoder_rows: list[tuple[str, str]] = field(default_factory=list)  # (encoder, encoder_id)

    def title(self) -> str:
        s = setting_label(self.setting)
        return f"{self.dataset} / {self.language} / {self.classifier}" + (f" ({s})" if s else "")

    def setting_key(self) -> str:
        return json.dumps(self.setting, sort_keys=True, default=str)

    def experiments(self) -> list[Experiment]:
        return [e for _, cells in self.rows for cell in cells for e in cell]


def row_name(e: Experiment) -> str:
    """An encoder row's name: the encoder, with ``@L<n>`` for one layer of a layer-wise one."""
    layer = e.get("layer")
    return str(e.get("encoder")) if layer is None else f"{e.get('encoder')}@L{layer}"


def overlap(e: Experiment) -> int:
    """Test items that overlapped training (removed or not), from whichever field says so."""
    removed = e.get("overlap_removed")
    n = int(removed.get("te", 0)) if isinstance(removed, dict) else 0
    return n + int(e.get("test_overlap_removed") or 0) + int(e.get("test_overlap") or 0)


def _flags(e: Experiment) -> str:
    out = ""
    if overlap(e) > 0:
        out += "†"
    if e.get("partial"):
        out += "*"
    if e.get("one_class"):
        out += "§"
    return out


def fmt_cell(cell: Sequence[Experiment], stats: Any = None) -> str:
    """``61.2 ± 0.4 (3 seeds)``; one seed: ``61.2``; two experiments in one cell (different data):
    both, separated by `` ‖ `` and marked ``‡``. ``stats`` (optional) adds an interval."""
    parts = []
    for e in cell:
        txt = f"{100 * e.mean:.1f}"
        if stats is not None:
            txt += stats.interval_text(e)
        if e.std is not None:
            txt += f" ± {100 * e.std:.1f} ({e.n} seeds)"
        parts.append(txt + _flags(e))
    text = " ‖ ".join(parts)
    return text + (" ‡" if len(cell) > 1 else "")


def _n_test(cells: Sequence[Sequence[Experiment]]) -> str:
    found = sorted({int(e.get("n_test", 0)) for cell in cells for e in cell})
    return "/".join(str(n) for n in found)


def render(table: Table, stats: Any = None) -> tuple[list[str], list[list[str]]]:
    """Header and rows of strings, with a final ``n_test`` row (test items per task)."""
    header = ["encoder", *table.tasks]
    body = [[label] + [fmt_cell(c, stats) for c in cells] for label, cells in table.rows]
    cols = list(zip(*(cells for _, cells in table.rows), strict=True)) if table.rows else []
    body.append(["n_test"] + [_n_test(col) for col in cols])
    return header, body


def _setting_key(setting: dict[str, Any], only: Sequence[str] | None = None) -> str:
    if only is not None:
        setting = {k: setting.get(k) for k in only}
    return json.dumps(setting, sort_keys=True, default=str)


def _row_labels(ids: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    names = defaultdict(list)
    for enc, eid in ids:
        names[enc].append(eid)
    return {(enc, eid): enc if len(names[enc]) == 1 else f"{enc} [{eid[-8:]}]" for enc, eid in ids}


def _fill(keys: list[tuple[str, str]], exps: list[Experiment], tasks: list[str], key_of):
    cells: dict[tuple, list[Experiment]] = defaultdict(list)
    for e in exps:
        cells[(key_of(e), e.get("task"))].append(e)
    return [[cells.get((k, t), []) for t in tasks] for k in keys]


def build_tables(exps: list[Experiment]) -> list[Table]:
    """Test-accuracy tables: encoders per (dataset, classifier, language, setting), with the
    baselines of that dataset and language whose max_train and protocol match; baselines alone
    where a language has no encoder records."""
    test = [e for e in exps if e.get("split") == "test" and e.get("metric") == "accuracy"]
    encs = [e for e in test if e.get("encoder") != "baseline"]
    bases = [e for e in test if e.get("encoder") == "baseline"]
    groups: dict[tuple, list[Experiment]] = defaultdict(list)
    for e in encs:
        key = (e.get("dataset"), e.get("classifier"), e.get("language"), _setting_key(e.setting))
        groups[key].append(e)
    tables = []
    covered = set()
    for (ds, clf, lang, _skey), members in sorted(groups.items(), key=lambda kv: kv[0]):
        setting = members[0].setting
        bkey = _setting_key(setting, BASELINE_SETTING)
        bs = [
            b for b in bases if (b.get("dataset"), b.get("language")) == (ds, lang)
            and _setting_key(b.setting, BASELINE_SETTING) == bkey
        ]  # fmt: skip
        covered.update(id(b) for b in bs)
        tables.append(_table(ds, clf, lang, setting, members, bs))
    rest: dict[tuple, list[Experiment]] = defaultdict(list)
    for b in bases:
        if id(b) not in covered:
            rest[(b.get("dataset"), b.get("language"), _setting_key(b.setting))].append(b)
    for (ds, lang, _), bs in sorted(rest.items(), key=lambda kv: kv[0]):
        tables.append(_table(ds, "baseline", lang, bs[0].setting, [], bs))
    return tables


def _table(ds, clf, lang, setting, members, bases) -> Table:
    from xprobe.probe.baselines import BASELINES

    tasks = order_tasks({e.get("task") for e in [*members, *bases]})
    found = {b.get("classifier") for b in bases}
    bnames = [b for b in BASELINES if b in found] + sorted(found - set(BASELINES))
    rows = list(zip(bnames, _fill(bnames, bases, tasks, lambda e: e.get("classifier")),
                    strict=True))  # fmt: skip
    ids = sorted({(row_name(e), e.get("encoder_id")) for e in members})
    labels = _row_labels(ids)
    filled = _fill(ids, members, tasks, lambda e: (row_name(e), e.get("encoder_id")))
    rows += [(labels[k], cells) for k, cells in zip(ids, filled, strict=True)]
    return Table(ds, clf, lang, setting, tasks, rows, ids)


def is_bag_of_vectors(e: Experiment) -> bool:
    return str(e.get("encoder_id", "")).startswith(("bov", "pmeans")) or str(
        e.get("encoder", "")
    ).startswith(("bov", "pmeans"))


def baseline_block(exps: list[Experiment], dataset: str, lang: str) -> Table | None:
    """Every baseline of one dataset and language (majority, length, NB; each setting a row)
    and every bag-of-vectors encoder (one row per classifier and setting)."""
    test = [
        e for e in exps if e.get("split") == "test" and e.get("metric") == "accuracy"
        and (e.get("dataset"), e.get("language")) == (dataset, lang)
    ]  # fmt: skip
    chosen = [e for e in test if e.get("encoder") == "baseline" or is_bag_of_vectors(e)]
    if not chosen:
        return None

    def _plain(e: Experiment) -> dict[str, Any]:
        return {k: v for k, v in e.setting.items() if k != "grid"}

    plain = [_plain(e) for e in chosen]
    varying = [k for k in sorted({k for p in plain for k in p})
               if len({_setting_key({k: p[k]}) for p in plain if k in p}) > 1]  # fmt: skip

    def label(e: Experiment) -> str:
        name = e.get("classifier") if e.get("encoder") == "baseline" else (
            f"{e.get('encoder')} ({e.get('classifier')})")  # fmt: skip
        s = setting_label({k: v for k, v in _plain(e).items() if k in varying})
        return f"{name} [{s}]" if s else name

    tasks = order_tasks({e.get("task") for e in chosen})
    names = list(dict.fromkeys(label(e) for e in chosen))
    rows = list(zip(names, _fill(names, chosen, tasks, label), strict=True))
    return Table(dataset, "baselines", lang, {}, tasks, rows)

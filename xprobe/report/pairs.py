"""Behaviour beside representation: the minimal pairs' scores (``xprobe score``) next to the
probe's verdicts on the same items.

Per language and phenomenon: how often each language model prefers the grammatical side (summed
log-probability; a tie counts half) with its 95 % Wilson interval, the bigram and length
controls, and each probe's accuracy on the same items (the perturbed lines the pairs come from,
read from the probe record's per-item verdicts: every line under ``cv:K``, the test lines
otherwise; a layer-wise encoder at the layer its validation accuracy picks). The verdict column
says, per model, whether the phenomenon is **encoded** (a probe beats its task's majority
baseline: the lower end of its 95 % interval above it) and **used** (the model prefers the
grammatical side above chance: exact sign test over the untied pairs, Holm-corrected over the
table, alpha 0.05). A layer-wise encoder's accuracy on the items, layer by layer, sits in a
second table beside each model's.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from xprobe.report.md import escape, escape_records, write_table
from xprobe.report.stats import ALPHA, holm, newcombe, sign_test, wilson

__all__ = ["pairs_section", "read_pair_records"]

TASK_OF = {"bigram_shift": "BShift", "odd_man_out": "SOMO", "coordination_inversion": "CoordInv"}


def read_pair_records(path: str | Path) -> list[dict[str, Any]]:
    """The records ``xprobe score`` wrote to ``path``; a line that is not one is an
    :class:`~xprobe.errors.InputError` naming it."""
    from xprobe.errors import InputError
    from xprobe.files import read_lines

    found = []
    for n, line in read_lines(path):
        try:
            r = json.loads(line)
        except ValueError as e:
            raise InputError(str(path), n, f"not a JSON record ({e})") from None
        if not isinstance(r, dict) or r.get("kind") != "pairs" or "phenomenon" not in r:
            raise InputError(str(path), n, "not a minimal-pairs record (`xprobe score`)")
        if "value" in r and not (len(r.get("margin", ())) == len(r.get("correct", ())) == r["n"]):
            raise InputError(str(path), n, "margin, correct and n disagree")
        found.append(r)
    return found


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _cell(value: float, n: int) -> str:
    lo, hi = wilson(value, n)
    return f"{_pct(value)} [{_pct(lo)}, {_pct(hi)}]"


def _probe_items(record: dict[str, Any], pair: dict[str, Any]) -> list[bool] | None:
    """The probe's verdict on each pair item (None: the record does not score them all)."""
    from xprobe.probe.records import unpack_correct

    n = int(record.get("n_test", 0))
    if not n or not isinstance(record.get("correct"), str):
        return None
    correct = unpack_correct(record["correct"], n)
    lines = pair.get("task_lines") or {}
    if str(record.get("protocol", "")).startswith("cv:"):
        offset = 0
    elif lines:
        offset = sum(lines.get(s, 0) for s in ("tr", "va"))
    else:
        return None
    found = []
    for item, where in zip(pair["probe_items"], pair["items"], strict=True):
        k = (item or 0) - 1 - offset
        if offset and not where.startswith("te:"):
            continue
        if not 0 <= k < n:
            return None
        found.append(bool(correct[k]))
    return found


def _encoded(record: dict[str, Any], majority: float | None) -> bool:
    n, v = int(record.get("n_test", 0)), float(record.get("value", 0.0))
    lo, _ = wilson(v, n)
    return bool(n) and lo > (majority if majority is not None else 0.5)


def pairs_section(
    pair_records: list[dict[str, Any]],
    probe_records: list[dict[str, Any]],
    out: Path,
    reference: str = "en",
) -> tuple[list[str], list[Path]]:
    """The report's lines on the minimal pairs, and the tables it wrote into ``out``. Names
    (languages, phenomena, models, encoders) are text: escaped in the Markdown."""
    pair_records, probe_records = escape_records(pair_records), escape_records(probe_records)
    scored = [r for r in pair_records if r.get("kind") == "pairs" and "value" in r]
    sums = [r for r in scored if r.get("normalisation") == "sum"]
    if not sums:
        return [], []
    models = sorted({r["scorer"] for r in sums if r.get("scorer_kind") != "control"})
    controls = [c for c in ("bigram", "length") if any(r["scorer"] == c for r in sums)]
    cells = {(r["language"], r["phenomenon"], r["scorer"]): r for r in sums}
    keys = sorted({(r["language"], r["phenomenon"]) for r in sums})
    probes, layers, majority = _probes(probe_records)
    encoders = sorted({e for (_, _, e) in probes})
    # the sign test of every model cell, Holm over the table
    tests = [(k, m) for k in keys for m in models if (*k, m) in cells]
    pvals = []
    for (lang, ph), m in tests:
        margins = np.array(cells[(lang, ph, m)]["margin"])
        pvals.append(sign_test(margins))
    adjusted = dict(zip(tests, holm(pvals), strict=True))
    header = ["language", "phenomenon", "pairs", *models, *controls, *encoders]
    header += [f"{m}: verdict" for m in models]
    rows = []
    for lang, ph in keys:
        first = cells[next((lang, ph, s) for s in [*models, *controls] if (lang, ph, s) in cells)]
        row = [lang, ph, str(first["n"])]
        for m in models:
            r = cells.get((lang, ph, m))
            star = r is not None and adjusted[((lang, ph), m)] < ALPHA and r["value"] > 0.5
            row.append("—" if r is None else _cell(r["value"], r["n"]) + (" *" if star else ""))
        for c in controls:
            r = cells.get((lang, ph, c))
            row.append("—" if r is None else _cell(r["value"], r["n"]))
        task = TASK_OF.get(ph)
        enc_flags = []
        for e in encoders:
            rec = probes.get((lang, task, e)) if task else None
            items = _probe_items(rec, first) if rec else None
            row.append("—" if not items else f"{_pct(sum(items) / len(items))} (n={len(items)})")
            if rec:
                enc_flags.append(_encoded(rec, majority.get((lang, task))))
        encoded = any(enc_flags) if enc_flags else None
        for m in models:
            r = cells.get((lang, ph, m))
            used = r is not None and adjusted[((lang, ph), m)] < ALPHA and r["value"] > 0.5
            row.append(_verdict(encoded, used))
        rows.append(row)
    written = []
    md = write_table(out, "pairs", header, rows)
    written += [out / "pairs.md", out / "pairs.csv"]
    lines = [
        "## Minimal pairs: encoded, and used?",
        "",
        "How often each scorer prefers the grammatical side of a minimal pair (%, 95 % Wilson "
        "interval; a tie counts half), beside each probe's accuracy on the same items (the "
        "perturbed lines the pairs come from). `*`: above chance (exact sign test over the untied "
        "pairs, Holm over the table, alpha 0.05). Verdict: *encoded* when a probe of the task "
        "beats its majority baseline (the lower end of its 95 % interval above it), *used* when "
        "the model is starred. Agreement pairs have no probing task of their own (—). The "
        "bigram control is cross-fitted over five folds of gold sentences: where it is far above "
        "50, the pairs carry a surface cue.",
        "",
        md,
    ]
    compared = _comparisons(cells, keys, [*models, *controls[:1]], escape(reference), out)
    if compared:
        written += [out / "pairs_compared.md", out / "pairs_compared.csv"]
        lines += [
            "### Models against each other, and languages against the reference",
            "",
            "Differences in points. Between scorers, on the same pairs: the exact sign test over "
            "the pairs where their verdicts differ (Holm over the table). Between a language and "
            f"{escape(reference)}, on different pairs: Newcombe's 95 % interval of the difference; "
            "`*`: it excludes 0.",
            "",
            compared,
        ]
    if layers and models:
        layer_md = _layer_table(layers, cells, keys, models, out)
        written += [out / "pairs_layers.md", out / "pairs_layers.csv"]
        lines += ["### The probe's layer curve on the pairs' items, beside each model", "",
                  layer_md]  # fmt: skip
    return lines, written


def _comparisons(cells, keys, scorers: list[str], reference: str, out: Path) -> str:
    """Scorer against scorer on the same pairs (sign test, Holm), and each language against
    ``reference`` per scorer and phenomenon (Newcombe's interval)."""
    rows: list[list[str]] = []
    tests: list[tuple[int, float]] = []
    for lang, ph in keys:
        for i, a in enumerate(scorers):
            for b in scorers[i + 1 :]:
                ra, rb = cells.get((lang, ph, a)), cells.get((lang, ph, b))
                if ra is None or rb is None:
                    continue
                diff = np.array(ra["correct"]) - np.array(rb["correct"])
                tests.append((len(rows), sign_test(diff)))
                rows.append([lang, ph, f"{a} − {b}", _signed(ra["value"] - rb["value"]), ""])
        for a in scorers:
            mine, ref = cells.get((lang, ph, a)), cells.get((reference, ph, a))
            if lang == reference or mine is None or ref is None:
                continue
            lo, hi = newcombe(mine["value"], mine["n"], ref["value"], ref["n"])
            star = " *" if lo > 0 or hi < 0 else ""
            rows.append([lang, ph, f"{a}: {lang} − {reference}",
                         f"{_signed(mine['value'] - ref['value'])}{star}",
                         f"[{_signed(lo)}, {_signed(hi)}]"])  # fmt: skip
    if not rows:
        return ""
    for (k, _), p in zip(tests, holm([p for _, p in tests]), strict=True):
        rows[k][4] = f"p = {p:.3g}" + (" *" if p < ALPHA else "")
    header = ["language", "phenomenon", "comparison", "difference", "interval or p (Holm)"]
    return write_table(out, "pairs_compared", header, rows)


def _signed(x: float) -> str:
    return f"{100 * x:+.1f}"


def _verdict(encoded: bool | None, used: bool) -> str:
    if encoded is None:
        return "used" if used else "not used"
    names = {(True, True): "encoded, used", (True, False): "encoded, not used",
             (False, True): "used, not encoded", (False, False): "neither"}  # fmt: skip
    return names[(encoded, used)]


def _probes(records: list[dict[str, Any]]) -> tuple[dict, dict, dict]:
    """(the test record of each (language, task, encoder) at its best layer, chosen on the
    validation records, never on the test items; the test records of layer-wise encoders by
    (language, task, encoder) -> {layer: record}; the majority baseline's test accuracy by
    (language, task))."""
    tests: dict[tuple[str, str, str], dict[int, dict[str, Any]]] = defaultdict(dict)
    dev: dict[tuple[str, str, str, int], float] = {}
    majority: dict[tuple[str, str], float] = {}
    for r in records:
        if "value" not in r:
            continue
        if r.get("encoder") == "baseline":
            if r.get("classifier") == "majority" and r.get("split") == "test":
                majority[(r["language"], r["task"])] = float(r["value"])
            continue
        key = (r["language"], r["task"], str(r["encoder"]))
        layer = -1 if r.get("layer") is None else int(r["layer"])
        if r.get("split") == "test":
            tests[key][layer] = r
        elif r.get("split") == "dev":
            dev[(*key, layer)] = float(r["value"])
    best = {
        key: by_layer[max(by_layer, key=lambda k: (dev.get((*key, k), -1.0), -k))]
        for key, by_layer in tests.items()
    }
    layers = {key: by for key, by in tests.items() if -1 not in by}
    return best, layers, majority


def _layer_table(layers, cells, keys, models, out: Path) -> str:
    columns = []
    for lang, ph in keys:
        task = TASK_OF.get(ph)
        first = cells.get((lang, ph, models[0]))
        for (l2, t2, enc), by_layer in sorted(layers.items()):
            if (l2, t2) == (lang, task) and first is not None:
                columns.append((lang, ph, enc, by_layer, first))
    if not columns:
        return ""
    depth = max(max(c[3]) for c in columns)
    header = ["", *[f"{lang} {ph} ({enc})" for lang, ph, enc, _, _ in columns]]
    rows = []
    for layer in range(depth + 1):
        row = [f"layer {layer}"]
        for _, _, _, by_layer, first in columns:
            rec = by_layer.get(layer)
            items = _probe_items(rec, first) if rec else None
            row.append(_pct(sum(items) / len(items)) if items else "—")
        rows.append(row)
    for m in models:
        row = [m]
        for lang, ph, _, _, _ in columns:
            r = cells.get((lang, ph, m))
            row.append(_pct(r["value"]) if r else "—")
        rows.append(row)
    return write_table(out, "pairs_layers", header, rows)

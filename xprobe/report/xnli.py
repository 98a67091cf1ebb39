"""XNLI accuracies and the probing-vs-XNLI Spearman figure (X-Probe Figure 3).

XNLI files: JSON ``{"LANG": {"ENCODER": acc}}`` or a list of ``{"language", "encoder",
"accuracy"}`` objects, or a TSV/CSV with columns language, encoder, accuracy (header optional).
When no figure can be drawn the report says why (:func:`xnli_section` returns the reason).
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import numpy as np

from xprobe.errors import InputError, XProbeError

__all__ = ["load_xnli", "spearman_grid"]


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


def spearman_grid(tables, xnli: dict[tuple[str, str], float]):
    """Per (dataset, classifier, setting): languages x tasks of Spearman rho between probing and
    XNLI accuracy across encoders (>= 3 encoders with both numbers, both non-constant).

    Returns ``[(tables_of_group, langs, tasks, rho, reasons)]``; ``reasons`` says, per language,
    why no correlation could be computed."""
    from scipy.stats import spearmanr

    groups: dict[tuple, list] = {}
    for t in tables:
        if t.classifier != "baseline":
            groups.setdefault((t.dataset, t.classifier, t.setting_key()), []).append(t)
    out = []
    for _, tabs in sorted(groups.items(), key=lambda kv: kv[0]):
        langs = sorted({t.language for t in tabs})
        tasks = sorted({task for t in tabs for task in t.tasks})
        rho = np.full((len(langs), len(tasks)), np.nan)
        reasons = {}
        for t in tabs:
            i = langs.index(t.language)
            nb = len(t.rows) - len(t.encoder_rows)
            have = [(k, name) for k, (name, _) in enumerate(t.encoder_rows)
                    if (t.language, name) in xnli]  # fmt: skip
            if len(have) < 3:
                reasons[t.language] = (f"{len(have)} encoder(s) with an XNLI accuracy for "
                                       f"{t.language} (3 needed)")  # fmt: skip
                continue
            for task in t.tasks:
                col = t.tasks.index(task)
                pairs = [(t.rows[nb + k][1][col][0].mean, xnli[(t.language, name)])
                         for k, name in have if len(t.rows[nb + k][1][col]) == 1]  # fmt: skip
                if len(pairs) >= 3:
                    a, b = zip(*pairs, strict=True)
                    if np.ptp(a) > 0 and np.ptp(b) > 0:
                        rho[i, tasks.index(task)] = float(spearmanr(a, b)[0])
                    else:
                        reasons.setdefault(t.language, "constant accuracies on some task")
        out.append((tabs, langs, tasks, rho, reasons))
    return out

"""Minimal pairs as lm-evaluation-harness tasks: a folder that ``lm_eval --include_path DIR
--tasks xprobe_pairs`` runs as it is.

One task per language and phenomenon (``xprobe_en_bigram_shift``), a group per language
(``xprobe_pairs_en``) and one over all (``xprobe_pairs``), each averaging its tasks' accuracy
unweighted. A task is ``multiple_choice`` with an empty context and the two sides as choices,
grammatical first and the target, ``target_delimiter: ""``: the harness scores each side's
summed log-probability conditioned on the model's BOS (else EOS) token, exactly what
``xprobe score`` computes under ``sum``; its ``acc_norm`` divides by the side's length in
characters (``per_char``). The harness counts a tie as correct (its arg-max takes the first
choice); ``xprobe score`` counts it as half.

The items are the pairs, in the pairs file's order, as JSON lines
under ``data/``; ``loader.py`` reads them relative to itself, so the folder can be moved or
published. Each task's metadata names its language as ISO 639-3 and script (``eng-Latn``) where
the profile gives them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.export.target import export_folder
from xprobe.files import atomic_write, inside, name_problem
from xprobe.languages import load_profile
from xprobe.pairs.model import pairs_path, read_pairs

__all__ = ["export_lm_eval", "task_name"]

GROUP = "xprobe_pairs"
STAMP = ".xprobe-export.json"

LOADER = '''"""Reads a task's pairs, relative to this folder (written by xprobe)."""

import os

import datasets

HERE = os.path.dirname(os.path.abspath(__file__))


def load(data_file, **_):
    path = os.path.join(HERE, data_file)
    return datasets.DatasetDict({"test": datasets.Dataset.from_json(path)})
'''


def task_name(lang: str, phenomenon: str) -> str:
    return f"xprobe_{lang}_{phenomenon}"


def _yaml(value: Any) -> str:
    """A YAML scalar: JSON's string syntax is valid YAML, and escapes every character."""
    return json.dumps(value, ensure_ascii=False)


def export_lm_eval(folders: list[Path], out: Path, force: bool = False) -> dict[str, Any]:
    """Write the harness folder for the pairs folders ``folders`` into ``out``; returns a
    summary (tasks per language)."""
    summary: dict[str, Any] = {"tasks": {}, "groups": [GROUP]}
    info = {"kind": "lm-eval", "source": sorted(str(f) for f in folders),
            "input": ", ".join(f.name for f in folders)}  # fmt: skip
    with export_folder(out, STAMP, info, force) as tmp:
        with atomic_write(inside(tmp, tmp / "loader.py")) as f:
            f.write(LOADER)
        everything = []
        for folder in folders:
            tasks = _language(folder, tmp, summary)
            everything += tasks
        if not everything:
            raise XProbeError(f"{', '.join(map(str, folders))}: no phenomenon with pairs to export")
        _group(tmp, GROUP, everything, "every language and phenomenon")
    return summary


def _language(folder: Path, tmp: Path, summary: dict[str, Any]) -> list[str]:
    manifest = folder / "manifest.json"
    if not manifest.is_file():
        raise XProbeError(f"{folder}: no manifest.json (not a pairs folder: `xprobe pairs`)")
    m = json.loads(manifest.read_text(encoding="utf-8"))
    lang = m["language"]
    if (why := name_problem(lang)) is not None:
        raise XProbeError(f"{manifest}: language {lang!r} cannot name a task: {why}")
    try:
        prof = load_profile(m.get("profile") or lang)
        code = f"{prof.iso639_3}-{prof.script}" if prof.iso639_3 and prof.script else lang
    except XProbeError:
        code = lang
    tasks = []
    for phenomenon, entry in m["phenomena"].items():
        if entry.get("applicable", True) is False:
            continue
        if (why := name_problem(phenomenon)) is not None:
            raise XProbeError(f"{manifest}: phenomenon {phenomenon!r} cannot name a task: {why}")
        pairs = list(read_pairs(pairs_path(folder, phenomenon)))
        name = task_name(lang, phenomenon)
        data = f"data/{lang}/{phenomenon}.jsonl"
        with atomic_write(inside(tmp, tmp / data)) as f:
            for p in pairs:
                row = {"good": p.good, "bad": p.bad, "split": p.split, "line": p.line,
                       "source": Path(p.source).name, "change": p.change}  # fmt: skip
                f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
        lines = [
            f"task: {name}",
            "custom_dataset: !function loader.load",
            "dataset_kwargs:",
            f"  data_file: {_yaml(data)}",
            "test_split: test",
            "output_type: multiple_choice",
            'doc_to_text: ""',
            'doc_to_choice: "{{[good, bad]}}"',
            "doc_to_target: 0",
            'target_delimiter: ""',
            "num_fewshot: 0",
            "metric_list:",
            "  - metric: acc",
            "    aggregation: mean",
            "    higher_is_better: true",
            "  - metric: acc_norm",
            "    aggregation: mean",
            "    higher_is_better: true",
            "metadata:",
            "  version: 1.0",
            f"  language: {_yaml(code)}",
            f"  phenomenon: {_yaml(phenomenon)}",
            f"  pairs: {len(pairs)}",
        ]
        with atomic_write(inside(tmp, tmp / f"{name}.yaml")) as f:
            f.write("\n".join(lines) + "\n")
        tasks.append(name)
    summary["tasks"][lang] = tasks
    if tasks:
        _group(tmp, f"{GROUP}_{lang}", tasks, f"language {code}")
        summary["groups"].append(f"{GROUP}_{lang}")
    return tasks


def _group(tmp: Path, group: str, tasks: list[str], what: str) -> None:
    lines = [f"group: {group}", f"# the unweighted mean accuracy over {what}", "task:"]
    lines += [f"  - {t}" for t in tasks]
    lines += ["aggregate_metric_list:", "  - metric: acc", "    aggregation: mean",
              "    weight_by_size: false", "metadata:", "  version: 1.0"]  # fmt: skip
    with atomic_write(inside(tmp, tmp / f"{group}.yaml")) as f:
        f.write("\n".join(lines) + "\n")

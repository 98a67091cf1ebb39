"""The card (``README.md``) of a benchmark release (:mod:`xprobe.export.release`), from its
``release.json`` content.

The YAML header is what the Hub and ``datasets`` read: ``configs`` (one per task and language,
``Tense.en``, with its ``data_files``), ``language`` (the languages' codes; ``zh-Hans``, with
the script, for a language written in several), ``license`` (every licence the treebanks state,
as the Hub's ids), ``multilinguality``, ``task_categories``, ``size_categories``,
``pretty_name`` and ``tags``. The body says how every set was made: UD version, xprobe version,
seeds, protocol and its floor, the sentence lengths read, each language's treebanks (files by
name and sha256), licence and profile (sha256), per cell N or n/a with kind and reason, the
task parameters, and the checksum list. Every name read from a file is escaped text
(:func:`xprobe.report.md.escape`); nothing names a local path.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from xprobe.export.card import CITATION, size_category
from xprobe.languages import na_text
from xprobe.probe.hf_layout import HF_SPLITS
from xprobe.report.md import escape, md_table
from xprobe.report.tables import order_tasks

__all__ = ["SEVERAL_SCRIPTS", "config_name", "hub_language", "release_card"]

# ISO 639-1/3 codes of languages written in more than one script in current use (CLDR's
# script metadata): their Hub tag carries the script (zh-Hans), as mteb's languages always do
SEVERAL_SCRIPTS = frozenset(
    [
        "az",
        "bs",
        "ks",
        "ku",
        "kk",
        "ky",
        "mn",
        "ms",
        "pa",
        "sd",
        "sh",
        "sr",
        "tg",
        "tk",
        "tt",
        "ug",
        "uz",
        "zh",
        "aze",
        "bos",
        "kas",
        "kur",
        "kaz",
        "kir",
        "mon",
        "msa",
        "pan",
        "snd",
        "srp",
        "tgk",
        "tuk",
        "tat",
        "uig",
        "uzb",
        "zho",
    ]
)


def config_name(task: str, code: str) -> str:
    """The configuration of one task in one language: ``Tense.en``."""
    return f"{task}.{code}"


def hub_language(lang: dict[str, Any]) -> str:
    """A language's tag in the card's header: its code as BCP 47 (``en-US``), with the
    profile's script where the language is written in several (``zh-Hans``)."""
    code, script = lang["code"].replace("_", "-"), lang["profile"].get("script")
    return f"{code}-{script}" if code in SEVERAL_SCRIPTS and script else code


def _q(text: Any) -> str:
    return json.dumps(str(text), ensure_ascii=False)  # a JSON string is a valid YAML scalar


def _e(value: Any) -> str:
    return escape(" ".join(str(value).split()))


def _cells(info: dict[str, Any]):
    """(language, file, cell) of every cell, languages by code, tasks in the reports' order."""
    for lang in info["languages"]:
        cells = lang["tasks"]
        by_task = {c["task"]: f for f, c in cells.items()}
        for task in order_tasks(set(by_task)):
            yield lang, by_task[task], cells[by_task[task]]


def _header(info: dict[str, Any]) -> str:
    langs = info["languages"]
    licenses = sorted({tb["license"] for lang in langs for tb in lang["treebanks"]})
    total = sum(sum(c["sizes"].values()) for _, _, c in _cells(info) if c["applicable"])
    ud = info.get("ud_version")
    pretty = f"xprobe probing benchmark (UD {ud})" if ud else "xprobe probing benchmark (UD)"
    lines = [
        "---",
        f"pretty_name: {_q(pretty)}",
        "language:",
        *(f"- {_q(hub_language(lang))}" for lang in langs),
        "license:",
        *(f"- {_q(x)}" for x in licenses),
        "multilinguality: multilingual",
        "task_categories:",
        "- text-classification",
        "size_categories:",
        f"- {_q(size_category(total))}",
        "tags:",
        "- probing",
        "- senteval",
        "- universal-dependencies",
        "configs:",
    ]
    for lang, file, cell in sorted(_cells(info), key=lambda x: (x[2]["task"], x[0]["code"])):
        if not cell["applicable"]:
            continue
        lines += [f"- config_name: {_q(config_name(cell['task'], lang['code']))}", "  data_files:"]
        for split in (s for s in HF_SPLITS.values() if cell["sizes"][s]):
            lines += [
                f"  - split: {split}",
                f"    path: {_q(file + '/' + lang['code'] + '/' + split + '.parquet')}",
            ]
    return "\n".join([*lines, "---", ""])


def _made(info: dict[str, Any]) -> list[str]:
    langs = info["languages"]
    seeds = sorted({str(x["seed"]) for x in langs})
    protocols = sorted({x["protocol"] for x in langs})
    ud = (
        _e(info["ud_version"])
        if info.get("ud_version")
        else ("not recorded (the release folder's name carries none; `--ud-version` names it)")
    )
    how = (
        "`xprobe extract --treebank`, gold annotation, no parsing"
        if all(x["treebank_mode"] for x in langs)
        else "`xprobe extract`; treebank mode for: "
        + _e(", ".join(x["code"] for x in langs if x["treebank_mode"]) or "none")
    )
    out = [
        f"- Universal Dependencies release: {ud}",
        f"- sets extracted by xprobe {_e(info['xprobe_version'])} ({how}); this folder built by "
        f"xprobe {_e(info['release_builder'])}",
        f"- seed: {_e(', '.join(seeds))}; protocol: {_e(', '.join(protocols))}",
    ]
    for lang in (x for x in langs if not x["treebank_mode"]):
        asked = lang.get("sizes_asked") or {}
        sizes = "/".join(_e(asked.get(s, "?")) for s in ("tr", "va", "te"))
        out.append(
            f"- {_e(lang['code'])}: sizes asked of every task (train/validation/test) "
            f"{sizes}; the lines written are in the table of configurations"
        )
    for lang in [x for x in langs if x["treebank_mode"]][:1]:
        ratio = "/".join(_e(r) for r in lang.get("ratio") or ["?"])
        floor = lang.get("floor") or {}
        if lang["protocol"].startswith("cv"):
            rule = (
                f"scored by {_e(lang['protocol'])} cross-validation: every line of a task "
                f"is scored once (column `fold`: the fold `xprobe probe --cv` deals it to); "
                f"a task needs {_e(floor.get('lines', '?'))} balanced lines and "
                f"{_e(floor.get('per_class', '?'))} of every class, else it is n/a"
            )
        else:
            rule = (
                f"the test split is scored: a task needs {_e(floor.get('test_lines', '?'))} "
                "test lines, else it is n/a"
            )
        out.append(
            f"- treebank mode: each task keeps every balanced line its treebank fills, "
            f"split {ratio} (train/validation/test); {rule}"
        )
    out += [
        "- classes balanced within each split; a lexical key (Tense's verb, SubjNum's and "
        "ObjNum's noun, SOMO's replacement) and a source sentence never on both sides of a split "
        "or fold; each line's source file, line and sentence id are in its row",
        "- task rules: docs/tasks.md in the xprobe repository; the parameters below; each "
        "language's profile by its sha256 in the table of languages",
    ]
    return out


def _languages(info: dict[str, Any]) -> str:
    rows = []
    for lang in info["languages"]:
        p, n = lang["profile"], lang["lengths"]
        iso = f"{p.get('iso639_3') or '?'}-{p.get('script') or '?'}"
        tbs = "; ".join(
            f"{tb['folder']} ({', '.join(f['name'] for f in tb['files'])})"
            for tb in lang["treebanks"]
        )
        licence = ", ".join(dict.fromkeys(tb["license"] for tb in lang["treebanks"]))
        length = f"{n['min_tokens']}..{n['max_tokens']}"
        if n.get("max_tokens_length_binned") not in (None, n["max_tokens"]):
            length += f" (SentLen, TreeDepth: ..{n['max_tokens_length_binned']})"
        rows.append(
            [
                _e(x)
                for x in (
                    lang["code"],
                    p.get("name", ""),
                    iso,
                    tbs,
                    licence,
                    f"{p['kind']} {p['sha256'][:12]}",
                    lang["corpus"].get("sentences", "?"),
                    length,
                )
            ]
        )
    header = [
        "code",
        "language",
        "mteb",
        "treebanks (files)",
        "licence",
        "profile (sha256)",
        "sentences",
        "tokens per sentence",
    ]
    return md_table(header, rows)


def _grid(info: dict[str, Any]) -> str:
    tasks = order_tasks({c["task"] for _, _, c in _cells(info)})
    cell_of = {(lang["code"], c["task"]): c for lang, _, c in _cells(info)}
    rows = []
    for lang in info["languages"]:
        row = [_e(lang["code"])]
        for t in tasks:
            c = cell_of.get((lang["code"], t))
            row.append(
                ""
                if c is None
                else str(c["n"])
                if c["applicable"]
                else f"n/a ({_e(c.get('kind') or '?')})"
            )
        rows.append(row)
    return md_table(["language", *(_e(t) for t in tasks)], rows)


def _configs(info: dict[str, Any]) -> str:
    rows = []
    for lang, file, c in _cells(info):
        if not c["applicable"]:
            continue
        labels = c["labels"]
        shown = ", ".join(labels[:6]) + (f" … ({len(labels)})" if len(labels) > 6 else "")
        rows.append(
            [
                _e(config_name(c["task"], lang["code"])),
                _e(file),
                *(str(c["sizes"][s]) for s in HF_SPLITS.values()),
                str(c["n"]),
                _e(shown),
                "yes" if c["partial"] else "no",
            ]
        )
    header = ["config", "folder", "train", "validation", "test", "N scored", "labels", "partial"]
    return md_table(header, rows)


def _na(info: dict[str, Any]) -> list[str]:
    out = [
        f"- **{_e(lang['code'])} {_e(c['task'])}**: "
        f"{_e(na_text(c.get('reason', ''), c.get('kind')))}"
        for lang, _, c in _cells(info)
        if not c["applicable"]
    ]
    return out or ["None: every task applies in every language."]


def _params(info: dict[str, Any]) -> list[str]:
    by: dict[tuple[str, str], list[str]] = defaultdict(list)
    for lang, _, c in _cells(info):
        if c["applicable"]:
            text = ", ".join(f"{k}={v}" for k, v in sorted(c["params"].items())) or "defaults"
            by[(c["task"], text)].append(lang["code"])
    order = {t: i for i, t in enumerate(order_tasks({t for t, _ in by}))}
    return [
        f"- {_e(task)}: {_e(text)} ({_e(', '.join(codes))})"
        for (task, text), codes in sorted(by.items(), key=lambda x: (order[x[0][0]], x[0][1]))
    ]


def _licences(info: dict[str, Any]) -> list[str]:
    return [
        f"- {_e(tb['folder'])}: {_e(tb['license'])} (LICENSE.txt: “{_e(tb['license_statement'])}”)"
        for lang in info["languages"]
        for tb in lang["treebanks"]
    ]


def release_card(info: dict[str, Any]) -> str:
    """The card's text (YAML header and Markdown body) of a release's ``release.json``."""
    first = next(
        (config_name(c["task"], lang["code"]) for lang, _, c in _cells(info) if c["applicable"]),
        "Tense.en",
    )
    body = [
        "# xprobe probing benchmark",
        "",
        "Probing tasks in the style of Conneau et al. (2018) and X-Probe (Ravishankar et al., "
        "2019), built from the gold annotation of Universal Dependencies treebanks: what a "
        "sentence vector keeps (length, words, tree depth, word order, tense, number, "
        "semantic oddity, clause order), language by language. One configuration per task and "
        "language; `label` is a ClassLabel over the task's labels.",
        "",
        "```python",
        "import datasets",
        f"ds = datasets.load_dataset(PATH, {_q(first)})",
        "```",
        "",
        "Scored by mteb's own classification evaluator with `xprobe.export.mteb_tasks` "
        "(docs/export.md in the xprobe repository).",
        "",
        "## How the sets were made",
        "",
        *_made(info),
        "",
        "## Languages",
        "",
        _languages(info),
        "## Items scored per language and task",
        "",
        "N: the lines a probe scores (every line under cross-validation, else the test lines); "
        "n/a: the task does not apply, with its kind (below: why).",
        "",
        _grid(info),
        "## Configurations",
        "",
        _configs(info),
        "## Not applicable",
        "",
        *_na(info),
        "",
        "## Task parameters",
        "",
        *_params(info),
        "",
        "## Licences",
        "",
        "Each treebank's licence, as its LICENSE.txt states it (`unknown`: the release folder "
        "held no LICENSE file for it); the sets derived from a treebank carry its licence.",
        "",
        *_licences(info),
        "",
        "## Files and checksums",
        "",
        "`SHA256SUMS` lists the sha256 of every other file (`sha256sum -c SHA256SUMS`); the "
        "sha256 of `SHA256SUMS` itself identifies the release until it is published (then the "
        "Hub's commit does). `release.json` holds everything above, machine-readable.",
        "",
        "## Citation",
        "",
        "Cite the Universal Dependencies release and each treebank's paper (its README) as "
        "well as:",
        "",
        CITATION,
        "",
    ]
    return _header(info) + "\n".join(body)

"""The dataset card (``README.md``) of an exported probing folder, from its ``manifest.json``.

The YAML header is what ``datasets`` and the Hub read: ``configs`` (one per task, with its
``data_files``), ``language``, ``license``, ``task_categories``, ``size_categories``,
``pretty_name``. The body says how the sets were made, as the manifest records it: the sizes
(treebank mode: the ratio and floor; every task's lines in the table), the sentence lengths
read, the rules and parameters used, the corpus (files by name and digest, counts, date), partial
tasks and their shortfalls, the n/a tasks and their reasons, and a citation block. The card is
meant for publication: an input is named by its file name, never the local path it was read from,
and every name from the manifest is escaped text (:func:`xprobe.report.md.escape`), never markup.

The licence is that of the source text: ``--license`` when given, else read from a LICENSE file
beside the first input (UD treebanks carry one), else ``unknown``. The corpus date is
``--corpus-date``, else a date in an input's name (``enwiki-20190101``), else "not recorded".
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from xprobe.languages import na_text
from xprobe.probe.hf_layout import HF_SPLITS
from xprobe.report.md import escape

__all__ = ["CITATION", "config_names", "dataset_card", "size_category"]

# licence text -> Hub licence id, the first match wins
_LICENSES = (
    (r"BY-NC-SA 4\.0|Attribution-NonCommercial-ShareAlike 4\.0", "cc-by-nc-sa-4.0"),
    (r"BY-NC-SA 3\.0|Attribution-NonCommercial-ShareAlike 3\.0", "cc-by-nc-sa-3.0"),
    (r"CC BY-SA 4\.0|Attribution-ShareAlike 4\.0", "cc-by-sa-4.0"),
    (r"CC BY 4\.0|Attribution 4\.0", "cc-by-4.0"),
    (r"CC BY-SA 3\.0|Attribution-ShareAlike 3\.0", "cc-by-sa-3.0"),
    (r"GNU General Public License", "gpl-3.0"),
)

CITATION = """```bibtex
@inproceedings{ravishankar-etal-2019-probing,
  title     = {Probing Multilingual Sentence Representations With {X-Probe}},
  author    = {Ravishankar, Vinit and {\\O}vrelid, Lilja and Velldal, Erik},
  booktitle = {Proceedings of the 4th Workshop on Representation Learning for NLP (RepL4NLP-2019)},
  year      = {2019},
  pages     = {156--168},
  url       = {https://aclanthology.org/W19-4318}
}

@inproceedings{conneau-etal-2018-cram,
  title     = {What you can cram into a single \\$\\&!\\#* vector: Probing sentence embeddings
               for linguistic properties},
  author    = {Conneau, Alexis and Kruszewski, German and Lample, Guillaume and
               Barrault, Lo{\\"\\i}c and Baroni, Marco},
  booktitle = {Proceedings of the 56th Annual Meeting of the Association for Computational
               Linguistics (Volume 1: Long Papers)},
  year      = {2018},
  pages     = {2126--2136},
  url       = {https://aclanthology.org/P18-1198}
}
```"""


def size_category(n: int) -> str:
    """The Hub's size category for ``n`` rows."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                        (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")):  # fmt: skip
        if n < limit:
            return name
    return "10M<n<100M"


def detect_license(inputs: list[dict[str, Any]], base: Path) -> str:
    """The Hub licence id of a LICENSE file beside the first input, else ``unknown``."""
    if not inputs:
        return "unknown"
    folder = (base / str(inputs[0].get("path", ""))).parent
    for name in ("LICENSE.txt", "LICENSE", "LICENSE.md"):
        path = folder / name
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")[:20000]
            for pattern, spdx in _LICENSES:
                if re.search(pattern, text):
                    return spdx
    return "unknown"


def corpus_date(inputs: list[dict[str, Any]]) -> str | None:
    """A date found in an input's file name (``20190101`` or ``2019-01-01``), else None."""
    for item in inputs:
        m = re.search(r"(?<!\d)(19|20)(\d\d)-?([01]\d)-?([0-3]\d)(?!\d)", str(item.get("path")))
        if m:
            return f"{m[1]}{m[2]}-{m[3]}-{m[4]}"
    return None


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid YAML scalar


def _first(sizes: dict[str, dict[str, int]]) -> str:
    return next((f for f in sorted(sizes) if any(sizes[f].values())), "TASK")


def _header(manifest: dict[str, Any], sizes: dict[str, dict[str, int]], license_id: str) -> str:
    lang = str(manifest.get("language", "und")).replace("_", "-")
    total = max((sum(s.values()) for s in sizes.values()), default=0)
    lines = ["---", "language:", f"- {_q(lang)}", f"license: {_q(license_id)}",
             "task_categories:", "- text-classification", "size_categories:",
             f"- {_q(size_category(total))}", f"pretty_name: {_q(f'xprobe probing sets ({lang})')}",
             "tags:", "- probing", "- senteval", "configs:"]  # fmt: skip
    for file in (f for f in sorted(sizes) if any(sizes[f].values())):
        for name in config_names(file):
            lines += [f"- config_name: {_q(name)}", "  data_files:"]
            for split in (s for s in HF_SPLITS.values() if sizes[file][s]):
                lines += [f"  - split: {split}", f"    path: {_q(f'{file}/{split}.parquet')}"]
    return "\n".join([*lines, "---", ""])


def config_names(file: str) -> list[str]:
    """The configurations of one task folder: its file name (``past_present``) and, for a task
    xprobe knows, the task's name (``Tense``), both over the same parquet files."""
    from xprobe.tasks import TASKS

    return [file, *(name for name, spec in TASKS.items() if spec.file == file and name != file)]


def _task_rows(manifest: dict[str, Any], sizes: dict[str, dict[str, int]]) -> list[str]:
    rows = ["| config | task | train | validation | test | labels | partial | parameters |",
            "|---|---|---:|---:|---:|---|---|---|"]  # fmt: skip
    for file, entry in sorted(manifest["tasks"].items()):
        s = sizes[file]
        labels = entry.get("labels") or []
        shown = ", ".join(map(str, labels[:8])) + (f" … ({len(labels)})" if len(labels) > 8 else "")
        params = ", ".join(f"{k}={v}" for k, v in sorted((entry.get("params") or {}).items()))
        filled = "yes" if entry.get("partial") else "no"
        if entry.get("applicable") is False:
            filled = f"n/a ({_na(entry)})"
        cells = [file, str(entry.get("task", file)), s["train"], s["validation"], s["test"],
                 shown, filled, params]  # fmt: skip
        rows.append("| " + " | ".join(escape(" ".join(str(c).split())) for c in cells) + " |")
    return rows


def _na(entry: dict[str, Any]) -> str:
    """An n/a task's kind and reason (``annotation: no word has Tense ...``)."""
    return na_text(str(entry.get("reason", "")), entry.get("kind"))


def _partial(manifest: dict[str, Any]) -> list[str]:
    """The tasks written short of their sizes (an n/a task is no partial one: :func:`_na_list`)."""
    out = []
    for file, entry in sorted(manifest["tasks"].items()):
        if entry.get("applicable") is not False and entry.get("partial"):
            why = "; ".join(entry.get("shortfalls") or []) or "filled only partly"
            out.append(f"- **{escape(file)}**: {escape(why)}")
    return out or ["None: every task written was filled to its size."]


def _na_list(manifest: dict[str, Any]) -> list[str]:
    """The n/a tasks, each with its kind and reason (no configuration is written for them)."""
    out = [
        f"- **{escape(file)}**: not applicable, no configuration: {escape(_na(entry))}"
        for file, entry in sorted(manifest["tasks"].items())
        if entry.get("applicable") is False
    ]
    return out or ["None: every task applies."]


def _sizes_line(manifest: dict[str, Any]) -> str:
    """How the splits were sized, as the manifest records it: treebank mode's ratio, caps and
    floor (each task's sizes are in the table), else the sizes asked of every task."""
    tb = manifest.get("treebank")
    if not isinstance(tb, dict):
        asked = manifest.get("sizes") or {}
        return "- sizes asked of every task (tr/va/te): " + "/".join(
            escape(str(asked.get(s, "?"))) for s in ("tr", "va", "te")
        )
    ratio = "/".join(escape(str(r)) for r in tb.get("ratio") or ["?"])
    caps = tb.get("max_sizes") or {}
    cap = "/".join(escape(str(caps.get(s, "?"))) for s in ("tr", "va", "te"))
    if "protocol" in tb:
        lines = escape(str((tb.get("floor") or {}).get("lines", "?")))
        floor = (f"scored by cross-validation ({escape(str(tb['protocol']))}): a task needs "
                 f"{lines} balanced lines")  # fmt: skip
    else:
        floor = f"at least {escape(str(tb.get('min_test', '?')))} test lines"
    return (f"- treebank mode: each task sized from what the corpus fills, split {ratio} "
            f"(tr/va/te, at most {cap} lines), {floor}, else n/a; the lines written are in "
            "the table")  # fmt: skip


def _length_line(manifest: dict[str, Any]) -> str:
    """The sentence lengths read: treebank mode's bound (lifted to the longest sentence for
    every task but the length-binned ones), else the common window."""
    common = manifest.get("common") or {}
    lo, hi = common.get("min_tokens", "?"), common.get("max_tokens", "?")
    length = (manifest.get("treebank") or {}).get("length") or {}
    if length.get("upper_bound_lifted") and length.get("max_tokens") != length.get(
        "max_tokens_length_binned"
    ):
        lo = length.get("min_tokens", lo)
        return escape(
            f"sentences of {lo}..{length.get('max_tokens')} tokens ({lo}.."
            f"{length.get('max_tokens_length_binned')} tokens for the tasks whose length bins end "
            "there: SentLen, TreeDepth)"
        )
    return escape(f"sentences of {lo}..{hi} tokens")


def _input_line(item: dict[str, Any]) -> str:
    """An input by its file name (never the local path it was read from) and digest, as text."""
    name = Path(str(item.get("path", "?")).replace("\\", "/")).name or "?"
    if name == "-":
        name = "(standard input)"
    return f"- {escape(name)} (sha256 {escape(str(item.get('sha256')))})"


def dataset_card(
    manifest: dict[str, Any],
    sizes: dict[str, dict[str, int]],
    base: Path,
    license_id: str | None = None,
    date: str | None = None,
) -> str:
    """The card's text (YAML header and Markdown body)."""
    inputs = manifest.get("inputs") or []
    license_id = license_id or detect_license(inputs, base)
    date = date or corpus_date(inputs) or "not recorded"
    body = [
        f"# xprobe probing sets: {escape(str(manifest.get('language', '?')))}",
        "",
        "Probing tasks in the style of Conneau et al. (2018) and X-Probe (Ravishankar et al., "
        f"2019), built by `xprobe extract` (xprobe {escape(str(manifest.get('xprobe_version')))}) "
        "from "
        "dependency-parsed text. One configuration per task; `label` is a ClassLabel over the "
        "task's label set.",
        "",
        "```python",
        "import datasets",
        f"ds = datasets.load_dataset(PATH, {_q(_first(sizes))})",
        "```",
        "",
        "## Tasks",
        "",
        *_task_rows(manifest, sizes),
        "",
        "## How they were made",
        "",
        f"- seed {escape(str(manifest.get('seed')))}",
        _sizes_line(manifest),
        f"- {_length_line(manifest)}; classes balanced within each split; exclusive (a source "
        f"sentence feeds one task only): {escape(str(manifest.get('exclusive')))}; partial "
        f"tasks allowed: {escape(str(manifest.get('allow_partial')))}",
        "- task rules: docs/tasks.md in the xprobe repository; per-task parameters in the table",
        "",
        "## Corpus",
        "",
        f"- date: {escape(date)}",
        f"- licence of the source text: {escape(license_id)}",
        *[_input_line(i) for i in inputs],
        "- counts: "
        + escape(", ".join(f"{k} {v}" for k, v in sorted((manifest.get("corpus") or {}).items()))),
        "",
        "## Partial tasks",
        "",
        *_partial(manifest),
        "",
        "## Not applicable",
        "",
        *_na_list(manifest),
        "",
        "## Citation",
        "",
        CITATION,
        "",
    ]
    return _header(manifest, sizes, license_id) + "\n".join(body)

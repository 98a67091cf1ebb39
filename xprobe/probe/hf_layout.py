"""Reading an ``xprobe export datasets`` folder (Hugging Face datasets layout) as probing sets.

The folder holds ``TASK/{train,validation,test}.parquet`` (columns ``sentence``, ``label`` and,
when the extraction recorded them, provenance columns), ``manifest.json`` (the extraction's, for
the language and partial tasks), ``README.md`` (the dataset card) and :data:`EXPORT_STAMP`.
``label`` is a ClassLabel (integers in the file, names in the parquet's ``huggingface`` schema
metadata) or a string. The rows are turned back into SentEval lines in split order, so a probe
of the export gives the same records, dataset hash included, as a probe of the SentEval folder.
Needs pyarrow (``pip install 'xprobe[export]'``).
"""

from __future__ import annotations

import json
from pathlib import Path

from xprobe.errors import InputError, XProbeError

__all__ = ["EXPORT_STAMP", "HF_SPLITS", "hf_senteval_lines", "hf_task_dirs", "is_hf_export"]

EXPORT_STAMP = "xprobe-export.json"
HF_SPLITS = {"tr": "train", "va": "validation", "te": "test"}


def is_hf_export(d: Path) -> bool:
    """Whether ``d`` looks like an exported datasets folder."""
    return (d / EXPORT_STAMP).is_file() or bool(hf_task_dirs(d))


def hf_task_dirs(d: Path) -> list[Path]:
    """The task folders (those holding a split's parquet file), by name."""
    return sorted(
        p for p in d.iterdir()
        if p.is_dir() and any((p / f"{s}.parquet").is_file() for s in HF_SPLITS.values())
    )  # fmt: skip


def _pyarrow():
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise XProbeError(
            "reading a datasets folder needs pyarrow: pip install 'xprobe[export]'"
        ) from None
    return pq


def _label_names(schema, path: Path) -> list[str] | None:
    """A ClassLabel's names from the parquet's ``huggingface`` metadata, else None (strings)."""
    meta = (schema.metadata or {}).get(b"huggingface")
    if not meta:
        return None
    try:
        label = json.loads(meta)["info"]["features"]["label"]
    except (ValueError, KeyError, TypeError):
        raise InputError(str(path), None, "unreadable 'huggingface' schema metadata") from None
    return list(label["names"]) if label.get("_type") == "ClassLabel" else None


def hf_senteval_lines(task_dir: Path) -> list[tuple[int, str]]:
    """The task's rows as numbered SentEval lines ``split<TAB>label<TAB>sentence\\n``."""
    pq = _pyarrow()
    lines: list[tuple[int, str]] = []
    for short, split in HF_SPLITS.items():
        path = task_dir / f"{split}.parquet"
        if not path.is_file():
            continue
        try:
            table = pq.read_table(path)
        except Exception as e:  # pyarrow raises several types for a damaged file
            raise InputError(str(path), None, f"not a parquet file ({e})") from None
        missing = {"sentence", "label"} - set(table.column_names)
        if missing:
            raise InputError(str(path), None, f"no column(s) {', '.join(sorted(missing))}")
        names = _label_names(table.schema, path)
        labels = table.column("label").to_pylist()
        for sentence, label in zip(table.column("sentence").to_pylist(), labels, strict=True):
            text = names[label] if names is not None else label
            lines.append((len(lines) + 1, f"{short}\t{text}\t{sentence}\n"))
    return lines

"""A probing folder -> a Hugging Face datasets folder (``xprobe export datasets``).

Layout written (``datasets.load_dataset(OUT, "Tense")`` reads it; ``"past_present"``, the file's
name, too: each task is a configuration under both names)::

    OUT/README.md                         dataset card: YAML header (configs, language, license,
                                          task categories, size category) and the manifest's story
    OUT/<task file>/train.parquet         one configuration per task; splits train/validation/test
    OUT/<task file>/validation.parquet    columns: sentence, label (a ClassLabel over the task's
    OUT/<task file>/test.parquet          label set), and the provenance columns when extracted
                                          with --provenance (source, line, sent_id, key); an
                                          empty split has no file (datasets cannot load one), a
                                          task without rows no configuration
    OUT/manifest.json                     the extraction's manifest, unchanged
    OUT/xprobe-export.json                what was exported, from which manifest (its sha256)

Rows keep the SentEval file's order, so ``xprobe probe --data OUT`` gives the same records.
Bad input, one line each: a folder without manifest, an unfinished extraction (task files or
temporary files without a manifest, or files that do not match it).

Example::

    export_datasets("probing/en", "hf/en")
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Any

from xprobe import __version__
from xprobe.errors import InputError, XProbeError
from xprobe.export.card import dataset_card
from xprobe.export.target import export_folder
from xprobe.extract.leftovers import find_leftovers
from xprobe.files import inside, name_problem, read_lines, sha256_file
from xprobe.languages import na_text
from xprobe.probe.hf_layout import EXPORT_STAMP, HF_SPLITS

__all__ = ["export_datasets", "not_applicable", "read_extraction"]

log = logging.getLogger(__name__)


def not_applicable(entry: dict[str, Any]) -> bool:
    """A manifest entry of a task that does not apply (``"applicable": false``, a reason)."""
    return entry.get("applicable") is False


def read_extraction(d: Path) -> tuple[dict[str, Any], str]:
    """The manifest of a finished extraction folder and its sha256; one clear error otherwise."""
    import json

    if not d.is_dir():
        raise XProbeError(f"{d}: probing folder not found")
    leftovers = find_leftovers(d)
    manifest_path = d / "manifest.json"
    if not manifest_path.is_file():
        if leftovers or any(d.glob("*.txt")):
            raise XProbeError(
                f"{d}: unfinished extraction (task files but no manifest.json; a killed or "
                "running 'xprobe extract': rerun it, then export)"
            )
        raise XProbeError(f"{d}: no manifest.json: not an 'xprobe extract' output folder")
    if leftovers:
        raise XProbeError(
            f"{d}: unfinished extraction (leftover {leftovers[0].name}); rerun 'xprobe extract'"
        )
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InputError(str(manifest_path), None, f"unreadable JSON ({e})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("tasks"), dict):
        raise InputError(str(manifest_path), None, "no 'tasks' table: not an extraction manifest")
    for file, entry in sorted(manifest["tasks"].items()):
        _check_entry(manifest_path, file, entry)
        if not_applicable(entry):
            continue  # no file by design: the card gives the reason
        path = d / entry.get("file", f"{file}.txt")
        if not path.is_file():
            raise XProbeError(f"{path}: listed in manifest.json but missing (unfinished?)")
        if entry.get("sha256") and sha256_file(path) != entry["sha256"]:
            raise XProbeError(f"{path}: does not match manifest.json's sha256 (changed since)")
    return manifest, sha256_file(manifest_path)


def _check_entry(manifest: Path, file: str, entry: Any) -> None:
    """A task key names a folder of the export and its ``file``/``provenance`` name files of the
    probing folder: each must be a plain name, read and written inside those folders only."""
    if not isinstance(entry, dict):
        raise InputError(str(manifest), None, f"task {file!r}: expected a table, got {entry!r}")
    problem = name_problem(file)
    if problem is not None:
        raise InputError(str(manifest), None, f"task {file!r} cannot name a folder of the "
                         f"export: {problem}")  # fmt: skip
    for key in ("file", "provenance"):
        name = entry.get(key)
        if name is not None and (not isinstance(name, str) or name_problem(name) is not None):
            raise InputError(str(manifest), None, f"task {file!r}: {key} {name!r} is not a file "
                             "name in the probing folder")  # fmt: skip


def _provenance(d: Path, entry: dict[str, Any]) -> list[list[str]] | None:
    name = entry.get("provenance")
    if not name:
        return None
    rows = []
    for n, line in read_lines(d / name):
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 6:
            raise InputError(str(d / name), n, f"expected 6 tab-separated fields, {len(parts)}")
        rows.append(parts)
    return rows


def task_columns(d: Path, file: str, entry: dict[str, Any]) -> dict[str, dict[str, list]]:
    """Per HF split, the columns of one task: sentence, label, provenance when recorded."""
    path = d / entry.get("file", f"{file}.txt")
    prov = _provenance(d, entry)
    cols: dict[str, dict[str, list]] = {}
    for i, (n, line) in enumerate(read_lines(path)):
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 3 or parts[0] not in HF_SPLITS:
            raise InputError(str(path), n, "expected split<TAB>label<TAB>sentence")
        c = cols.setdefault(HF_SPLITS[parts[0]], {"sentence": [], "label": []})
        c["sentence"].append(parts[-1])
        c["label"].append(parts[1])
        if prov is not None:
            if i >= len(prov) or prov[i][:2] != parts[:2]:
                raise InputError(str(path), n, f"not aligned with {entry['provenance']}")
            _, _, source, at, sent_id, key = prov[i]
            c.setdefault("source", []).append(source)
            c.setdefault("line", []).append(int(at))
            c.setdefault("sent_id", []).append(None if sent_id == "_" else sent_id)
            c.setdefault("key", []).append(None if key == "_" else key)
    return cols


def _features(entry: dict[str, Any], cols: dict[str, dict[str, list]], provenance: bool):
    import datasets

    names = [str(x) for x in entry.get("labels") or []]
    seen = {lab for c in cols.values() for lab in c["label"]}
    label = datasets.ClassLabel(names=names) if names and seen <= set(names) else None
    feats = {"sentence": datasets.Value("string"), "label": label or datasets.Value("string")}
    if provenance:
        feats |= {"source": datasets.Value("string"), "line": datasets.Value("int64"),
                  "sent_id": datasets.Value("string"), "key": datasets.Value("string")}  # fmt: skip
    return datasets.Features(feats)


def _write_task(d: Path, tmp: Path, file: str, entry: dict[str, Any]) -> dict[str, int]:
    try:
        import datasets
    except ImportError:
        raise XProbeError(
            "export needs datasets and pyarrow: pip install 'xprobe[export]'"
        ) from None

    datasets.disable_progress_bars()
    cols = task_columns(d, file, entry)
    features = _features(entry, cols, bool(entry.get("provenance")))
    sizes = dict.fromkeys(HF_SPLITS.values(), 0)
    for split in HF_SPLITS.values():
        if not cols.get(split):
            continue  # datasets cannot load an empty split: it is left out (the card says so)
        inside(tmp, tmp / file).mkdir(exist_ok=True)
        ds = datasets.Dataset.from_dict(cols[split], features=features)
        ds.to_parquet(str(tmp / file / f"{split}.parquet"))
        sizes[split] = len(ds)
    if not any(sizes.values()):
        log.warning("%s: no rows; no configuration written (see the card)", file)
    return sizes


def export_datasets(
    probing_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    force: bool = False,
    license_id: str | None = None,
    corpus_date: str | None = None,
) -> dict[str, dict[str, int]]:
    """Export every task of ``probing_dir``; returns the rows per task and split."""
    d = Path(probing_dir)
    manifest, digest = read_extraction(d)
    info = {"kind": "datasets", "source": digest, "input": str(d.resolve()),
            "xprobe_version": __version__}  # fmt: skip
    sizes: dict[str, dict[str, int]] = {}
    with export_folder(Path(out), EXPORT_STAMP, info, force) as tmp:
        for file, entry in sorted(manifest["tasks"].items()):
            if not_applicable(entry):
                sizes[file] = dict.fromkeys(HF_SPLITS.values(), 0)
                why = na_text(str(entry.get("reason", "")), entry.get("kind"))
                log.info("%s: n/a (%s): no configuration", file, why)
                continue
            sizes[file] = _write_task(d, tmp, file, entry)
            log.info("%s: %s", file, ", ".join(f"{k} {v}" for k, v in sizes[file].items()))
        shutil.copyfile(d / "manifest.json", tmp / "manifest.json")
        card = dataset_card(manifest, sizes, d, license_id, corpus_date)
        (tmp / "README.md").write_text(card, encoding="utf-8")
    return sizes

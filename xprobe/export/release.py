"""A benchmark release: the probing folders of a UD release -> one folder to publish as a Hugging
Face dataset repository (``xprobe export release``; the ud study writes ``OUT/release``).

Layout written::

    OUT/README.md                        the card (:mod:`xprobe.export.release_card`): YAML header
                                         (configs, language, license, task categories, size
                                         categories) and how every set was made
    OUT/<task file>/<code>/train.parquet one configuration per task and language, named
    OUT/<task file>/<code>/validation.parquet   ``<Task>.<code>`` (``Tense.en``); columns
    OUT/<task file>/<code>/test.parquet  sentence, label (ClassLabel), source (the CoNLL-U
                                         file's name), line, sent_id, key and, when the
                                         folders were extracted for cross-validation, fold
                                         (the K-fold xprobe's ``--cv K`` deals the line to)
    OUT/release.json                     what the release was built from, machine-readable: UD
                                         version, xprobe version, seeds, protocol, per language
                                         its treebanks (files, sha256, licence), profile
                                         (sha256), manifest (sha256), per cell N or n/a
    OUT/SHA256SUMS                       ``sha256sum -c`` list of every other file; its own
                                         sha256 is the release's id (``release_id``)

Nothing in the folder names a local path (an input is its file name and digest), and a rebuild
from the same probing folders gives the same bytes (sorted keys, fixed order, no dates).
Bad input, one line each: a folder that is no finished extraction (as ``export datasets``), two
folders of one language, folders of several xprobe versions.

Example::

    build_release({"en": "ud-out/probing/en", "de": "ud-out/probing/de"}, "ud-out/release")
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xprobe import __version__
from xprobe.errors import XProbeError
from xprobe.export.datasets import _features, not_applicable, read_extraction, task_columns
from xprobe.export.target import export_folder
from xprobe.files import inside, name_problem, sha256_file, write_json
from xprobe.probe.hf_layout import HF_SPLITS

__all__ = [
    "RELEASE_STAMP",
    "SUMS",
    "build_release",
    "release_id",
    "treebank_license",
    "verify_release",
]

log = logging.getLogger(__name__)

RELEASE_STAMP = "release.json"
SUMS = "SHA256SUMS"
# licence statements of UD treebanks (LICENSE.txt) -> the Hub's licence id; the earliest
# statement in the file wins (a file may quote other licences further down)
_LICENSES = (
    (
        r"BY-NC-SA 4\.0|Attribution-NonCommercial-ShareAlike 4\.0|licenses/by-nc-sa/4\.0",
        "cc-by-nc-sa-4.0",
    ),
    (
        r"BY-NC-SA 3\.0|Attribution-NonCommercial-ShareAlike 3\.0|licenses/by-nc-sa/3\.0",
        "cc-by-nc-sa-3.0",
    ),
    (r"BY-NC-SA 2\.5|Attribution-NonCommercial-ShareAlike 2\.5", "cc-by-nc-sa-2.5"),
    (r"BY-NC 4\.0|Attribution-NonCommercial 4\.0", "cc-by-nc-4.0"),
    (r"BY-SA 4\.0|Attribution-ShareAlike 4\.0|licenses/by-sa/4\.0", "cc-by-sa-4.0"),
    (r"BY-SA 3\.0|Attribution-ShareAlike 3\.0|licenses/by-sa/3\.0", "cc-by-sa-3.0"),
    (r"BY-SA 2\.5|Attribution-ShareAlike 2\.5", "cc-by-sa-2.5"),
    (r"CC BY 4\.0|Attribution 4\.0", "cc-by-4.0"),
    (r"GNU General Public License", "gpl-3.0"),
    (r"Apache License", "apache-2.0"),
)
# a UD release folder's name (what `xprobe download ud` unpacks): its version
_UD_FOLDER = re.compile(r"ud-treebanks-v(\d+\.\d+)")


def treebank_license(folder: Path) -> tuple[str, str]:
    """(Hub licence id, the statement found) of a treebank folder's ``LICENSE.txt``:
    ``("unknown", "...")`` when there is none, ``("other", first line)`` when its statement is
    not one of the licences known here."""
    for name in ("LICENSE.txt", "LICENSE", "LICENSE.md"):
        path = folder / name
        if path.is_file():
            raw = path.read_text(encoding="utf-8", errors="replace")
            text = re.sub(r"-\s+", "-", " ".join(raw.split()))  # "NonCommercial-\nShareAlike"
            found = [
                (m.start(), spdx)
                for pattern, spdx in _LICENSES
                if (m := re.search(pattern, text, re.IGNORECASE))
            ]
            if found:
                start, spdx = min(found)
                return spdx, text[max(0, start - 60) : start + 80].strip()
            return "other", text[:160]
    return "unknown", "no LICENSE file beside the treebank's files"


def _inputs(manifest: dict[str, Any], d: Path) -> list[Path]:
    """The manifest's input paths as the extraction read them (relative ones: from the probing
    folder's parent, else the current folder)."""
    out = []
    for item in manifest.get("inputs") or []:
        p = Path(str(item.get("path", "")))
        if not p.is_absolute() and not p.exists() and (d.parent / p).exists():
            p = d.parent / p
        out.append(p)
    return out


def _treebanks(manifest: dict[str, Any], d: Path) -> list[dict[str, Any]]:
    """The treebanks a language was read from: folder name, files (name, sha256), licence."""
    by_folder: dict[str, dict[str, Any]] = {}
    for item, path in zip(manifest.get("inputs") or [], _inputs(manifest, d), strict=True):
        tb = by_folder.get(path.parent.name)
        if tb is None:
            spdx, statement = treebank_license(path.parent)
            tb = by_folder[path.parent.name] = {
                "folder": path.parent.name,
                "license": spdx,
                "license_statement": statement,
                "files": [],
            }
        tb["files"].append({"name": path.name, "sha256": item.get("sha256")})
    return list(by_folder.values())


def _ud_version(inputs: list[Path], given: str | None) -> str | None:
    if given:
        return given
    for p in inputs:
        for part in reversed(p.parts):
            m = _UD_FOLDER.fullmatch(part)
            if m:
                return m.group(1)
    return None


def _profile(code: str, profiles: Mapping[str, Any] | Path | None) -> dict[str, Any]:
    """The profile a language was extracted with: its draft (``profiles[code]``, or
    ``profiles/CODE.toml``: the ud study's ``OUT/profiles``) where there is one, else the
    shipped one; its sha256, ISO codes, script."""
    from xprobe.languages import load_profile

    if isinstance(profiles, Mapping):
        draft = Path(profiles[code]) if profiles.get(code) else None
    else:
        draft = profiles / f"{code}.toml" if profiles else None
    path = draft if draft is not None and draft.is_file() else None
    p = load_profile(str(path) if path else code)
    return {
        "kind": "drafted" if path else "shipped",
        "sha256": sha256_file(Path(p.path)),
        "name": p.name,
        "iso639_3": p.iso639_3,
        "script": p.script,
    }


def _folds(d: Path, code: str, file: str, k: int) -> list[int]:
    """The fold of every line of a task file in pooled order (tr, va, te), as ``probe --cv K``
    deals them (:func:`xprobe.probe.crossval.plan`)."""
    from xprobe.probe.crossval import plan
    from xprobe.probe.datasets import load_probing_dir

    (ps,) = load_probing_dir(d, tasks=[file], language=code)
    return [int(f) for f in plan(ps, k).folds]


def _write_cell(d: Path, tmp: Path, code: str, file: str, entry: dict, k: int | None) -> dict:
    """One language's task as parquet splits under ``tmp/FILE/CODE``; its sizes."""
    import datasets

    cols = task_columns(d, file, entry)
    for c in cols.values():
        if "source" in c:  # the CoNLL-U file's name, never the local path it was read from
            c["source"] = [Path(str(s).replace("\\", "/")).name for s in c["source"]]
    features = _features(entry, cols, bool(entry.get("provenance")))
    folds = None
    if k:
        folds = iter(_folds(d, code, file, k))
        features["fold"] = datasets.Value("int64")
    sizes = {}
    for split in HF_SPLITS.values():  # pooled order: train, validation, test
        rows = cols.get(split)
        sizes[split] = len(rows["sentence"]) if rows else 0
        if folds is not None and rows:
            rows["fold"] = [next(folds) for _ in rows["sentence"]]
        if not rows:
            continue
        folder = inside(tmp, tmp / file / code)
        folder.mkdir(parents=True, exist_ok=True)
        ds = datasets.Dataset.from_dict(rows, features=features)
        ds.to_parquet(str(folder / f"{split}.parquet"))
    return sizes


def _language(code: str, d: Path, tmp: Path, profiles: Any) -> dict[str, Any]:
    from xprobe.protocol import parse_protocol
    from xprobe.tasks import TASKS

    manifest, digest = read_extraction(d)
    tb = manifest.get("treebank") if isinstance(manifest.get("treebank"), dict) else {}
    protocol = parse_protocol(tb.get("protocol"))
    task_of = {spec.file: name for name, spec in TASKS.items()}
    cells: dict[str, Any] = {}
    for file, entry in sorted(manifest["tasks"].items()):
        task = str(entry.get("task") or task_of.get(file, file))
        if not_applicable(entry):
            cells[file] = {
                "task": task,
                "applicable": False,
                "kind": entry.get("kind"),
                "reason": str(entry.get("reason", "")),
            }
            continue
        sizes = _write_cell(d, tmp, code, file, entry, protocol.folds)
        cells[file] = {
            "task": task,
            "applicable": True,
            "sizes": sizes,
            "n": sum(sizes.values()) if protocol.cv else sizes["test"],
            "labels": [str(x) for x in entry.get("labels") or []],
            "partial": bool(entry.get("partial")),
            "params": entry.get("params") or {},
        }
    length = (tb.get("length") or {}) if tb else {}
    common = manifest.get("common") or {}
    return {
        "code": code,
        "manifest_sha256": digest,
        "xprobe_version": manifest.get("xprobe_version"),
        "seed": manifest.get("seed"),
        "protocol": str(protocol),
        "treebank_mode": bool(tb),
        "sizes_asked": manifest.get("sizes") if not tb else None,
        "ratio": tb.get("ratio"),
        "floor": tb.get("floor") if protocol.cv else {"test_lines": tb.get("min_test")},
        "lengths": {
            "min_tokens": length.get("min_tokens", common.get("min_tokens")),
            "max_tokens": length.get("max_tokens", common.get("max_tokens")),
            "max_tokens_length_binned": length.get(
                "max_tokens_length_binned", common.get("max_tokens")
            ),
        },
        "corpus": manifest.get("corpus") or {},
        "profile": _profile(code, profiles),
        "treebanks": _treebanks(manifest, d),
        "tasks": cells,
    }


def _check_inputs(folders: dict[str, Path]) -> None:
    if not folders:
        raise XProbeError("a release needs at least one probing folder")
    for code in folders:
        problem = name_problem(code)
        if problem is not None:
            raise XProbeError(f"language {code!r} cannot name a folder of the release: {problem}")


def _sums(tmp: Path) -> str:
    """``sha256sum`` lines of every file under ``tmp`` but the list itself, sorted by path."""
    lines = []
    for p in sorted(tmp.rglob("*")):
        if p.is_file() and p.name != SUMS:
            lines.append(f"{sha256_file(p)}  {p.relative_to(tmp).as_posix()}")
    return "\n".join(lines) + "\n"


def release_id(folder: str | os.PathLike[str]) -> str:
    """The release's id: the sha256 of its ``SHA256SUMS`` (so of every file it holds). This is
    what mteb's ``dataset_revision`` names until the release is on the Hub, where it becomes
    the commit that uploaded it."""
    path = Path(folder) / SUMS
    if not path.is_file():
        raise XProbeError(f"{folder}: no {SUMS}: not an xprobe release folder")
    return sha256_file(path)


def verify_release(folder: str | os.PathLike[str]) -> list[str]:
    """The files of a release whose sha256 differs from ``SHA256SUMS`` (or that are missing),
    and the files it does not list: empty when the folder is the release as built."""
    root = Path(folder)
    listed = {}
    for line in (root / SUMS).read_text(encoding="utf-8").splitlines():
        digest, _, rel = line.partition("  ")
        listed[rel] = digest
    bad = [
        rel
        for rel, digest in sorted(listed.items())
        if not (root / rel).is_file() or sha256_file(root / rel) != digest
    ]
    extra = [
        p.relative_to(root).as_posix()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != SUMS and p.relative_to(root).as_posix() not in listed
    ]
    return bad + extra


def build_release(
    folders: dict[str, str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    profiles: Mapping[str, str] | str | os.PathLike[str] | None = None,
    ud_version: str | None = None,
    name: str = "xprobe-ud",
    force: bool = False,
) -> dict[str, Any]:
    """Build the release of ``folders`` (language code -> probing folder) into ``out``; returns
    its ``release.json`` content (with ``id``, the sha256 of ``SHA256SUMS``). ``profiles``: the
    drafted profiles, a folder of ``CODE.toml`` or a mapping code -> file (else the shipped
    ones)."""
    try:
        import datasets
    except ImportError:
        raise XProbeError(
            "a release needs datasets and pyarrow: pip install 'xprobe[export]'"
        ) from None
    from xprobe.export.release_card import release_card

    datasets.disable_progress_bars()
    dirs = {code: Path(p) for code, p in sorted(folders.items())}
    _check_inputs(dirs)
    digests = {code: read_extraction(d)[1] for code, d in dirs.items()}
    source = hashlib.sha256(json.dumps([digests, ud_version, name], sort_keys=True).encode())
    info: dict[str, Any] = {"kind": "release", "source": source.hexdigest()}
    prof = profiles if isinstance(profiles, Mapping) else Path(profiles) if profiles else None
    with export_folder(Path(out), RELEASE_STAMP, info, force) as tmp:
        langs = [_language(code, d, tmp, prof) for code, d in dirs.items()]
        versions = sorted({str(x["xprobe_version"]) for x in langs})
        if len(versions) > 1:
            raise XProbeError(
                f"probing folders of several xprobe versions ({', '.join(versions)}): "
                "rebuild them with one version"
            )
        inputs = [p for d in dirs.values() for p in _inputs(read_extraction(d)[0], d)]
        info.update(
            name=name,
            ud_version=_ud_version(inputs, ud_version),
            xprobe_version=versions[0],
            release_builder=__version__,
            languages=langs,
        )
        (tmp / "README.md").write_text(release_card(info), encoding="utf-8")
        write_json(tmp / RELEASE_STAMP, info)  # export_folder writes the same bytes again
        (tmp / SUMS).write_text(_sums(tmp), encoding="utf-8")
    return {**info, "id": release_id(out)}

"""Shards and the manifest of a corpus run: naming, atomic writes, resume bookkeeping.

A run writes ``DIR/shard-00000.conllu.gz``, ``DIR/shard-00001.conllu.gz`` ... and
``DIR/manifest.json``. Shard ``k`` holds kept sentences ``k * shard_size`` to
``(k + 1) * shard_size - 1`` in input order, so the split never depends on timing or on the number
of workers. Every shard is written atomically (temp file + rename, reproducible gzip) and then
recorded in the manifest with its SHA-256; a restarted run skips the shards that are recorded and
intact and recomputes the rest, producing the same bytes as an uninterrupted run.

The manifest's ``settings`` (inputs, model, tokenizer, filters, shard size...) must match for a
run to resume; otherwise the run stops with an error rather than mixing two corpora in one folder.
``--max-sentences`` is not a setting: a folder grows when it is raised (every shard whose
sentence count is what this run puts there is reused; one cut short by the smaller limit is
parsed again), and a limit below what the folder holds is an error.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.files import atomic_write, sha256_file, write_json

__all__ = ["MANIFEST", "Manifest", "input_fingerprint", "shard_name", "write_shard"]

MANIFEST = "manifest.json"
_QUICK = 1 << 20


def shard_name(index: int) -> str:
    """``shard-00007.conllu.gz``"""
    return f"shard-{index:05d}.conllu.gz"


def input_fingerprint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """File name, size and a quick SHA-256 (first and last MiB plus the size) of one input.

    Hashing a 20 GB dump in full would take longer than many runs; the quick hash detects a
    different or regrown file, which is what resuming needs.
    """
    p = Path(path)
    try:
        size = p.stat().st_size
        h = hashlib.sha256(str(size).encode())
        with open(p, "rb") as f:
            h.update(f.read(_QUICK))
            if size > 2 * _QUICK:
                f.seek(size - _QUICK)
                h.update(f.read(_QUICK))
            elif size > _QUICK:
                h.update(f.read())
    except OSError as e:
        raise XProbeError(f"cannot read input {p}: {e.strerror or e}") from None
    return {"name": p.name, "size": size, "quick_sha256": h.hexdigest()}


def write_shard(out_dir: Path, index: int, conllu: str) -> dict[str, Any]:
    """Write one shard atomically; return its manifest record (file, sha256)."""
    path = out_dir / shard_name(index)
    with atomic_write(path) as f:
        f.write(conllu)
    return {"file": path.name, "sha256": sha256_file(path)}


@dataclass
class Manifest:
    """The manifest of one output folder (``settings`` + per-shard records + counts)."""

    out_dir: Path
    settings: dict[str, Any]
    shards: dict[int, dict[str, Any]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def open(cls, out_dir: Path, settings: dict[str, Any]) -> Manifest:
        """Load the folder's manifest for resuming (checking settings) or start a new one."""
        path = out_dir / MANIFEST
        if not path.exists():
            if out_dir.exists() and any(out_dir.glob("shard-*.conllu.gz")):
                raise XProbeError(f"{out_dir} holds shards but no {MANIFEST}; use an empty folder")
            return cls(out_dir, settings)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise XProbeError(f"{path}: unreadable manifest ({e}); use an empty folder") from None
        if data.get("settings") != json.loads(json.dumps(settings)):
            old = data.get("settings", {})
            diff = sorted(k for k in set(old) | set(settings) if old.get(k) != settings.get(k))
            raise XProbeError(
                f"{out_dir} holds a corpus built with other settings ({', '.join(diff)}); "
                "use another --out folder, or delete this one to start again"
            )
        shards = {int(r["index"]): r for r in data.get("shards", [])}
        return cls(out_dir, settings, shards)

    def done(self, index: int) -> dict[str, Any] | None:
        """The record of shard ``index`` if it is recorded and its file is intact."""
        rec = self.shards.get(index)
        if rec is None:
            return None
        path = self.out_dir / rec["file"]
        if not path.is_file() or sha256_file(path) != rec["sha256"]:
            return None
        return rec

    def record(self, index: int, rec: dict[str, Any]) -> None:
        self.shards[index] = {"index": index, **rec}

    def save(self, **extra: Any) -> None:
        """Write the manifest atomically (settings, shards in order, and ``extra`` fields)."""
        self.extra.update(extra)
        data = {
            "settings": self.settings,
            "shards": [self.shards[k] for k in sorted(self.shards)],
            **self.extra,
        }
        write_json(self.out_dir / MANIFEST, data)

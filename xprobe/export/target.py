"""Writing an export folder safely: built beside the target, renamed into place at the end.

An existing target is replaced only when it is an export of the same input (its stamp's
``source`` digest matches: rewriting it gives the same files) or when ``force`` is given; any
other existing, non-empty folder is an error naming it, never overwritten silently.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.files import write_json
from xprobe.leftovers import clean_temp_folders

__all__ = ["export_folder", "read_stamp"]


def read_stamp(out: Path, stamp: str) -> dict[str, Any] | None:
    """The stamp of an existing export, None when there is none or it is unreadable."""
    try:
        data = json.loads((out / stamp).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _check_target(out: Path, stamp: str, info: dict[str, Any], force: bool) -> None:
    if not out.exists() or force:
        return
    if not out.is_dir():
        raise XProbeError(f"{out}: exists and is not a folder; choose another --out")
    if not any(out.iterdir()):
        return
    old = read_stamp(out, stamp)
    if old is None:
        raise XProbeError(
            f"{out}: exists, is not empty and holds no xprobe export; choose another --out "
            "(or --force to replace it)"
        )
    if old.get("kind") != info["kind"] or old.get("source") != info["source"]:
        raise XProbeError(
            f"{out}: holds a different export ({old.get('kind')} of {old.get('input', '?')}); "
            "choose another --out, or --force to replace it"
        )


@contextlib.contextmanager
def export_folder(out: Path, stamp: str, info: dict[str, Any], force: bool) -> Iterator[Path]:
    """A temporary folder to write the export into; renamed to ``out`` with ``info`` as its
    stamp when the block succeeds, removed when it fails."""
    out = Path(out)
    _check_target(out, stamp, info, force)
    clean_temp_folders(out.parent, out.name)  # what a killed export to this --out left
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.{os.getpid()}.", dir=out.parent))
    except OSError as e:
        raise XProbeError(
            f"{out.parent}: cannot write the export there ({(e.strerror or str(e)).lower()}); "
            "choose another --out"
        ) from None
    try:
        yield tmp
        write_json(tmp / stamp, info)
        if out.exists():
            old = out.parent / f"{tmp.name}.old"
            os.replace(out, old)
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(e, OSError) and e.filename is None:
            e.filename = str(out)  # a failed write (disk full) names the export it was for
        raise

"""Small file helpers shared by every stage: atomic writes, hashing, seeded generators."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import random
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

# the TOML reader of profiles, recipes and study files: the standard library from Python 3.11,
# tomli before (imported from here: `from xprobe.files import tomllib`)
if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "atomic_write",
    "derive_seed",
    "find_not_utf8",
    "inside",
    "name_problem",
    "np_rng",
    "open_text",
    "read_lines",
    "rng",
    "sha256_file",
    "tomllib",
    "write_json",
]


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temp file beside ``path``; rename it over ``path`` only if the block succeeds.

    A crash or an exception leaves no file at ``path`` that looks finished. ``mode`` is ``"w"``
    (UTF-8 text, ``\\n`` newlines) or ``"wb"``. A ``.gz`` path is gzipped with a fixed mtime and no
    file name in the header, so that the same content always gives the same bytes.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', not {mode!r}")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # the process id in the name tells a killed run's leftover from a running one's file
    prefix = f".{target.name}.{os.getpid()}."
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=target.parent)
    os.fchmod(fd, 0o666 & ~_UMASK)  # mkstemp makes 0600; finished files follow the umask
    try:
        with os.fdopen(fd, "wb") as raw:
            gz = (
                gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
                if target.suffix == ".gz"
                else None
            )
            binary: IO[bytes] = gz if gz is not None else raw
            if mode == "wb":
                yield binary
            else:
                text = io.TextIOWrapper(binary, encoding="utf-8", newline="\n")
                yield text
                text.flush()
                text.detach()
            if gz is not None:
                gz.close()
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, target)
    except BaseException as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.filename is None:
            e.filename = str(target)  # a failed write (disk full) names the file it was for
        raise


def write_json(path: str | os.PathLike[str], data: Any) -> None:
    """Write ``data`` as stable, indented JSON (sorted keys), atomically."""
    with atomic_write(path) as f:
        json.dump(data, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")


def open_text(path: str | os.PathLike[str]) -> IO[str]:
    """Open a UTF-8 text file for reading, gunzipping ``.gz`` transparently."""
    p = Path(path)
    if p.suffix == ".gz":
        return gzip.open(p, "rt", encoding="utf-8")
    return open(p, encoding="utf-8")


def read_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a UTF-8 text file (``.gz`` too), numbered from 1.

    A byte that is not UTF-8 is an :class:`~xprobe.errors.InputError` naming the file, the line
    and the byte, never a bare ``UnicodeDecodeError``.
    """
    try:
        with open_text(path) as f:
            yield from enumerate(f, 1)
    except UnicodeDecodeError:
        p = Path(path)
        raise find_not_utf8(p) or _input_error(p, "not UTF-8") from None


def _input_error(p: Path, message: str) -> Exception:
    from xprobe.errors import InputError

    return InputError(str(p), None, message)


def find_not_utf8(path: str | os.PathLike[str]) -> Exception | None:
    """An :class:`~xprobe.errors.InputError` locating the first byte of ``path`` that is not
    UTF-8 (file, line, byte), or None when it decodes; reads the file in binary, line by line."""
    from xprobe.errors import InputError

    p = Path(path)
    opener = gzip.open if p.suffix == ".gz" else open
    with opener(p, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as e:
                return InputError(
                    str(p),
                    lineno,
                    f"not UTF-8: byte 0x{raw[e.start]:02x} at byte {e.start + 1} of the line; "
                    "the file must be UTF-8 text (convert it, e.g. iconv -f latin1 -t utf-8)",
                )
    return None


def sha256_file(path: str | os.PathLike[str], chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def derive_seed(seed: int, *purpose: object) -> int:
    """A 64-bit seed derived from ``seed`` and a purpose such as (language, task, "split").

    Every random choice in xprobe comes from a generator seeded this way, so that adding a task or
    a language never changes the choices made for another.
    """
    h = hashlib.blake2b(repr((seed, *purpose)).encode("utf-8"), digest_size=8)
    return int.from_bytes(h.digest(), "little")


def rng(seed: int, *purpose: object) -> random.Random:
    """A ``random.Random`` seeded from (seed, *purpose)."""
    return random.Random(derive_seed(seed, *purpose))


def np_rng(seed: int, *purpose: object) -> np.random.Generator:
    """A numpy Generator seeded from (seed, *purpose)."""
    return np.random.default_rng(derive_seed(seed, *purpose))


def input_file_problem(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be read as an input file, or None when it is a regular file (a link
    to one included): ``no such file``, a folder, or not a regular file (a FIFO, a socket, a
    device: one that can be read once at most)."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as e:
        return f"cannot read it: {e.strerror or e}"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a folder, not a CoNLL-U file"
    what = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
    return f"is not a regular file ({what})"


def name_problem(name: str) -> str | None:
    """Why ``name`` (an entry, task or encoder name read from a file) cannot be one component of
    a path, or None when it can: it must be non-empty, hold no ``/``, ``\\``, ``..`` or control
    character, and not start with ``.``."""
    if not name:
        return "it is empty"
    if "/" in name or "\\" in name:
        return "it holds a path separator ('/' or '\\')"
    if ".." in name:
        return "it holds '..'"
    if name.startswith("."):
        return "it starts with '.'"
    if not all(ch.isprintable() for ch in name):
        return "it holds a control character"
    if len(name.encode("utf-8")) > 200:
        return "it is longer than 200 bytes"
    return None


def inside(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> Path:
    """``path`` resolved as the system would open it (relative to the current folder, symbolic
    links and ``..`` followed), proven to lie inside ``root`` (resolved too); an
    :class:`~xprobe.errors.XProbeError` naming both when it does not. Every path an output step
    writes or removes goes through this first."""
    from xprobe.errors import XProbeError

    base = Path(root).resolve()
    resolved = Path(path).resolve()
    if resolved != base and base not in resolved.parents:
        raise XProbeError(f"{path}: resolves to {resolved}, outside the output folder {base}")
    return resolved

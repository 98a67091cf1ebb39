"""Loading pretrained transformers (local directories or hub names) and naming their revision.

A local model directory's revision is the SHA-256 of the files that decide its output (config,
weights, tokenizer files, sentence-transformers module configs), so editing any of them changes
the encoder's id and the embedding cache never serves stale vectors. A model loaded by hub name
uses the commit hash the hub cache recorded. Without hub access a hub name fails with one line;
so does a local model whose weights file is damaged or unsafe (:mod:`xprobe.encoders.hfweights`).

``transformers`` and ``sentence-transformers`` are imported here, late: they are the optional
``xprobe[hf]`` extra.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from xprobe.encoders.spec_files import card_name, model_name
from xprobe.errors import XProbeError

__all__ = [
    "HUB_NAME",
    "LoadedModel",
    "bars_on_terminal_only",
    "card_name",
    "load_model",
    "local_revision",
    "model_name",
]

HUB_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")
_SKIP_DIRS = {"onnx", "openvino", ".git", ".cache"}
_SKIP_SUFFIXES = {".md", ".onnx", ".h5", ".msgpack", ".ot", ".gitattributes", ".lock"}
_REVISIONS: dict[tuple[str, int, int], str] = {}


def local_revision(path: str | os.PathLike[str]) -> str:
    """SHA-256 (16 hex) over the names and bytes of every file a model directory loads from.

    Skipped: READMEs, hidden files, other frameworks' weights (``onnx/``, ``.h5``, ``.msgpack``).
    Memoised per process on (path, total size, newest mtime).
    """
    root = Path(path)
    files = sorted(
        p
        for p in root.rglob("*")
        if p.is_file()
        and not any(
            part in _SKIP_DIRS or part.startswith(".") for part in p.relative_to(root).parts
        )
        and p.suffix.lower() not in _SKIP_SUFFIXES
    )
    stats = [p.stat() for p in files]
    key = (
        str(root.resolve()),
        sum(s.st_size for s in stats),
        max((s.st_mtime_ns for s in stats), default=0),
    )
    if key in _REVISIONS:
        return _REVISIONS[key]
    h = hashlib.sha256()
    for p in files:
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        with open(p, "rb") as f:
            for chunk in iter(lambda f=f: f.read(1 << 22), b""):
                h.update(chunk)
    _REVISIONS[key] = h.hexdigest()[:16]
    return _REVISIONS[key]


class LoadedModel:
    """What :func:`load_model` returns: the torch model, its tokenizer, and identity parts."""

    def __init__(self, kind: str, name: str, revision: str, model: Any, tokenizer: Any, st: Any):
        self.kind, self.name, self.revision = kind, name, revision
        self.model, self.tokenizer, self.st = model, tokenizer, st


def _need(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise XProbeError(
            f"{module} is not installed; install the transformer extra: pip install 'xprobe[hf]'"
        ) from None


def _source(kind: str, path: str) -> tuple[str, bool]:
    """(what to pass to from_pretrained, is it a local directory); clear errors otherwise."""
    p = Path(path).expanduser()
    if p.is_dir():
        marker = "modules.json" if kind == "st" else "config.json"
        if not (p / marker).is_file():
            what = "a sentence-transformers" if kind == "st" else "a transformers"
            raise XProbeError(f"{kind}:{path}: not {what} model directory (no {marker})")
        return str(p), True
    if p.exists():
        raise XProbeError(f"{kind}:{path}: not a directory (expected a model directory)")
    looks_local = path.startswith((".", "/", "~")) or path.endswith("/") or path.count("/") > 1
    if looks_local or not HUB_NAME.match(path):
        raise XProbeError(f"{kind}:{path}: model directory not found")
    return path, False


def load_model(
    kind: str, path: str, device: str, revision: str | None = None, auto: str = "AutoModel"
) -> LoadedModel:
    """Load an ``hf`` (``auto``, transformers' AutoModel class by default, + AutoTokenizer) or
    ``st`` (SentenceTransformer) model; ``revision``: a hub model's branch, tag or commit (a
    local directory has none to choose). Language-model scoring passes ``AutoModelForCausalLM``
    or ``AutoModelForMaskedLM``."""
    src, local = _source(kind, path)
    if revision is not None and local:
        raise XProbeError(
            f"{kind}:{path}[revision={revision}]: a local directory has one revision, its own "
            "files (the encoder id carries their digest); revision= chooses a hub model's version"
        )
    _need("transformers")
    if kind == "st":
        _need("sentence_transformers")
    # a hub name: the local hub cache first; the network only when the hub answers at all
    only_local = local or _offline() or not _hub_reachable()
    try:
        with bars_on_terminal_only():
            model, tok, st = _from_pretrained(kind, src, device, only_local, revision, auto)
    except Exception as e:
        if local:
            from xprobe.encoders.hfweights import weights_problem

            problem = weights_problem(src)
            if problem is not None:
                raise XProbeError(f"{kind}:{path}: {problem}") from None
        if not isinstance(e, (OSError, ValueError, RuntimeError)):
            raise
        first = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
        if not local:
            raise XProbeError(
                f"{kind}:{path}: not a local directory, and the model hub could not provide it "
                f"(no hub access here? download it elsewhere and pass its directory): {first}"
            ) from None
        raise XProbeError(f"{kind}:{path}: cannot load the model: {first}") from None
    name = _display_name(Path(src)) if local else path
    revision = local_revision(src) if local else _hub_commit(src, model, revision)
    return LoadedModel(kind, name, revision, model, tok, st)


def _hub_commit(name: str, model: Any, revision: str | None) -> str:
    """The commit a hub model was loaded at (its id names it: two versions never share cached
    vectors): the config's, else the cached snapshot folder's name."""
    commit = getattr(model.config, "_commit_hash", None)
    if commit:
        return str(commit)
    try:
        from huggingface_hub import snapshot_download

        folder = snapshot_download(name, revision=revision, local_files_only=True)
    except Exception:  # nothing cached to name it by: the version asked for
        return str(revision)
    return Path(folder).name


def _from_pretrained(
    kind: str,
    src: str,
    device: str,
    only_local: bool,
    revision: str | None = None,
    auto: str = "AutoModel",
) -> tuple[Any, Any, Any]:
    """(model, tokenizer, SentenceTransformer or None)."""
    kw: dict[str, Any] = {"local_files_only": only_local}
    kw.update({"revision": revision} if revision is not None else {})
    if kind == "st":
        from sentence_transformers import SentenceTransformer

        st = SentenceTransformer(src, device=device, **kw)
        return st[0].auto_model, st[0].tokenizer, st
    import transformers

    model = getattr(transformers, auto).from_pretrained(src, **kw)
    return model, transformers.AutoTokenizer.from_pretrained(src, **kw), None


@contextlib.contextmanager
def bars_on_terminal_only() -> Iterator[None]:
    """transformers' own progress bars ("Loading weights") only when stderr is a terminal: a
    log file or a pipe gets none. Put back as they were on exit."""
    from transformers.utils import logging as hf_logging

    if sys.stderr.isatty() or not hf_logging.is_progress_bar_enabled():
        yield
        return
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.enable_progress_bar()


def _hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the hub endpoint (``$HF_ENDPOINT``) accepts a TCP connection within ``timeout``
    seconds (name lookup included): without it, loading by name fails at once, not after
    minutes of retries."""
    import socket
    import threading
    from urllib.parse import urlparse

    url = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    host, port = (
        url.hostname or "huggingface.co",
        url.port or (443 if url.scheme == "https" else 80),
    )
    ok: list[bool] = []

    def probe() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                ok.append(True)
        except OSError:
            pass

    t = threading.Thread(target=probe, daemon=True)
    t.start()
    t.join(timeout)
    return bool(ok)


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0") or bool(
        os.environ.get("TRANSFORMERS_OFFLINE")
    )


def _display_name(p: Path) -> str:
    """The folder name; for generic names (``model``) the parent folder's name too."""
    p = p.resolve()
    if p.name.lower() in ("model", "models", "snapshot", "hf", "st") and p.parent.name:
        return f"{p.parent.name}-{p.name}"
    return p.name

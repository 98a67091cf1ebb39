"""Downloads the real pipeline needs: UDPipe models, Wikipedia dumps, fastText vectors, MUSE, XNLI,
and the parallel corpora of the mapping recipes (Europarl v7, MultiUN from OPUS).

Files go to a cache folder: ``--cache-dir``, else ``$XPROBE_CACHE``, else
``$XDG_CACHE_HOME/xprobe``, else ``~/.cache/xprobe``; each kind in its own subfolder
(``udpipe/``, ``wikipedia/``, ``fasttext/``, ``muse/``, ``xnli/``, ``europarl/``, ``multiun/``;
archives of parallel text are unpacked into ``europarl/de-en/``, ``multiun/en-ru/`` etc.).
A download is written to ``NAME.part`` and resumed from where it stopped (HTTP ``Range``); it is
verified against the checksum its source publishes (Wikipedia's ``sha1sums.txt``) and only then
renamed to ``NAME``, so a file in the cache is always complete. Plain ``urllib``, nothing else.

Sources are URL templates below; ``base_url`` replaces a source's default host (mirrors, tests).

Example::

    >>> from xprobe.download import plan, fetch                        # doctest: +SKIP
    >>> for item in plan("wikipedia", ["de"], date="20190101"):
    ...     fetch(item)
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

from xprobe.errors import XProbeError
from xprobe.files import atomic_write

__all__ = ["SOURCES", "Item", "cache_dir", "fetch", "plan"]

log = logging.getLogger(__name__)

# what -> (default base URL, path template). {name}: profile value; {wiki}: Wikipedia code.
SOURCES: dict[str, tuple[str, str]] = {
    # UD 2.5 UDPipe 1 models (LINDAT handle 11234/1-3131), names as in the profiles' udpipe_model
    "udpipe": (
        "https://lindat.mff.cuni.cz",
        "/repository/xmlui/bitstream/handle/11234/1-3131/{name}?sequence=1",
    ),
    "wikipedia": (
        "https://dumps.wikimedia.org",
        "/{wiki}wiki/{date}/{wiki}wiki-{date}-pages-articles.xml.bz2",
    ),
    "wikipedia-sha1": (
        "https://dumps.wikimedia.org",
        "/{wiki}wiki/{date}/{wiki}wiki-{date}-sha1sums.txt",
    ),
    "fasttext": ("https://dl.fbaipublicfiles.com", "/fasttext/vectors-wiki/{name}.{ext}"),
    "fasttext-cc": (
        "https://dl.fbaipublicfiles.com",
        "/fasttext/vectors-crawl/cc.{lang}.300.{ext}",
    ),
    "muse": ("https://dl.fbaipublicfiles.com", "/arrival/dictionaries/{src}-{lang}{split}.txt"),
    "xnli": ("https://dl.fbaipublicfiles.com", "/XNLI/XNLI-1.0.zip"),
    # parallel corpora for the mapping recipes (mapping/*.toml); archives, unpacked after download
    "europarl": ("https://www.statmt.org", "/europarl/v7/{pair}.tgz"),
    "multiun": ("https://object.pouta.csc.fi", "/OPUS-MultiUN/v1/moses/{pair}.txt.zip"),
    # English NLI for train-nli; unpacked into nli/snli_1.0/ and nli/multinli_1.0/
    "snli": ("https://nlp.stanford.edu", "/projects/snli/snli_1.0.zip"),
    "multinli": ("https://cims.nyu.edu", "/~sbowman/multinli/multinli_1.0.zip"),
}
WHAT = (
    "udpipe",
    "wikipedia",
    "fasttext",
    "fasttext-cc",
    "muse",
    "xnli",
    "europarl",
    "multiun",
    "snli",
    "multinli",
)
_NO_LANG = ("xnli", "snli", "multinli")
MUSE_SPLITS = {"full": "", "train": ".0-5000", "test": ".5000-6500"}
_CHUNK = 1 << 20


def cache_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The cache folder (see the module doc for the order of precedence)."""
    if override:
        return Path(override)
    if os.environ.get("XPROBE_CACHE"):
        return Path(os.environ["XPROBE_CACHE"])
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "xprobe"


@dataclass(frozen=True)
class Item:
    """One file to fetch; ``checksum`` is (algorithm, URL of a ``sha1sums``-style list) or None."""

    url: str
    dest: Path
    checksum_url: str | None = None
    algorithm: str = "sha1"
    unpack_to: Path | None = None  # an archive whose files are extracted here after download


def _url(what: str, base_url: str | None, **fields: str) -> str:
    base, path = SOURCES[what]
    return (base_url or base).rstrip("/") + path.format(**fields)


def plan(
    what: str,
    langs: Sequence[str],
    cache: Path | None = None,
    date: str = "latest",
    base_url: str | None = None,
    ext: str | None = None,
    src: str = "en",
    muse_split: str = "full",
) -> list[Item]:
    """The files ``xprobe download WHAT`` fetches for ``langs`` (codes of language profiles)."""
    from xprobe.languages import load_profile

    root = cache or cache_dir()
    if what not in WHAT:
        raise XProbeError(f"unknown download {what!r}; choose from {', '.join(WHAT)}")
    if what == "xnli":
        return [Item(_url("xnli", base_url), root / "xnli" / "XNLI-1.0.zip")]
    if what in _NO_LANG:
        url = _url(what, base_url)
        name = url.rsplit("/", 1)[1]
        return [Item(url, root / "nli" / name, unpack_to=root / "nli" / name.removesuffix(".zip"))]
    if not langs:
        raise XProbeError(f"download {what} needs --lang")
    items = []
    for code in langs:
        p = load_profile(code)
        if what in ("europarl", "multiun"):
            items.append(_parallel_item(what, p.code, src, root, base_url))
        elif what == "udpipe":
            if not p.udpipe_model:
                raise XProbeError(f"profile {code!r} names no udpipe_model")
            url = _url("udpipe", base_url, name=p.udpipe_model)
            items.append(Item(url, root / "udpipe" / p.udpipe_model))
        elif what == "wikipedia":
            wiki = p.wikipedia or p.code
            url = _url("wikipedia", base_url, wiki=wiki, date=date)
            sums = _url("wikipedia-sha1", base_url, wiki=wiki, date=date)
            name = f"{wiki}wiki-{date}-pages-articles.xml.bz2"
            items.append(Item(url, root / "wikipedia" / name, sums))
        elif what == "fasttext":  # the profile's name: wiki.de -> vectors-wiki/wiki.de.vec
            name = p.fasttext or f"wiki.{p.code}"
            kind = "fasttext-cc" if name.startswith("cc.") else "fasttext"
            default = "vec.gz" if kind == "fasttext-cc" else "vec"
            url = _url(kind, base_url, name=name, lang=p.code, ext=ext or default)
            items.append(Item(url, root / "fasttext" / url.rsplit("/", 1)[1]))
        elif what == "fasttext-cc":
            url = _url(what, base_url, lang=p.code, ext=ext or "vec.gz")
            items.append(Item(url, root / "fasttext" / url.rsplit("/", 1)[1]))
        else:
            if muse_split not in MUSE_SPLITS:
                raise XProbeError(f"unknown MUSE split {muse_split!r}: {', '.join(MUSE_SPLITS)}")
            for a, b in ((src, p.code), (p.code, src)):
                if a == b:
                    continue
                url = _url("muse", base_url, src=a, lang=b, split=MUSE_SPLITS[muse_split])
                items.append(Item(url, root / "muse" / url.rsplit("/", 1)[1]))
    return items


def _parallel_item(what: str, lang: str, src: str, root: Path, base_url: str | None) -> Item:
    """Europarl v7 names pairs ``xx-en``; OPUS (MultiUN) sorts the two codes: ``en-ru``."""
    if lang == src:
        raise XProbeError(f"download {what}: --lang {lang} is the pivot language itself")
    pair = f"{lang}-{src}" if what == "europarl" else "-".join(sorted((lang, src)))
    url = _url(what, base_url, pair=pair)
    dest = root / what / url.rsplit("/", 1)[1]
    return Item(url, dest, unpack_to=root / what / pair)


def unpack(archive: Path, into: Path) -> list[Path]:
    """Extract the regular files of a .tgz/.zip into ``into`` (flat, by base name), atomically.

    A marker file records completion, so an interrupted unpack is redone and a finished one is not.
    """
    import tarfile
    import zipfile

    marker = into / f".unpacked-{archive.name}"
    if marker.exists():
        return sorted(p for p in into.iterdir() if not p.name.startswith("."))
    into.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def _copy(name: str, stream: IO[bytes]) -> None:
        target = into / Path(name).name
        with atomic_write(target, "wb") as out:
            shutil.copyfileobj(stream, out, _CHUNK)
        written.append(target)

    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as z:
                for info in z.infolist():
                    if not info.is_dir() and not _is_junk(info.filename):
                        with z.open(info) as stream:
                            _copy(info.filename, stream)
        else:
            with tarfile.open(archive, "r:*") as tar:
                for member in tar:
                    wanted = member.isfile() and not _is_junk(member.name)
                    stream = tar.extractfile(member) if wanted else None
                    if stream is not None:
                        _copy(member.name, stream)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as e:
        raise XProbeError(f"{archive}: cannot unpack ({e}); delete it and download again") from None
    marker.write_text("\n".join(p.name for p in written) + "\n")
    log.info("unpacked %d files into %s", len(written), into)
    return sorted(written)


def _is_junk(name: str) -> bool:
    """macOS resource forks that some archives carry (``__MACOSX/``, ``._name``)."""
    return name.startswith("__MACOSX") or Path(name).name.startswith("._")


def _open(url: str, start: int = 0, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    req = urllib.request.Request(url, headers={"User-Agent": "xprobe"})
    if start:
        req.add_header("Range", f"bytes={start}-")
    try:
        return urllib.request.urlopen(req, timeout=timeout)
    except urllib.error.HTTPError as e:
        if e.code == 416 and start:
            return None  # the partial file is already whole
        raise XProbeError(f"download failed: {url}: HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        host = urlsplit(url).netloc
        raise XProbeError(f"cannot reach {host} ({reason}): offline? url: {url}") from None


def published_checksum(item: Item) -> str | None:
    """The checksum of ``item`` from its source's list, or None when it has none."""
    if not item.checksum_url:
        return None
    resp = _open(item.checksum_url)
    with resp:
        text = resp.read().decode("utf-8", "replace")
    name = urlsplit(item.url).path.rsplit("/", 1)[1]
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("*") == name:
            return parts[0].lower()
    raise XProbeError(f"{item.checksum_url} lists no checksum for {name}")


def fetch(item: Item, progress: bool = True) -> Path:
    """Download ``item`` (resuming a ``.part``), verify, rename into place; return the path.

    An archive item (``unpack_to``) is also unpacked; the returned path is then that folder.
    """
    if item.dest.exists():
        log.info("cached: %s", item.dest)
    else:
        _fetch(item, progress)
    if item.unpack_to is not None:
        unpack(item.dest, item.unpack_to)
        return item.unpack_to
    return item.dest


def _fetch(item: Item, progress: bool) -> None:
    expected = published_checksum(item)
    item.dest.parent.mkdir(parents=True, exist_ok=True)
    part = item.dest.with_name(item.dest.name + ".part")
    _download(item.url, part, progress)
    if expected is not None:
        h = hashlib.new(item.algorithm)
        with open(part, "rb") as f:
            while block := f.read(_CHUNK):
                h.update(block)
        if h.hexdigest() != expected:
            part.unlink()
            raise XProbeError(
                f"checksum mismatch for {item.url}: expected {item.algorithm} {expected}, got "
                f"{h.hexdigest()}; the partial file was deleted, run again to retry"
            )
    os.replace(part, item.dest)
    log.info("downloaded %s", item.dest)


def _download(url: str, part: Path, progress: bool) -> None:
    from tqdm import tqdm

    start = part.stat().st_size if part.exists() else 0
    resp = _open(url, start)
    if resp is None:
        return
    with resp:
        status = getattr(resp, "status", 200)
        if start and status != 206:
            start = 0  # the server ignored Range: start again
        length = resp.headers.get("Content-Length")
        total = start + int(length) if length and length.isdigit() else None
        mode = "ab" if start else "wb"
        with (
            open(part, mode) as out,
            tqdm(
                total=total,
                initial=start,
                unit="B",
                unit_scale=True,
                desc=part.name[:-5],
                disable=None if progress else True,
            ) as bar,
        ):
            try:
                while block := resp.read(_CHUNK):
                    out.write(block)
                    bar.update(len(block))
            except OSError as e:
                raise XProbeError(
                    f"download of {url} interrupted ({e}); run again to resume"
                ) from None

"""Downloads the real pipeline needs: UDPipe models, Wikipedia dumps, fastText vectors, MUSE, XNLI.

Files go to a cache folder: ``--cache-dir``, else ``$XPROBE_CACHE``, else
``$XDG_CACHE_HOME/xprobe``, else ``~/.cache/xprobe``; each kind in its own subfolder
(``udpipe/``, ``wikipedia/``, ``fasttext/``, ``muse/``, ``xnli/``). A download is written to
``NAME.part`` and resumed from where it stopped (HTTP ``Range``); it is verified against the
checksum its source publishes (Wikipedia's ``sha1sums.txt``) and only then renamed to ``NAME``, so
a file in the cache is always complete. Plain ``urllib``, no other dependency.

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
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from xprobe.errors import XProbeError

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
}
WHAT = ("udpipe", "wikipedia", "fasttext", "fasttext-cc", "muse", "xnli")
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
    if not langs:
        raise XProbeError(f"download {what} needs --lang")
    items = []
    for code in langs:
        p = load_profile(code)
        if what == "udpipe":
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
    """Download ``item`` (resuming a ``.part``), verify, rename into place; return the path."""
    if item.dest.exists():
        log.info("cached: %s", item.dest)
        return item.dest
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
    return item.dest


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

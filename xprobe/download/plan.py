"""What to download and where it goes: the sources' URL templates, the cache folder, ``plan``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from xprobe.errors import XProbeError

__all__ = ["MUSE_SPLITS", "SOURCES", "WHAT", "Item", "cache_dir", "plan"]

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

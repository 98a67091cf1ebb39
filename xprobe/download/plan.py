"""What to download and where it goes: the sources' URL templates, the cache folder, ``plan``."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from xprobe.errors import XProbeError

__all__ = ["MUSE_SPLITS", "SOURCES", "UD_RELEASES", "WHAT", "Item", "cache_dir", "plan"]

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
    # a Universal Dependencies release (every treebank), unpacked into ud/ud-treebanks-vX.Y/
    "ud": (
        "https://lindat.mff.cuni.cz",
        "/repository/xmlui/bitstream/handle/11234/{handle}/ud-treebanks-v{release}.tgz",
    ),
}
# UD release -> its LINDAT handle (11234/HANDLE), as each release's citation gives it. The URLs
# built from them were not fetched when this table was written: a release missing here, or a URL
# that moved, takes --url (docs/download.md).
UD_RELEASES: dict[str, str] = {
    "2.0": "1-1983", "2.1": "1-2515", "2.2": "1-2837", "2.3": "1-2895", "2.4": "1-2988",
    "2.5": "1-3105", "2.6": "1-3226", "2.7": "1-3424", "2.8": "1-3687", "2.9": "1-4611",
    "2.10": "1-4758", "2.11": "1-4923", "2.12": "1-5150", "2.13": "1-5287", "2.14": "1-5502",
    "2.15": "1-5787", "2.16": "1-5901",
}  # fmt: skip
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
    "ud",
)
_NO_LANG = ("xnli", "snli", "multinli", "ud")
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
    keep_paths: bool = False  # unpack with the members' folders (less a top folder all share)


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
    release: str | None = None,
    url: str | None = None,
) -> list[Item]:
    """The files ``xprobe download WHAT`` fetches for ``langs`` (codes of language profiles);
    ``release`` and ``url``: the UD release of ``what = "ud"`` and, optionally, its archive's
    URL (required for a release not in :data:`UD_RELEASES`)."""
    from xprobe.languages import load_profile

    root = cache or cache_dir()
    if what not in WHAT:
        raise XProbeError(f"unknown download {what!r}; choose from {', '.join(WHAT)}")
    if what == "ud":
        return [ud_item(release, root, base_url, url)]
    if release or url:
        raise XProbeError(f"download {what}: --release and --url are for `download ud` only")
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


def ud_item(release: str | None, root: Path, base_url: str | None, url: str | None) -> Item:
    """The archive of UD release ``release`` (``2.14``), unpacked with its folders into
    ``ud/ud-treebanks-vRELEASE/`` (``UD_English-EWT/en_ewt-ud-test.conllu`` ...)."""
    if not release:
        raise XProbeError("download ud needs --release X.Y (e.g. --release 2.14)")
    if not re.fullmatch(r"\d+\.\d+", release):
        raise XProbeError(f"download ud: --release {release!r} is not a release number X.Y")
    if not url:
        if release not in UD_RELEASES:
            known = ", ".join(UD_RELEASES)
            raise XProbeError(
                f"download ud: release {release} is not in xprobe's table (known: {known}); "
                f"give --url URL of its ud-treebanks-v{release}.tgz"
            )
        url = _url("ud", base_url, handle=UD_RELEASES[release], release=release)
    name = f"ud-treebanks-v{release}"
    return Item(url, root / "ud" / f"{name}.tgz", unpack_to=root / "ud" / name, keep_paths=True)

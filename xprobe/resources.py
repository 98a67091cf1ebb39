"""Where xprobe's data folders are: ``languages/``, ``mapping/`` and ``studies/``.

In the repository they live at the top level (where the layout wants them). A wheel carries a
copy under ``xprobe/_data/`` (``setup.py`` copies them in at build time), so an installed
xprobe finds its own profiles, recipes and study files. The lookup order for a folder ``NAME``:

1. ``checkout``: ``NAME/`` next to the package when the package sits in a checkout (the folder
   above it holds ``pyproject.toml`` and ``languages/``), which is what an editable install and
   ``PYTHONPATH=.`` read, so an edit to ``languages/de.toml`` takes effect at once;
2. ``package``: ``xprobe/_data/NAME/`` inside an installed wheel.

Example::

    folder = data_dir("languages")       # Resource(path=..., origin="checkout")
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xprobe import REPO_ROOT_MARKERS

__all__ = ["DATA_FOLDERS", "PACKAGE_DATA", "REPO_ROOT", "Resource", "data_dir"]

DATA_FOLDERS = ("languages", "mapping", "studies")
PACKAGE_DATA = Path(__file__).resolve().parent / "_data"
REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Resource:
    """A data folder and where it came from (``checkout`` or ``package``)."""

    path: Path
    origin: str


def in_checkout(root: Path | None = None) -> bool:
    """Whether ``root`` (default: the folder above the package) is an xprobe checkout."""
    root = REPO_ROOT if root is None else root
    return all((root / marker).exists() for marker in REPO_ROOT_MARKERS)


def data_dir(name: str) -> Resource:
    """The folder ``name`` (one of :data:`DATA_FOLDERS`): the checkout's, else the wheel's copy.

    When neither exists the checkout path is returned (``origin="missing"``), so that error
    messages name the place a user would add files."""
    if name not in DATA_FOLDERS:
        raise ValueError(f"unknown data folder {name!r}; valid: {', '.join(DATA_FOLDERS)}")
    if in_checkout():
        return Resource(REPO_ROOT / name, "checkout")
    if (PACKAGE_DATA / name).is_dir():
        return Resource(PACKAGE_DATA / name, "package")
    return Resource(REPO_ROOT / name, "missing")

"""List the language profiles xprobe knows, with where each came from.

Origins: ``$XPROBE_LANGUAGES`` (a folder named in that variable), ``checkout`` (the repository's
``languages/``, read by an editable install) or ``package`` (the copy an installed wheel carries).
A code found in several places is read from the first (the order above). The last lines name the
folders of the mapping recipes and study files.

Example:
  xprobe languages
"""

from __future__ import annotations

import argparse

HELP = "list the language profiles it knows and where each came from"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--paths", action="store_true", help="show each profile's file path")


def run(args: argparse.Namespace) -> int:
    from xprobe.languages import load_profile, profile_sources
    from xprobe.resources import DATA_FOLDERS, data_dir

    sources = profile_sources()
    names = [load_profile(str(s.path)).name for s in sources]
    width = max((len(s.code) for s in sources), default=4)
    name_width = max((len(n) for n in names), default=4)
    for s, name in zip(sources, names, strict=True):
        where = str(s.path) if args.paths else s.origin
        print(f"{s.code.ljust(width)}  {name.ljust(name_width)}  {where}")
    if not sources:
        folder = data_dir("languages").path
        print(f"no language profiles (looked in $XPROBE_LANGUAGES and {folder})")
    for folder in DATA_FOLDERS[1:]:
        res = data_dir(folder)
        n = len(list(res.path.glob("*.toml"))) if res.path.is_dir() else 0
        print(f"{folder}: {n} file(s) in {res.path} ({res.origin})")
    return 0

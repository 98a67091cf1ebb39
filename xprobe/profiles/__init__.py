"""Language profiles drafted from a gold treebank (``xprobe profile draft``).

Below :mod:`xprobe.extract` in the layer order: it reads CoNLL-U and runs the tasks' own rules,
and writes TOML that :mod:`xprobe.languages` loads.
"""

from xprobe.profiles.draft import draft_profile

__all__ = ["draft_profile"]

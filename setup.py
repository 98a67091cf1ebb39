"""Build hook: the wheel carries the top-level data folders (languages/, mapping/, studies/).

They stay at the top of the repository, where the layout wants them; at build time they are
copied into ``xprobe/_data/`` of the wheel, where :mod:`xprobe.resources` finds them when the
package is not in a checkout. An editable install copies nothing: it reads the checkout's folders.
Everything else about the package is in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
DATA_FOLDERS = ("languages", "mapping", "studies")  # as xprobe.resources.DATA_FOLDERS


class BuildWithData(build_py):
    """``build_py`` that also copies the data folders into ``xprobe/_data/``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "xprobe" / "_data"
        shutil.rmtree(target, ignore_errors=True)  # no stale files from an earlier build
        for name in DATA_FOLDERS:
            if (ROOT / name).is_dir():
                shutil.copytree(
                    ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__", ".*")
                )


setup(cmdclass={"build_py": BuildWithData})

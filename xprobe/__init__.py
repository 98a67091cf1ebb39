"""xprobe: multilingual probing benchmarks for sentence encoders."""

__version__ = "0.1.0"

REPO_ROOT_MARKERS = ("pyproject.toml", "languages")

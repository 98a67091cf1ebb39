#!/usr/bin/env bash
# Set up (scripts/setup.sh test: every extra the tests use), lint, and run the test suite.
# Usage: scripts/test.sh [--slow | --all] [pytest args...]
#   default: the fast suite (under ~10 minutes on 2 cores); --slow: only the slow tests;
#   --all: everything.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
marker=(-m "not slow")
case "${1:-}" in
  --slow) marker=(-m slow); shift ;;
  --all) marker=(); shift ;;
esac
.venv/bin/ruff check .
.venv/bin/ruff format --check .
set +e
.venv/bin/python -m pytest "${marker[@]}" "$@"
rc=$?
set -e
# pytest exits 5 when the selection is empty (e.g. no slow tests yet): that is not a failure.
if [ "$rc" -eq 5 ]; then rc=0; fi
echo "test: xprobe is in .venv, not on your PATH: .venv/bin/xprobe --help, or" \
  "source .venv/bin/activate first (then: xprobe --help)" >&2
exit "$rc"

#!/usr/bin/env bash
# X-Probe at full scale: a thin wrapper over `xprobe run studies/xprobe-2019.toml` (the study file
# is the recipe; docs/studies.md). Resumable: rerun after an interruption.
#   DATA=/data/xprobe WORK=/data/work scripts/full-scale/all.sh
#   SCHEDULER=tcp://scheduler:8786 scripts/full-scale/all.sh        # steps and parsing on Dask
#   scripts/full-scale/all.sh --dry-run                              # extra arguments pass through
# DATA: the download cache (exported as XPROBE_CACHE); WORK: the study's output folder.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
"$ROOT/scripts/setup.sh"
export XPROBE_CACHE=${DATA:-$ROOT/data}
exec "${XPROBE:-$ROOT/.venv/bin/xprobe}" run "$ROOT/studies/xprobe-2019.toml" \
  --out "${WORK:-$ROOT/work}" ${SCHEDULER:+--scheduler "$SCHEDULER"} "$@"

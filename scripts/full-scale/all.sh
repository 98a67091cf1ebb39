#!/usr/bin/env bash
# The X-Probe study at full scale, end to end: en, de, es, fr, ru (set LANGS to change).
# Every step is resumable; rerun this script after an interruption. See docs/pipeline.md.
#   DEVICE=cuda WORKERS=16 scripts/full-scale/all.sh
#   SCHEDULER=tcp://scheduler:8786 scripts/full-scale/all.sh     # parse on a Dask cluster
set -euo pipefail
here=$(dirname "$0")
"$here/../setup.sh"
for step in 01-download 02-corpus 03-extract 04-train-nli 05-map 06-probe 07-report; do
  "$here/$step.sh"
done

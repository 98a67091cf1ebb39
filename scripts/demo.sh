#!/usr/bin/env bash
# Set up (scripts/setup.sh demo: only what the demo and probing need) and run the whole X-Probe
# pipeline on a generated English/German sample: UDPipe training, corpus, extract, fastText,
# train-nli, map-vectors, map, probe, report.
# Usage: scripts/demo.sh [xprobe demo flags, e.g. --size tiny --seed 2]
# Outputs in demo-out/ (rerun to resume; delete demo-out/ to start over).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh demo
.venv/bin/xprobe demo --out demo-out "$@"
echo "demo: open demo-out/report/report.html in a browser (the answer first)." >&2
echo "demo: xprobe is in .venv, not on your PATH: .venv/bin/xprobe --help, or" \
  "source .venv/bin/activate first (then: xprobe --help)" >&2

# Settings shared by the full-scale X-Probe scripts; override any of them in the environment.
#   DATA       downloads (xprobe download's cache: fasttext/, muse/, udpipe/, wikipedia/, xnli/...)
#   WORK       parsed corpora, probing sets, models, results, report
#   LANGS      languages probed; English first (the reference and the NLI teacher)
#   WORKERS    UDPipe processes per machine for `xprobe corpus`
#   SCHEDULER  a Dask scheduler address (tcp://host:8786) to parse on a cluster; empty: local
#   DEVICE     torch device for train-nli, map and probe (cuda, cuda:1, cpu)
#   ENCODERS   the six X-Probe encoders (appendix Table 2)
#   DUMP_DATE  Wikipedia dump date: latest (default), or a YYYYMMDD that dumps.wikimedia.org still
#              lists (it keeps the last few months); pin one to make a run repeatable
#   DUMP_MIRROR  base URL of a dump mirror with the same layout, for older dates (X-Probe's 2019
#              dumps are no longer on dumps.wikimedia.org); empty: dumps.wikimedia.org
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
XPROBE=${XPROBE:-$ROOT/.venv/bin/xprobe}
DATA=${DATA:-$ROOT/data}
WORK=${WORK:-$ROOT/work}
LANGS=${LANGS:-"en de es fr ru"}
WORKERS=${WORKERS:-$(nproc)}
SCHEDULER=${SCHEDULER:-}
DEVICE=${DEVICE:-cuda}
ENCODERS=${ENCODERS:-"bilstm-max bilstm-last attn-max attn-last cnn-max cnn-avg"}
DUMP_DATE=${DUMP_DATE:-latest}
DUMP_MIRROR=${DUMP_MIRROR:-}
SIZES=${SIZES:-100000,10000,10000}
SEED=${SEED:-1111}
export XPROBE_CACHE=$DATA
mkdir -p "$DATA" "$WORK"
# The target languages: every language but English.
TARGETS=$(for l in $LANGS; do [ "$l" = en ] || printf '%s ' "$l"; done)
log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

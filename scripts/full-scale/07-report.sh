#!/usr/bin/env bash
# 7. Tables (Markdown, CSV) and heatmaps relative to English from every result record.
source "$(dirname "$0")/env.sh"
log "report"
$XPROBE report "$WORK"/results/*.jsonl --out "$WORK/report" --reference-lang en
log "report in $WORK/report/report.md"

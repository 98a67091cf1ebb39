#!/usr/bin/env bash
# 2. Wikipedia dump -> sentences -> Moses tokens -> UDPipe parses, per language (resumable:
#    rerun after an interruption). With SCHEDULER set, shards are parsed on that Dask cluster.
source "$(dirname "$0")/env.sh"
for lang in $LANGS; do
  log "corpus $lang"
  args=(--lang "$lang" --out "$WORK/$lang/parsed" --workers "$WORKERS")
  [ -n "$SCHEDULER" ] && args+=(--scheduler "$SCHEDULER")
  [ -n "${MAX_SENTENCES:-}" ] && args+=(--max-sentences "$MAX_SENTENCES")
  # the UDPipe model is the profile's udpipe_model in $DATA/udpipe (XPROBE_CACHE)
  $XPROBE corpus "${args[@]}" "$DATA/wikipedia/${lang}wiki-$DUMP_DATE-pages-articles.xml.bz2"
done

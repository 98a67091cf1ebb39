#!/usr/bin/env bash
# 3. The nine probing tasks per language, SentEval format, 100k/10k/10k by default.
source "$(dirname "$0")/env.sh"
for lang in $LANGS; do
  log "extract $lang"
  $XPROBE extract --lang "$lang" --out "$WORK/probing/$lang" --sizes "$SIZES" --seed "$SEED" \
    "$WORK/$lang/parsed"/*.conllu.gz
done

#!/usr/bin/env bash
# 5. Word vectors of each target language mapped into the English space (map-vectors), then each
#    English encoder mapped to each language on parallel text with XNLI early stopping (map,
#    recipes in mapping/en-xx.toml; their data paths are relative to $DATA).
source "$(dirname "$0")/env.sh"
for lang in $TARGETS; do
  log "map-vectors $lang"
  $XPROBE map-vectors --src "$DATA/fasttext/wiki.en.vec" --tgt "$DATA/fasttext/wiki.$lang.vec" \
    --dictionary "$DATA/muse/en-$lang.0-5000.txt" --test-dictionary "$DATA/muse/en-$lang.5000-6500.txt" \
    --out "$DATA/fasttext/wiki.$lang.mapped-en.vec" --report "$WORK/mapping/$lang-vectors.json" \
    --max-vocab 200000
  for enc in $ENCODERS; do
    out=$WORK/models/$lang-$enc
    resume=(); [ -e "$out" ] && resume=(--resume)
    log "map en-$lang $enc"
    $XPROBE map --pair "en-$lang" --data-dir "$DATA" --teacher "$WORK/models/en-$enc" \
      --out "$out" --device "$DEVICE" "${resume[@]}"
  done
done

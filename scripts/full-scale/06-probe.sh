#!/usr/bin/env bash
# 6. Probe every encoder on every language (English native, the others mapped), with the
#    bag-of-vectors encoder and the encoder-free baselines, MLP with dev-based selection.
#    Records go to $WORK/results/LANG.jsonl; rerunning skips what is recorded.
source "$(dirname "$0")/env.sh"
mkdir -p "$WORK/results"
for lang in $LANGS; do
  data=$WORK/probing/$lang
  res=$WORK/results/$lang.jsonl
  vec=$DATA/fasttext/wiki.$lang.mapped-en.vec; [ "$lang" = en ] && vec=$DATA/fasttext/wiki.en.vec
  log "probe $lang: baselines, bov"
  $XPROBE probe --data "$data" --out "$res" --lang "$lang" --classifier majority length nb-unigram nb-bigram
  $XPROBE probe --data "$data" --out "$res" --lang "$lang" --encoder "bov:$vec" --name bov-fasttext --device "$DEVICE"
  for enc in $ENCODERS; do
    log "probe $lang $enc"
    $XPROBE probe --data "$data" --out "$res" --lang "$lang" --encoder "$WORK/models/$lang-$enc" \
      --name "$enc" --device "$DEVICE"
  done
done

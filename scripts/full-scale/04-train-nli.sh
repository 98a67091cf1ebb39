#!/usr/bin/env bash
# 4. The six English encoders, trained on SNLI + MultiNLI over frozen wiki.en vectors
#    (X-Probe section 5.1). Resumable with --resume; one GPU takes them in turn.
#    --vocab-from keeps the vectors of the English probing sets' words too: without it the
#    encoder skips every word outside SNLI/MultiNLI when probed (probe reports the coverage).
source "$(dirname "$0")/env.sh"
NLI=$DATA/nli
for enc in $ENCODERS; do
  out=$WORK/models/en-$enc
  resume=(); [ -e "$out" ] && resume=(--resume)
  log "train-nli $enc"
  $XPROBE train-nli --encoder "$enc" --vectors "$DATA/fasttext/wiki.en.vec" \
    --train "$NLI/snli_1.0/snli_1.0_train.jsonl" "$NLI/multinli_1.0/multinli_1.0_train.jsonl" \
    --dev "$NLI/snli_1.0/snli_1.0_dev.jsonl" --test "$NLI/snli_1.0/snli_1.0_test.jsonl" \
    --vocab-from "$WORK/probing/en" --out "$out" --device "$DEVICE" "${resume[@]}"
done

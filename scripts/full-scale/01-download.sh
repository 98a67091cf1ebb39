#!/usr/bin/env bash
# 1. Everything the study reads, with `xprobe download` (resumable, checksummed where the source
#    publishes checksums, atomic): UDPipe models, Wikipedia dumps, fastText wiki vectors, MUSE
#    dictionaries, XNLI, SNLI + MultiNLI, and the parallel corpora (Europarl v7 for de/es/fr,
#    MultiUN for ru and fr-un), unpacked where the mapping recipes (mapping/*.toml) look.
# Disk: about 110 GB in all (see the README, "Expected time and disk").
source "$(dirname "$0")/env.sh"
log "download: udpipe, wikipedia ($DUMP_DATE), fasttext, muse, xnli, nli, parallel for $LANGS"
$XPROBE download udpipe --lang $LANGS
$XPROBE download wikipedia --lang $LANGS --date "$DUMP_DATE" ${DUMP_MIRROR:+--base-url "$DUMP_MIRROR"}
$XPROBE download fasttext --lang $LANGS
for split in train test; do $XPROBE download muse --lang $TARGETS --split "$split"; done
$XPROBE download xnli
[ -d "$DATA/xnli/XNLI-1.0" ] || (cd "$DATA/xnli" && unzip -q XNLI-1.0.zip)
$XPROBE download snli
$XPROBE download multinli
for l in de es fr; do
  case " $TARGETS " in *" $l "*) $XPROBE download europarl --lang "$l" ;; esac
done
for l in ru fr; do
  case " $TARGETS " in *" $l "*) $XPROBE download multiun --lang "$l" ;; esac
done
log "download: done"

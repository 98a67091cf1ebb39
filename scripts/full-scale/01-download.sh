#!/usr/bin/env bash
# 1. Everything the study reads: UDPipe models, Wikipedia dumps, fastText wiki vectors, MUSE
#    dictionaries, XNLI (xprobe download, resumable, checksummed), plus SNLI/MultiNLI and the
#    parallel corpora (Europarl v7 for de/es/fr, MultiUN for ru and fr-un), fetched with curl -C -.
# Disk: about 110 GB in all (see docs/pipeline.md for the breakdown).
source "$(dirname "$0")/env.sh"
log "download: udpipe, wikipedia ($DUMP_DATE), fasttext, muse, xnli for $LANGS"
$XPROBE download udpipe --lang $LANGS
$XPROBE download wikipedia --lang $LANGS --date "$DUMP_DATE"
$XPROBE download fasttext --lang $LANGS
for split in train test; do $XPROBE download muse --lang $TARGETS --split "$split"; done
$XPROBE download xnli
[ -d "$DATA/xnli/XNLI-1.0" ] || (cd "$DATA/xnli" && unzip -q XNLI-1.0.zip)
fetch() {  # URL DEST: resumable, atomic
  mkdir -p "$(dirname "$2")"
  [ -s "$2" ] && return 0
  curl -fL -C - -o "$2.part" "$1" && mv "$2.part" "$2"
}
fetch https://nlp.stanford.edu/projects/snli/snli_1.0.zip "$DATA/nli/snli_1.0.zip"
fetch https://cims.nyu.edu/~sbowman/multinli/multinli_1.0.zip "$DATA/nli/multinli_1.0.zip"
(cd "$DATA/nli" && { [ -d snli_1.0 ] || unzip -q snli_1.0.zip; } && { [ -d multinli_1.0 ] || unzip -q multinli_1.0.zip; })
for l in de es fr; do
  case " $TARGETS " in *" $l "*) ;; *) continue ;; esac
  fetch "https://www.statmt.org/europarl/v7/$l-en.tgz" "$DATA/europarl/$l-en.tgz"
  mkdir -p "$DATA/europarl/$l-en"
  [ -s "$DATA/europarl/$l-en/europarl-v7.$l-en.en" ] || tar -xzf "$DATA/europarl/$l-en.tgz" -C "$DATA/europarl/$l-en"
done
for l in ru fr; do
  case " $TARGETS " in *" $l "*) ;; *) continue ;; esac
  fetch "https://object.pouta.csc.fi/OPUS-MultiUN/v1/moses/en-$l.txt.zip" "$DATA/multiun/en-$l.txt.zip"
  [ -d "$DATA/multiun/en-$l" ] || (mkdir -p "$DATA/multiun/en-$l" && cd "$DATA/multiun/en-$l" && unzip -q "../en-$l.txt.zip")
done
log "download: done"

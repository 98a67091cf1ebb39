#!/usr/bin/env bash
# Lay out treebanks stored one folder per language (SRC/LANG/xx_tb-ud-SPLIT.conllu, as in
# ../shared/data/ud) like a UD release (OUT/UD_xx-TB/xx_tb-ud-SPLIT.conllu), by symbolic links,
# so that `xprobe run studies/ud.toml --set treebanks.root=OUT` reads them (docs/studies.md).
# Each treebank folder also gets the LICENSE.txt and README (README.md, README.txt) of its
# source folder, as every UD release has them beside the CoNLL-U files: the release's dataset
# card reads the licence from there.
#
#   scripts/ud-release-folder.sh ../shared/data/ud ud-release            # every language
#   scripts/ud-release-folder.sh ../shared/data/ud ud-release en de ta   # some
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 SRC OUT [LANG...]" >&2
    exit 2
fi
src=$(cd "$1" && pwd)
out=$2
shift 2
if [ $# -eq 0 ]; then
    set -- $(cd "$src" && ls -d -- */ | tr -d /)
fi
mkdir -p "$out"
for lang in "$@"; do
    found=0
    for file in "$src/$lang"/*-ud-*.conllu; do
        [ -f "$file" ] || continue
        name=$(basename "$file")
        code=${name%%_*}
        rest=${name#*_}
        tb=${rest%%-ud-*}
        dir="$out/UD_${code}-${tb^^}"
        mkdir -p "$dir"
        ln -sfn "$file" "$dir/$name"
        for extra in LICENSE.txt README README.md README.txt; do
            if [ -f "$src/$lang/$extra" ]; then
                ln -sfn "$src/$lang/$extra" "$dir/$extra"
            fi
        done
        found=1
    done
    if [ $found -eq 0 ]; then
        echo "$0: $src/$lang: no *-ud-*.conllu file" >&2
        exit 1
    fi
done

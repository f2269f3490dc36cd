#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Checks the layering rule of ARCHITECTURE.md: a file in sim/LAYER/ includes
# project headers only from its own layer or a lower one.
#   usage: check-layers.sh ROOT   (ROOT holds sim/)
# Prints one line per upward include (file:line: what) and exits 1 if any;
# exits 2 when a folder under sim/ is not a known layer.
set -u
root=${1:?usage: check-layers.sh ROOT}

# Layers from the bottom up; a layer may include itself and those before it.
# cli and cuda are both front ends: neither includes the other.
rank() {
    case $1 in
    core) echo 0 ;; hw) echo 1 ;; topo) echo 2 ;; net) echo 3 ;; coll) echo 4 ;;
    work) echo 5 ;; judge) echo 6 ;; report) echo 7 ;; cli | cuda) echo 8 ;;
    *) echo none ;;
    esac
}

status=0
for dir in "$root"/sim/*/; do
    layer=$(basename "$dir")
    own=$(rank "$layer")
    if [ "$own" = none ]; then
        echo "$dir: not a known layer (add it to $0)" >&2
        exit 2
    fi
    for file in "$dir"*.c "$dir"*.h "$dir"*.cu; do
        [ -f "$file" ] || continue
        # Project includes name their layer: #include "net/net.h".
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z]*/' "$file" |
            sed 's/^\([0-9]*\):.*"\([a-z]*\)\/.*/\1 \2/' |
            while read -r line target; do
                theirs=$(rank "$target")
                if [ "$theirs" = none ] || [ "$theirs" -gt "$own" ] ||
                    { [ "$theirs" -eq "$own" ] && [ "$target" != "$layer" ]; }; then
                    echo "$file:$line: $layer includes $target/ (upward or sideways)"
                fi
            done
    done
done | {
    found=0
    while read -r report; do
        echo "$report"
        found=1
    done
    exit $found
} || status=1
exit $status

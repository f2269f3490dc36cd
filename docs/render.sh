#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Renders a guide: copies SRC to OUT, and in every block fenced by ```run
# runs each line that starts with "$ " (with the built nvlsim first on the
# PATH, from the top of the source tree) and writes the command and what it
# printed, in a ```console block. Nothing else in the block is kept, so the
# outputs in OUT are always those the commands print.
# Usage: docs/render.sh SRC OUT  (top_srcdir and top_builddir from the
# environment, default the current directory).
set -eu
src=$1
out=$2
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
bin=$(cd "$top_builddir" && pwd)
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
in_run=0
while IFS= read -r line; do
    if [ "$in_run" -eq 0 ] && [ "$line" = '```run' ]; then
        in_run=1
        printf '%s\n' '```console' >>"$tmp"
    elif [ "$in_run" -eq 1 ] && [ "$line" = '```' ]; then
        in_run=0
        printf '%s\n' '```' >>"$tmp"
    elif [ "$in_run" -eq 1 ]; then
        case $line in
        '$ '*)
            cmd=${line#'$ '}
            printf '%s\n' "$line" >>"$tmp"
            (cd "$top_srcdir" && PATH="$bin:$PATH" LC_ALL=C sh -c "$cmd") >>"$tmp" 2>&1 || {
                echo "render.sh: $src: command failed: $cmd" >&2
                exit 1
            }
            ;;
        esac
    else
        printf '%s\n' "$line" >>"$tmp"
    fi
done <"$src"
mv "$tmp" "$out"
trap - EXIT

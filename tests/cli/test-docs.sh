#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The user guide cannot drift from the code: docs/guide.md is what
# docs/render.sh makes of docs/guide.md.in with the nvlsim just built
# (every command's output as it prints it now). After a change that moves a
# number, `make docs` regenerates it.
set -u
LC_ALL=C
export LC_ALL
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! top_srcdir="$top_srcdir" top_builddir="$top_builddir" \
    sh "$top_srcdir/docs/render.sh" "$top_srcdir/docs/guide.md.in" "$tmp/guide.md"; then
    echo "FAIL: docs/render.sh failed"
    exit 1
fi
if cmp -s "$tmp/guide.md" "$top_srcdir/docs/guide.md"; then
    echo "ok: docs/guide.md is what its commands print now"
else
    echo "FAIL: docs/guide.md differs from what its commands print now (run make docs):"
    diff "$top_srcdir/docs/guide.md" "$tmp/guide.md" | head -n 40
    exit 1
fi

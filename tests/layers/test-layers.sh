#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The layering check passes on the real tree and catches an upward include
# in a fixture tree (sim/core including sim/net).
set -u
checker="$top_srcdir/tests/layers/check-layers.sh"
fail() { echo "FAIL: $*"; exit 1; }

out=$(sh "$checker" "$top_srcdir") || fail "the real tree breaks the layering rule:
$out"
echo "ok: sim/ includes point down only"

out=$(sh "$checker" "$top_srcdir/tests/layers/upward")
[ $? -eq 1 ] || fail "the upward include in the fixture was not caught"
case $out in
*"core-bad.c:7: core includes net/"*) echo "ok: upward include reported: $out" ;;
*) fail "the report does not name the file, line and layers: $out" ;;
esac

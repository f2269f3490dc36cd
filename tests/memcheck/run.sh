#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The main commands under valgrind (make memcheck; CI runs it): the
# built-in study (nvlsim run), a collective sweep (coll), validate on a
# copy of the reference rows, a small sweep of 4 points, and calibrate
# loopback. Each must exit 0 with no memory error and no leak valgrind
# calls definite or possible (--error-exitcode=1 --leak-check=full).
#   usage: tests/memcheck/run.sh  (from the build directory; top_srcdir
#   and top_builddir may point elsewhere)
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
if ! command -v valgrind >/dev/null 2>&1; then
    echo "memcheck: valgrind is not installed (./autogen.sh --deps installs it)" >&2
    exit 1
fi
. "$top_srcdir/tests/cli/lib.sh"
# GLib's slice allocator and caches would hide or fake leaks.
G_SLICE=always-malloc
G_DEBUG=gc-friendly
export G_SLICE G_DEBUG

check() { # check NAME ARGS...: nvlsim ARGS under valgrind
    name=$1
    shift
    start=$(date +%s)
    if valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,possible \
        --suppressions="$top_srcdir/tests/memcheck/glib.supp" \
        --log-file="$tmp/$name.log" "$nvlsim" "$@" >"$tmp/$name.out" 2>&1; then
        echo "ok: nvlsim $* ($(($(date +%s) - start)) s)"
    else
        echo "FAIL: nvlsim $* under valgrind:"
        cat "$tmp/$name.log" "$tmp/$name.out"
        n_fail=$((n_fail + 1))
    fi
}

tiny_scenario "$tmp/tiny.ini"
cat >"$tmp/sweep.ini" <<EOF_INI
[sweep]
base = tiny.ini
[axes]
layout.tp = 4, 8
batch.global_batch = 8, 16
EOF_INI

check run run
check coll coll --system dgx-h100 -b 1M -e 64M -f 8
check validate validate "$top_srcdir/tests/data/validate-fixture.csv"
check sweep sweep "$tmp/sweep.ini" --out "$tmp/sweep-out" --jobs 2
check explain explain coll --system loopback-h200 --gpus 4 -b 8M
check explain-tree explain coll --system dgx-a100 --gpus 16 -b 4M --launch-mode threads
check explain-direct explain coll alltoall --system dgx1-v100 -b 1M
check calibrate calibrate memory "$top_srcdir/tests/data/bench-gpu-fixture.csv" --system dgx-h100
[ "$n_fail" -eq 0 ]

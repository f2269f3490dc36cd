#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# nvlsim-bench's rows are nvlsim validate's input: the fixture written by
# bench_csv_write (tests/cuda/test-bench-host.c checks it byte for byte)
# replays with exit status 0 and the MAPE over all rows as its last line.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
fixture=$top_srcdir/tests/data/bench-fixture.csv

out=$("$top_builddir/nvlsim" validate "$fixture" 2>&1)
status=$?
if [ "$status" -ne 0 ]; then
    printf '%s\n' "$out"
    echo "FAIL: nvlsim validate $fixture exited $status, expected 0" >&2
    exit 1
fi
last=$(printf '%s\n' "$out" | tail -n 1)
case $last in
MAPE:*) ;;
*)
    printf '%s\n' "$out"
    echo "FAIL: last line '$last' does not start with 'MAPE:'" >&2
    exit 1
    ;;
esac
# Every row replays: the fixture's five (three on a DGX H100, two loopback), none skipped.
case $last in
*"over 5 rows (0 skipped)"*) ;;
*)
    echo "FAIL: last line '$last': expected 5 rows replayed, 0 skipped" >&2
    exit 1
    ;;
esac
exit 0

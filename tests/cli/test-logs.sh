#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# nccl-tests' output into validate and compare --measured: nvlsim coll's
# own table read back replays to its own times (under srun's task prefix
# too); a log with one malformed test still replays the others and names
# the bad line; compare --measured prints and writes the measured curve
# beside the simulated one; files that are not logs are refused.
. "$top_srcdir/tests/cli/lib.sh"
logs="$top_srcdir/tests/data/logs"
bad="$top_srcdir/tests/bad-input/inputs/validate"

# coll's output, read back: every size of both groups, errors of rounding only.
"$nvlsim" coll -s dgx-h100 -b 1M -e 64M -f 4 >"$tmp/coll.log" || fail "coll did not run"
out=$("$nvlsim" validate "$tmp/coll.log" 2>&1)
case $out in
*"coll.log:1: nccl-tests all_reduce, 8 ranks on 1 host of dgx-h100, GPU NVIDIA H100 SXM5, 4 sizes"*"MAPE: 0.0% over 8 rows (0 skipped)"*)
    ok "coll's own output replays to its own times" ;;
*) fail "coll's output read back: $out" ;;
esac
"$nvlsim" coll -s dgx-h100 --gpus 16 --nodes 2 -d bfloat16 -b 8 -e 64M -f 64 all_gather_perf |
    sed 's/^/0: /' >"$tmp/srun.log"
out=$("$nvlsim" validate -q "$tmp/srun.log" 2>&1)
case $out in
*"all_gather, 16 ranks on 2 hosts of dgx-h100"*"MAPE: 0.0% over 6 rows (0 skipped)"*)
    ok "an all_gather on 2 hosts under srun's prefix replays to its own times" ;;
*) fail "prefixed all_gather: $out" ;;
esac

# A malformed test beside a good one: the bad line named, the rest replayed.
"$nvlsim" validate "$bad/log-columns.log" >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq 1 ] || fail "log-columns.log: exit $status, expected 1"
grep -q "log-columns.log:26: out-of-place algbw 344.21 GB/s does not add up" "$tmp/err" ||
    fail "the bad row is not named: $(cat "$tmp/err")"
n=$(grep -c "^ *[0-9]* dgx-" "$tmp/out")
# The H200 test's 4 other sizes and the A100 test's 1, each in two groups: 10 rows.
[ "$n" -eq 10 ] && ok "the other rows and tests are replayed (10 rows)" || fail "rows replayed: $n"

# compare --measured: the table, the curves and the plot's CSV.
"$nvlsim" compare --measured "$logs/oci-h200-all-reduce.log" --systems dgx-h200,dgx-b200 \
    --coll-csv "$tmp/curves.csv" >"$tmp/out" 2>"$tmp/err" || fail "compare --measured: $(cat "$tmp/err")"
grep -q "^  1073741824     457.90 " "$tmp/out" && ok "compare --measured prints the measured busbw" ||
    fail "compare --measured table: $(cat "$tmp/out")"
n_measured=$(grep -c "^measured," "$tmp/curves.csv")
n_b200=$(grep -c "^dgx-b200," "$tmp/curves.csv")
[ "$n_measured" -eq 5 ] && [ "$n_b200" -eq 5 ] && ok "the curves: 5 measured, 5 simulated each" ||
    fail "curves: $n_measured measured, $n_b200 dgx-b200"
"$nvlsim" compare --measured /dev/zero >/dev/null 2>"$tmp/err"
status=$?
[ $status -eq 1 ] && grep -q "expected a regular file" "$tmp/err" && ok "compare --measured /dev/zero refused" ||
    fail "compare --measured /dev/zero: exit $status: $(cat "$tmp/err")"
"$nvlsim" compare --measured "$top_srcdir/data/measurements/collectives.csv" >/dev/null 2>"$tmp/err"
status=$?
[ $status -eq 1 ] && grep -q "not nccl-tests' output" "$tmp/err" && ok "a CSV is not a log for compare" ||
    fail "compare --measured on a CSV: exit $status: $(cat "$tmp/err")"

[ $n_fail -eq 0 ]

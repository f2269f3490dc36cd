#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# nvlsim calibrate loopback gives back the costs a loopback model was
# simulated with: rows made by nvlsim coll on a copy of loopback-h200 with
# other costs (2, 4 and 8 ranks, all_reduce and all_gather, 64 KiB to
# 256 MiB), fitted on 2 ranks with the shipped model as the start, must
# return those costs, and the held-out rows must replay within 0.01%.
# Then its bad input: a system that is not a loopback, too few rows.
. "$top_srcdir/tests/cli/lib.sh"

cp -R "$top_srcdir/models" "$tmp/models"
chmod -R u+w "$tmp/models"
sed -e 's|^cta_bandwidth = .*|cta_bandwidth = 21.5GB/s|' \
    -e 's|^step_overhead = .*|step_overhead = 700ns|' \
    -e 's|^launch = .*|launch = 4.2us|' \
    "$top_srcdir/models/system/loopback-h200.ini" >"$tmp/models/system/loopback-h200.ini"
csv=$tmp/loopback.csv
echo "system,nvlsim_system,gpu,generation,nvlink_gen,num_gpus,nodes,collective,algorithm,protocol,dtype,bytes,time_us,algbw_gbps,busbw_gbps,in_place,nccl_version,source_url,source_note" >"$csv"
for k in 2 4 8; do
    for op in all_reduce all_gather; do
        NVLSIM_MODELS=$tmp/models "$nvlsim" coll --system loopback-h200 --gpus $k --collective $op \
            -b 64K -e 256M -f 4 --csv "$tmp/coll.csv" >/dev/null || fail "nvlsim coll $k $op"
        tail -n +2 "$tmp/coll.csv" | awk -F, -v k=$k -v op=$op '{
            printf "simulated,loopback-h200,NVIDIA H200,,,%d,1,%s,Ring,Simple,float,%s,%s,,,1,,test,made by nvlsim coll\n", k, op, $1, $6 }' >>"$csv"
    done
done
out=$("$nvlsim" calibrate loopback "$csv" --system loopback-h200)
status=$?
printf '%s\n' "$out"
[ $status -eq 0 ] || fail "calibrate loopback exited $status"
for line in "cta_bandwidth = 21.5GB/s" "step_overhead = 700.0ns" "launch = 4200.0ns" \
    "fitted (2 ranks)                    14 rows  MAPE   0.00%" \
    "held out (the other rank counts)    28 rows  MAPE   0.00%  max   0.00%"; do
    printf '%s\n' "$out" | grep -qF -- "$line" && echo "ok: $line" || fail "output lacks '$line'"
done

expect_error() { # expect_error TEXT -- ARGS
    text=$1
    shift 2
    "$nvlsim" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ $got -ne 1 ] || ! grep -qF -- "$text" "$tmp/err" || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        fail "nvlsim $*: exit $got, stderr: $(cat "$tmp/err")"
    else
        echo "ok: nvlsim $* -> 1"
    fi
}
expect_error "--system dgx-h100: not a loopback system" -- \
    calibrate loopback "$csv" --system dgx-h100
head -n 3 "$csv" >"$tmp/short.csv"
expect_error "2 rows of loopback-h200 on 2 ranks: expected at least 3" -- \
    calibrate loopback "$tmp/short.csv" --system loopback-h200
expect_error "0 rows of loopback-h200 on 16 ranks" -- \
    calibrate loopback "$csv" --system loopback-h200 --fit-ranks 16
[ $n_fail -eq 0 ]

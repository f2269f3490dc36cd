#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Device check for nvlsim-bench (needs a machine with GPUs, CUDA and NCCL).
#   usage: tests/device/run.sh OUTDIR [BENCH]
# Builds from a copy of this tree with --with-cuda (or, given BENCH, runs
# that nvlsim-bench, built elsewhere for a machine without autotools or
# GLib's headers; its libraries must be on LD_LIBRARY_PATH), then runs the coll,
# gpu and loopback benchmarks, each under a timeout, so that the whole
# finishes well inside 8 minutes on an H200 machine (timeouts sum to 7.5; 4.2 when
# BENCH is given). Writes
# OUTDIR/log.txt (everything), OUTDIR/machine.txt (nvidia-smi -q and versions) and the
# CSVs coll-all_reduce.csv, coll-all_gather.csv, gpu.csv, loopback-all_reduce.csv (2, 4
# and 8 ranks), loopback-all_gather.csv (8 ranks) and interfere.csv. Then, on any machine:
#   nvlsim calibrate loopback OUTDIR/loopback-all_reduce.csv   (fits on 2 ranks)
#   nvlsim validate OUTDIR/loopback-all_reduce.csv   (and loopback-all_gather.csv)
# Exits 1 if any step failed (the later steps still run).
set -u
out=${1:?usage: tests/device/run.sh OUTDIR [BENCH]}
bench=${2:-}
if [ -n "$bench" ]; then
    [ -x "$bench" ] || { echo "tests/device/run.sh: $bench: not an executable nvlsim-bench" >&2; exit 2; }
    bench=$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
log=$out/log.txt
: >"$log"
status=0

step() { # step NAME SECONDS COMMAND...: runs and logs one step
    name=$1 secs=$2
    shift 2
    echo "== $name ($(date +%T), timeout ${secs}s): $*" >>"$log"
    start=$(date +%s)
    timeout -k 10 "$secs" "$@" >>"$log" 2>&1
    rc=$?
    echo "== $name: exit $rc after $(($(date +%s) - start))s" >>"$log"
    [ $rc -eq 0 ] || status=1
    return $rc
}

{
    echo "# date: $(date -u)"
    echo "# uname: $(uname -a)"
    echo "# nvcc: $(nvcc --version 2>&1 | tail -n 1)"
    grep -h '#define NCCL_\(MAJOR\|MINOR\|PATCH\)' \
        "${NCCL_HOME:-/usr/local/cuda}"/include/nccl.h /usr/include/nccl.h 2>/dev/null
    nvidia-smi topo -m 2>&1
    nvidia-smi -q 2>&1
} >"$out/machine.txt"

if [ -z "$bench" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    # A copy of the tree without its build outputs (git's files, tracked or not).
    if git -C "$top" rev-parse 2>/dev/null; then
        (cd "$top" && git ls-files -co --exclude-standard -z | xargs -0 tar cf - --) |
            tar xf - -C "$work"
    else
        cp -a "$top/." "$work"
    fi
    cd "$work" || exit 1
    step autogen 40 ./autogen.sh || exit 1
    step configure 40 ./configure -q --with-cuda NVCC_ARCH=-arch=native || exit 1
    step build 120 make -j"$(nproc)" nvlsim-bench || exit 1
    bench=$work/nvlsim-bench
fi
echo "# nvlsim-bench: $bench" >>"$out/machine.txt"
ldd "$bench" >>"$out/machine.txt" 2>&1

step coll-all_reduce 50 "$bench" coll --op all_reduce -b 8 -e 1G -f 4 --check \
    --csv "$out/coll-all_reduce.csv"
step coll-all_gather 50 "$bench" coll --op all_gather -b 8 -e 1G -f 4 --check \
    --csv "$out/coll-all_gather.csv"
step gpu 60 "$bench" gpu --csv "$out/gpu.csv"
step interfere 20 "$bench" interfere --csv "$out/interfere.csv"
step loopback-all_reduce 45 "$bench" loopback --ranks 2,4,8 -b 64K -e 256M -f 4 \
    --csv "$out/loopback-all_reduce.csv"
step loopback-all_gather 25 "$bench" loopback --ranks 8 --op all_gather -b 64K -e 256M -f 4 \
    --csv "$out/loopback-all_gather.csv"
echo "== done: status $status" >>"$log"
exit $status

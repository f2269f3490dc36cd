#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The scale figures of make bench: each command's wall seconds and peak
# resident memory (KB, where /usr/bin/time is installed), one line each.
# Minutes in all; the figures vary with the machine, the simulated results
# do not. Usage: bench/scale.sh NVLSIM SRCDIR
set -eu
nvlsim=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# figure LABEL -- COMMAND...: runs COMMAND, prints LABEL, wall s, peak KB.
figure() {
    label=$1
    shift 2
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >"$tmp/out" 2>&1 || echo "failed" >"$tmp/time"
    else
        t0=$(date +%s)
        "$@" >"$tmp/out" 2>&1 || true
        echo "$(($(date +%s) - t0)) -" >"$tmp/time"
    fi
    read -r wall kb <"$tmp/time" || true
    printf '%-58s %10s s %10s KB\n' "$label" "$wall" "${kb:--}"
}

echo "# figure                                                     wall          peak"
figure "GB200 NVL72 x 2 racks (144 GPUs) ring all_reduce 1 GiB" -- \
    "$nvlsim" coll --system gb200-nvl72 --gpus 144 --algo ring -b 1G -e 1G
figure "GB200 NVL72 x 20 racks (1440 GPUs) ring all_reduce 1 GiB" -- \
    "$nvlsim" coll --system gb200-nvl72 --gpus 1440 --algo ring -b 1G -e 1G
figure "GB200 NVL72 x 4 racks (288 GPUs) all_reduce 1 MiB, 32 MiB, 1 GiB" -- \
    "$nvlsim" coll --system gb200-nvl72 --gpus 288 -b 1M -e 1G -f 32
# NCCL's choice (NVLS-tree) over 128 racks does not fold yet: bounded here.
figure "GB300 NVL72 x 128 racks of 16 trays (8192 GPUs) 1 GiB, 120 s cap" -- \
    timeout 120 "$nvlsim" coll --system gb300-nvl72 --gpus 8192 --domains 128 -b 1G -e 1G
figure "DGX H100 x 64 (512 GPUs) ring all_reduce 1 GiB" -- \
    "$nvlsim" coll --system dgx-h100 --gpus 512 --algo ring -b 1G -e 1G
for fidelity in analytic flow; do
    figure "Llama 3.1 405B, 16384 H100, tp 8 pp 2 dp 1024, $fidelity" -- \
        "$nvlsim" run -q "$src/scenarios/gpt3-175b-dgx-h100.ini" --set model=llama3.1-405b \
        --set tp=8 --set pp=2 --set vp=1 --set dp=1024 --set global_batch=2048 \
        --set fidelity=$fidelity
done
sh "$src/bench/multinode-rows.sh" >"$tmp/rows.csv"
figure "nvlsim validate: 1,008 multi-node rows (16 to 256 GPUs)" -- \
    "$nvlsim" validate -q "$tmp/rows.csv"
figure "nvlsim p2p --system gb200-nvl72 --fidelity packet" -- \
    "$nvlsim" p2p --system gb200-nvl72 --fidelity packet
figure "sweep: 500 GPT-3 layouts, analytic, --refine 10, 2 threads" -- \
    "$nvlsim" sweep "$src/bench/sweep-gpt3-layouts.ini" --out "$tmp/sweep" --jobs 2 --refine 10
grep -h "points/s\|best" "$tmp/out" || true

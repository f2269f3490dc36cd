#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The nvlsim command line: help and version, exit statuses (0 ok, 1 bad
# input or a failed --max-mape gate, 2 usage), one-line errors naming what
# was wrong, output files written whole or not at all, p2p and validate on
# the shipped systems, run on a small scenario, its trace and the shipped
# studies, and reproducible output (bench-core in everything but the
# wall-clock columns, the packet engine's p2p sweep byte for byte).
. "$top_srcdir/tests/cli/lib.sh"

# try_line ARGS: the line GNU's convention adds after a usage error of
# nvlsim ARGS, pointing at the command's --help (nvlsim's own for an error
# before a known command, or of help).
"$nvlsim" --help | sed -n 's/^  \([a-z0-9-]*\) .*/\1/p' >"$tmp/commands"
try_line() {
    if [ -n "${1-}" ] && [ "$1" != help ] && grep -qxF -- "$1" "$tmp/commands"; then
        echo "Try 'nvlsim $1 --help' for more information."
    else
        echo "Try 'nvlsim --help' for more information."
    fi
}

# error_lines_ok STATUS ARGS: whether $tmp/err is an error as it should
# be: one line, and after a usage error (status 2) the Try line.
error_lines_ok() {
    if [ "$1" -ne 2 ]; then
        [ "$(wc -l <"$tmp/err")" -eq 1 ]
    else
        shift
        [ "$(wc -l <"$tmp/err")" -eq 2 ] && [ "$(tail -n 1 "$tmp/err")" = "$(try_line "$@")" ]
    fi
}

# expect STATUS STREAM TEXT -- ARGS: runs nvlsim ARGS, checks the exit status
# and that STREAM (out or err) contains TEXT; errors (a non-zero status,
# TEXT on stderr) must be one line, followed after a usage error by GNU's
# "Try 'nvlsim COMMAND --help' for more information.".
expect() {
    want=$1 stream=$2 text=$3
    shift 4
    "$nvlsim" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    what="nvlsim $*"
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: $what: exit $got, expected $want"
        n_fail=$((n_fail + 1))
    elif ! grep -qF -- "$text" "$tmp/$stream"; then
        echo "FAIL: $what: std$stream lacks '$text':"
        cat "$tmp/$stream"
        n_fail=$((n_fail + 1))
    elif [ "$want" -ne 0 ] && [ "$stream" = err ] && ! error_lines_ok "$want" "$@"; then
        echo "FAIL: $what: error is not one line (and the Try line after a usage error):"
        cat "$tmp/err"
        n_fail=$((n_fail + 1))
    else
        echo "ok: $what -> $got"
    fi
}

expect 0 out "nvlsim 0." -- --version
expect 0 out "License Apache-2.0: <https://www.apache.org/licenses/LICENSE-2.0>." -- --version
# GNU's form: the version line or lines (nvlsim's second says which data
# folder it reads), then copyright, licence and warranty.
if "$nvlsim" --version >"$tmp/out" && head -n 1 "$tmp/out" | grep -qx 'nvlsim [0-9][0-9.]*' &&
    sed -n 2p "$tmp/out" | grep -q '^data: /' &&
    [ "$(sed -n 3p "$tmp/out")" = "Copyright (C) 2026 the nvlsim authors." ] &&
    [ "$(tail -n 1 "$tmp/out")" = "There is NO WARRANTY, to the extent permitted by law." ] &&
    [ "$(wc -l <"$tmp/out")" -eq 6 ]; then
    echo "ok: nvlsim --version in GNU's form (name and version, data folder, copyright, licence, warranty)"
else
    echo "FAIL: nvlsim --version is not in GNU's form:"
    cat "$tmp/out"
    n_fail=$((n_fail + 1))
fi
expect 0 out "bench-core" -- --help
expect 0 out "bench-core" -- help
expect 0 out "--pending" -- help bench-core
expect 0 out "--pending" -- bench-core --help
expect 2 err "nvlsim: no command given" --
expect 2 err "nvlsim help: expected at most one COMMAND" -- help run list
expect 2 err "unexpected argument 'x'" -- bench-coll x
expect 0 out "Measures the collective layer" -- bench-coll --help
expect 2 err "unknown command 'frobnicate'" -- frobnicate
expect 2 err "unknown command 'nope'" -- help nope
expect 2 err "Unknown option --frob" -- --frob
expect 2 err "Unknown option --frob" -- bench-core --frob
expect 2 err "--pending: '1x5' is not a plain number" -- bench-core --pending 1x5
expect 2 err "--pending: '0' is too small" -- bench-core --pending 0
expect 2 err "--events: '-3' is negative" -- bench-core --events -3
expect 2 err "--mean-delay: '5' has no unit: expected a time" -- bench-core --mean-delay 5
expect 2 err "--mean-delay: '5xs' has an unknown unit 'xs'" -- bench-core --mean-delay 5xs
expect 2 err "--mean-delay: '2s' is too large: expected at most 1s" -- bench-core --mean-delay 2s
expect 2 err "--delay: unknown distribution 'gaussian'" -- bench-core --delay gaussian
expect 2 err "unexpected argument 'extra'" -- bench-core extra
expect 2 err "Missing argument for --pending" -- bench-core --pending

# nvlsim list: one line per model of a kind, sorted by id; a bad kind is a
# usage error, a broken model file bad input naming the file.
expect 0 out "dgx1-v100 " -- list systems
expect 0 out "gb200-nvl72 " -- list systems
expect 0 out "gb300-nvl72            72    18  gb300           gen 5 x 18  18 x nvswitch4   72 x 800 Gb/s ib-verbs" -- list systems
expect 0 out "hgx-b300                8     1  b300            gen 5 x 18  2 x nvswitch4    8 x 800 Gb/s ib-verbs" -- list systems
expect 0 out "aws-p5-h100             8     1  h100-sxm5       gen 4 x 18  4 x nvswitch3    32 x 100 Gb/s efa-srd" -- list systems
expect 0 out "vera-rubin-nvl72       72    18  rubin           gen 6 x 36  36 x nvswitch5   144 x 800 Gb/s ib-verbs (announced)" -- list systems
expect 0 out "whatif-gb300-nvl144   144    36  gb300           gen 5 x 18  108 x nvswitch4  144 x 800 Gb/s ib-verbs (what-if)" -- list systems
expect 0 out "# vera-rubin-nvl72 is announced, not measured" -- coll --system vera-rubin-nvl72 -b 1M -e 1M
expect 0 out "efa-srd          EFA SRD (aws-ofi-nccl)                       8          0" -- list transports
expect 0 out "h100-sxm5 " -- list gpus
# The fp4 peak: '-' before Blackwell, the dense figure from it on.
expect 0 out "SMs  fp16 TF/s  fp4 TF/s  HBM GB" -- list gpus
expect 0 out "h100-sxm5        H100 SXM5               132      989.4         -      80" -- list gpus
expect 0 out "b200             B200                    148       2250      9000     180      7.67  18 (gen 5)" -- list gpus
expect 0 out "gb300            GB300                   160       2500     15000     288         8  18 (gen 5)" -- list gpus
expect 0 out "b300             B300                    160       2250     13125     288       7.7  18 (gen 5)" -- list gpus
expect 0 out "  peak_fp4               FLOP rate   1GFLOP/s to 1000PFLOP/s; dense fp4 tensor rate" -- list keys
expect 0 out "nvlink4 " -- list links
expect 0 out "nvswitch3 " -- list switches
expect 0 out "cx7-ndr " -- list nics
expect 0 out "llama3-70b       Llama 3 70B                  80    8192  64/8          70.55  -" -- list models
expect 0 out "mixtral-8x7b     Mixtral 8x7B                 32    4096  32/8          46.70  8 (top 2)" -- list models
expect 0 out "gpt3-175b        GPT-3 175B                   96   12288  96/96        174.60  -" -- list models
expect 0 out "list" -- --help
expect 0 out "KIND is one of" -- help list
expect 2 err "unknown kind 'nonsense'; expected one of: systems, gpus" -- list nonsense
expect 0 out "  crc_error_rate         probability a probability at least 0 and below 1" -- list keys
expect 0 out "  training_efficiency    share       a share above 0 and at most 1" -- list keys
expect 0 out "[faults] in scenario (or --fault KEY=VALUE)" -- list keys
expect 2 err "no kind given" -- list
expect 2 err "more than one kind given" -- list gpus nics
for kind in systems gpus links switches nics models; do
    "$nvlsim" list "$kind" | awk '!/^#/ {print $1}' >"$tmp/ids"
    if [ -s "$tmp/ids" ] && LC_ALL=C sort -c "$tmp/ids" 2>/dev/null; then
        echo "ok: nvlsim list $kind is sorted by id ($(wc -l <"$tmp/ids") models)"
    else
        echo "FAIL: nvlsim list $kind is empty or not sorted by id:"
        cat "$tmp/ids"
        n_fail=$((n_fail + 1))
    fi
done
mkdir "$tmp/models"
cp -R "$top_srcdir/models/." "$tmp/models/"
printf 'bogus = 1\n' >>"$tmp/models/system/dgx-h100.ini"
NVLSIM_MODELS="$tmp/models"
export NVLSIM_MODELS
expect 1 err "system/dgx-h100.ini: [network] bogus: unknown key" -- list systems
expect 0 out "cx7-ndr " -- list nics
printf 'bogus = 1\n' >>"$tmp/models/llm/llama3-70b.ini"
expect 1 err "llm/llama3-70b.ini: [model] bogus: unknown key" -- list models
unset NVLSIM_MODELS

# nvlsim p2p on DGX-1V: the GPU0 row of the unidirectional matrix has the
# NV2 pairs (GPU3, GPU4) at twice the NV1 pairs (GPU1, GPU2), and the
# non-neighbours (GPU5-7, through the host) below both.
expect 0 out "Unidirectional P2P=Enabled Bandwidth Matrix (GB/s)" -- \
    p2p --system dgx1-v100 --matrices-only
row=$(awk '/^Unidirectional/ {m = 1; next} m && $1 == "0" {print; exit}' "$tmp/out")
if echo "$row" | awk '{
        nv1 = $3; nv2 = $5; host = $7
        ok = NF == 9 && $2 == "-" && $3 == $4 && $5 == $6 && $7 == $8 && $8 == $9
        ok = ok && nv1 > 0 && (nv2 / nv1 - 2) ^ 2 < 0.002 ^ 2 && host < nv1
        exit !ok
    }'; then
    echo "ok: p2p dgx1-v100 GPU0 row is NV1/NV1/NV2/NV2/host x3: $row"
else
    echo "FAIL: p2p dgx1-v100 GPU0 unidirectional row lacks the 2:1 pattern: '$row'"
    n_fail=$((n_fail + 1))
fi

# --csv: tidy rows with units in the column names, 56 ordered pairs per
# matrix, the file renamed into place whole (no temporary left beside it).
mkdir "$tmp/csv"
expect 0 out "Bidirectional" -- p2p --system dgx1-v100 --matrices-only --csv "$tmp/csv/p2p.csv"
header=$(head -n 1 "$tmp/csv/p2p.csv")
n_uni=$(grep -c '^unidirectional,' "$tmp/csv/p2p.csv")
if [ "$header" = "measure,src_gpu,dst_gpu,bytes,time_us,bandwidth_GB_per_s" ] &&
    [ "$n_uni" -eq 56 ] && [ "$(ls -A "$tmp/csv")" = p2p.csv ]; then
    echo "ok: p2p --csv: header, $n_uni unidirectional rows, no temporary file"
else
    echo "FAIL: p2p --csv: header '$header', $n_uni unidirectional rows, folder holds:"
    ls -A "$tmp/csv"
    n_fail=$((n_fail + 1))
fi

# Bad p2p input: 1 for what the files say or a file that cannot be
# written, 2 for malformed options; each message names what was wrong.
expect 1 err "system/nonexistent.ini does not exist" -- p2p --system nonexistent
expect 2 err "--fidelity: 'warp': expected packet or flow" -- p2p --fidelity warp
expect 2 err "--pair: '0,0': expected two different GPU numbers" -- p2p --pair 0,0
expect 2 err "--pair: GPU 99 does not exist: dgx-h100 has GPUs 0 to 7" -- p2p --pair 0,99
expect 2 err "--minbytes: '0'" -- p2p -b 0
expect 1 err "/nonexistent-dir/x.csv: cannot write" -- \
    p2p --matrices-only --csv /nonexistent-dir/x.csv
mkdir "$tmp/busy" "$tmp/busy/x.csv"
expect 1 err "x.csv: cannot write" -- p2p --system dgx1-v100 --matrices-only --csv "$tmp/busy/x.csv"
if [ ! -e /nonexistent-dir/x.csv ] && [ "$(ls -A "$tmp/busy")" = x.csv ] &&
    [ -z "$(ls -A "$tmp/busy/x.csv")" ]; then
    echo "ok: p2p --csv that cannot be written leaves no file behind"
else
    echo "FAIL: p2p --csv that cannot be written left files:"
    ls -lA "$tmp/busy" "$tmp/busy/x.csv"
    n_fail=$((n_fail + 1))
fi

# A system file naming a GPU model that does not exist: bad input, the
# message names the system file, its group and key.
mkdir "$tmp/models-gpu"
cp -R "$top_srcdir/models/." "$tmp/models-gpu/"
sed 's/^gpu = .*/gpu = h999/' "$top_srcdir/models/system/dgx-h100.ini" \
    >"$tmp/models-gpu/system/dgx-h100.ini"
NVLSIM_MODELS="$tmp/models-gpu"
export NVLSIM_MODELS
expect 1 err "system/dgx-h100.ini: [system] gpu: no GPU model 'h999'" -- p2p --matrices-only
unset NVLSIM_MODELS

# nvlsim validate on measured rows in the columns of collectives.csv: one
# DGX H100 p2p row replays to a MAPE line; a short row is named by file and
# line, a missing nvlsim_system column is bad input, and --max-mape gates.
columns="system,nvlsim_system,gpu,generation,nvlink_gen,num_gpus,nodes,collective,algorithm"
columns="$columns,protocol,dtype,bytes,time_us,algbw_gbps,busbw_gbps,in_place,nccl_version"
columns="$columns,source_url,source_note"
row="8x H100,dgx-h100,H100,Hopper,NVLink4,2,1,p2p_write_unidirectional,cudaMemcpyPeer,,,,"
row="$row,364.13,364.13,,,https://example.org/p2p,\"Unidirectional matrix, GPU0->GPU1\""
printf '%s\n%s\n' "$columns" "$row" >"$tmp/rows.csv"
printf '%s\n%s\n%s\n' "$columns" "$row" "8x H100,dgx-h100,H100" >"$tmp/short.csv"
printf '%s\n%s\n' "${columns#system,nvlsim_system,}" "${row#8x H100,dgx-h100,}" \
    >"$tmp/nosystem.csv"
expect 0 out "# MAPE per system and measure" -- validate "$tmp/rows.csv"
if grep -q '^dgx-h100 *p2p_write_unidirectional *1 ' "$tmp/out"; then
    echo "ok: validate: one dgx-h100 p2p_write_unidirectional row in the MAPE table"
else
    echo "FAIL: validate: no MAPE line for dgx-h100 p2p_write_unidirectional:"
    cat "$tmp/out"
    n_fail=$((n_fail + 1))
fi
expect 1 err "$tmp/short.csv:3: 3 fields: expected 19" -- validate "$tmp/short.csv"
expect 1 err "no column 'nvlsim_system'" -- validate "$tmp/nosystem.csv"
expect 1 err "exceeds --max-mape 0.001%" -- validate --max-mape 0.001 "$tmp/rows.csv"
mkdir "$tmp/vcsv" "$tmp/vcsv-bad"
expect 0 out "MAPE" -- validate --csv "$tmp/vcsv/replayed.csv" "$tmp/rows.csv"
expect 1 err "short.csv:3:" -- validate --csv "$tmp/vcsv-bad/replayed.csv" "$tmp/short.csv"
if [ "$(ls -A "$tmp/vcsv")" = replayed.csv ] && [ -z "$(ls -A "$tmp/vcsv-bad")" ] &&
    head -n 1 "$tmp/vcsv/replayed.csv" | grep -q '^line,system,measure,' &&
    [ "$(wc -l <"$tmp/vcsv/replayed.csv")" -eq 2 ]; then
    echo "ok: validate --csv writes the file whole, and nothing when the input is bad"
else
    echo "FAIL: validate --csv left a temporary file, or wrote a partial one:"
    ls -lA "$tmp/vcsv" "$tmp/vcsv-bad"
    n_fail=$((n_fail + 1))
fi

# nvlsim calibrate latency and validate --cross on rows the model made
# itself with a runtime of host_issue 3 us and kernel_setup 6 us: small
# calls on 8 H100s and on 8 A100s, each with one process per GPU (the
# kernel paces nccl-tests' loop: it measures kernel_setup) and with one
# thread driving the 8 GPUs (the host does: host_issue). The fit gives the
# constants back, from every system and leaving each out, with no error.
cp -R "$top_srcdir/models" "$tmp/made-models"
sed -i -e 's/^host_issue = .*/host_issue = 3us/' -e 's/^kernel_setup = .*/kernel_setup = 6us/' \
    "$tmp/made-models/runtime/nccl.ini"
echo "system,nvlsim_system,gpu,generation,nvlink_gen,num_gpus,nodes,collective,algorithm,protocol,dtype,bytes,time_us,algbw_gbps,busbw_gbps,in_place,nccl_version,source_url,source_note,harness,launch_mode,cuda_graph" >"$tmp/made.csv"
for sys in dgx-h100 dgx-a100; do
    for mode in mpi threads; do
        NVLSIM_MODELS="$tmp/made-models" "$nvlsim" coll -s $sys -b 8 -e 64K -f 8 \
            --launch-mode $mode --csv "$tmp/made-one.csv" >/dev/null
        awk -F, -v s=$sys -v m=$mode 'NR > 1 {printf "made,%s,,,,8,1,all_reduce,,,float,%s,%s,,,0,,https://example.org/%s,made,nccl-tests,%s,0\n", s, $1, $6, m, m}' \
            "$tmp/made-one.csv" >>"$tmp/made.csv"
    done
done
expect 0 out "host_issue = 3000ns" -- calibrate latency "$tmp/made.csv"
expect 0 out "kernel_setup = 6000ns" -- calibrate latency "$tmp/made.csv"
expect 0 out "CROSS MAPE: 0.0% (>= 1 MiB 0.0%, < 1 MiB 0.0%) over 20 rows" -- \
    validate --cross system "$tmp/made.csv"
for g in dgx-h100 dgx-a100; do
    if grep -Eq "^$g .* 3\.00us +6\.00us\$" "$tmp/out"; then
        echo "ok: validate --cross system: leaving $g out refits 3 us and 6 us"
    else
        echo "FAIL: validate --cross system: leaving $g out did not refit 3 us and 6 us:"
        cat "$tmp/out"
        n_fail=$((n_fail + 1))
    fi
done

# NCCL_NVLS_ENABLE=0 (--nccl-env, or a row's nccl_env column) takes NVLS
# away from NCCL's choice: a 1 GiB all_reduce on a GB200 rack runs NVLS,
# and without it a ring, whose time the row with the variable is judged
# against (measured here = the ring's own time: no error).
expect 0 out "nvls " -- coll --system gb200-nvl72 --gpus 72 --nodes 18 -b 1G -e 1G
expect 0 out "# NCCL environment: NCCL_NVLS_ENABLE=0" -- \
    coll --system gb200-nvl72 --gpus 72 --nodes 18 -b 1G -e 1G --nccl-env NCCL_NVLS_ENABLE=0
ring_us=$(awk '$1 == 1073741824 && $14 == "ring" {print $6}' "$tmp/out")
{
    echo "system,nvlsim_system,gpu,generation,nvlink_gen,num_gpus,nodes,collective,algorithm,protocol,dtype,bytes,time_us,algbw_gbps,busbw_gbps,in_place,nccl_version,source_url,source_note,nccl_env"
    echo "GB200,gb200-nvl72,GB200,Blackwell,NVLink5,72,18,all_reduce,,,float,1073741824,$ring_us,,,0,,https://example.org,ring,NCCL_NVLS_ENABLE=0"
} >"$tmp/nvls-off.csv"
expect 0 out "ring/Simple" -- validate "$tmp/nvls-off.csv"
if [ -n "$ring_us" ] && grep -q "^MAPE: 0.0% over 1 rows" "$tmp/out"; then
    echo "ok: NCCL_NVLS_ENABLE=0 runs a ring, in coll and in validate's nccl_env column"
else
    echo "FAIL: NCCL_NVLS_ENABLE=0: coll's ring ('$ring_us' us) not validate's:"
    cat "$tmp/out"
    n_fail=$((n_fail + 1))
fi
# The row states no harness, launch mode or graph: the defaults it took
# are printed beside it and counted under the summary; rows that state
# them (made.csv's) print none.
if grep -q "ring/Simple .*  defaults: harness nccl-tests, launch_mode mpi, cuda_graph 0, domains fewest$" "$tmp/out" &&
    grep -q "^# default for 1 rows: launch_mode blank: mpi" "$tmp/out" &&
    "$nvlsim" validate "$tmp/made.csv" >"$tmp/made.out" 2>&1 && ! grep -q "defaults:" "$tmp/made.out"; then
    echo "ok: validate prints the defaults each row took beside it"
else
    echo "FAIL: validate: a row's defaults are not beside it, or rows that state them print some:"
    cat "$tmp/out"
    n_fail=$((n_fail + 1))
fi

# validate --decompose: on the rows the model made, each piece's measured
# and simulated lines are the same (no miss: +0.0 us or +0.0%); on rows laid
# on t = 20 us + bytes / 100 GB/s, the measured line is that one.
NVLSIM_MODELS="$tmp/made-models"
export NVLSIM_MODELS
expect 0 out "# sweep 1: dgx-" -- validate --decompose "$tmp/made.csv"
unset NVLSIM_MODELS
if [ "$(grep -c '^   [a-z_]*/[A-Za-z0-9]* ' "$tmp/out")" -ge 4 ] &&
    ! grep '^   [a-z_]*/[A-Za-z0-9]* ' "$tmp/out" | grep -Ev 'latency [+-]0\.0 us$|bandwidth [+-]0\.0%$' | grep -q .; then
    echo "ok: validate --decompose: the model's own rows miss by nothing in every piece"
else
    echo "FAIL: validate --decompose: a piece of the model's own rows misses:"
    cat "$tmp/out"
    n_fail=$((n_fail + 1))
fi
awk -F, 'BEGIN {OFS = ","} NR == 1 {print; next} NR == 2 {
    for (b = 268435456; b <= 2147483648; b *= 2) {
        $2 = "dgx-h100"; $12 = sprintf("%.0f", b); $13 = sprintf("%.3f", 20 + b / 100e3); print } }' \
    "$tmp/made.csv" >"$tmp/line.csv"
expect 0 out "# sweep 1: dgx-h100 all_reduce, 8 ranks on 1 host in 1 NVLink domain" -- \
    validate --decompose "$tmp/line.csv"
if grep -Eq '^   [a-z_]+/Simple +4 +268435456 +2147483648 +20\.00 .* 100\.00 ' "$tmp/out"; then
    echo "ok: validate --decompose: rows on 20 us + bytes / 100 GB/s fit that line"
else
    echo "FAIL: validate --decompose: rows on 20 us + bytes / 100 GB/s:"
    cat "$tmp/out"
    n_fail=$((n_fail + 1))
fi
expect 2 err "expected no --cross with it" -- validate --decompose --cross system "$tmp/made.csv"

# A row's visible_devices place its ranks: on DGX-1V, GPUs 0 and 3 share
# two NVLinks, GPUs 0 and 5 none (their ring crosses the QPI), so the same
# measured 256 MiB all_reduce is simulated at 2 links' rate and at the
# QPI's: the first row's busbw over 5x the second's.
{
    echo "system,nvlsim_system,gpu,generation,nvlink_gen,num_gpus,nodes,collective,algorithm,protocol,dtype,bytes,time_us,algbw_gbps,busbw_gbps,in_place,nccl_version,source_url,source_note,visible_devices"
    echo 'DGX-1V,dgx1-v100,V100,Volta,NVLink2,2,1,all_reduce,,,float,268435456,,,30.0,0,,https://example.org,pair,"0,3"'
    echo 'DGX-1V,dgx1-v100,V100,Volta,NVLink2,2,1,all_reduce,,,float,268435456,,,30.0,0,,https://example.org,pair,"0,5"'
} >"$tmp/devices.csv"
expect 0 out "MAPE:" -- validate --csv "$tmp/devices.csv.out" "$tmp/devices.csv"
if awk -F, 'NR == 2 {a = $9} NR == 3 {b = $9} END {exit !(a > 5 * b && b > 0)}' "$tmp/devices.csv.out"; then
    echo "ok: validate places ranks on a row's visible_devices"
else
    echo "FAIL: validate visible_devices: busbw of GPUs 0,3 not over 5x that of 0,5:"
    cat "$tmp/devices.csv.out"
    n_fail=$((n_fail + 1))
fi

# nvlsim validate on the committed fixture (rows of collectives.csv): the
# known errors of this model, to the tenth of a percent, the skipped rows
# counted with their reasons, and the last line's summary.
expect 0 out "MAPE: 9.4% over 6 rows (3 skipped)" -- \
    validate --csv "$tmp/fixture.csv" "$top_srcdir/tests/data/validate-fixture.csv"
for want in "6,+17.04" "7,+6.15" "8,+0.39" "9,-4.25" "10,-26.86" "4,+1.78"; do
    line=${want%%,*} err=${want#*,}
    got=$(awk -F, -v l="$line" '$1 == l {printf "%+.2f", $10}' "$tmp/fixture.csv")
    if [ "$got" = "$err" ]; then
        echo "ok: validate fixture line $line: error $got%"
    else
        echo "FAIL: validate fixture line $line: error '$got'%, expected $err%"
        n_fail=$((n_fail + 1))
    fi
done
if grep -q "skipped 2 rows: runs with NVLink disabled" "$tmp/out" &&
    grep -q "skipped 1 rows: no nvlsim_system named" "$tmp/out"; then
    echo "ok: validate counts the fixture's skipped rows with their reasons"
else
    echo "FAIL: validate does not explain the fixture's skipped rows:"
    cat "$tmp/out"
    n_fail=$((n_fail + 1))
fi

# Malformed collective rows are reported one by one (file:line: column:
# what), the good row still replays, and the exit status is 1.
bad="$columns"
for cell in "dgx-h100,H100,Hopper,NVLink4,8,1,all_reduce,,,float,1048576,x1,,,0" \
    "dgx-h100,H100,Hopper,NVLink4,8,1,allscatter,,,float,1048576,30,,,0" \
    "dgx-h100,H100,Hopper,NVLink4,8,1,all_reduce,,,quad,1048576,30,,,0" \
    "dgx-h100,H100,Hopper,NVLink4,12,5,all_reduce,,,float,1048576,30,,,0" \
    "dgx-h100,H100,Hopper,NVLink4,8,1,all_reduce,,,float,1048575,30,,,0" \
    "dgx-z900,Z900,Zeta,NVLink9,8,1,all_reduce,,,float,1048576,30,,,0" \
    "dgx-h100,H100,Hopper,NVLink4,8,1,all_reduce,,,float,1048576,30,,,0"; do
    bad="$bad
8x GPU,$cell,2.x,https://example.org,note"
done
printf '%s\n' "$bad" >"$tmp/bad.csv"
"$nvlsim" validate "$tmp/bad.csv" >"$tmp/out" 2>"$tmp/err"
status=$?
n_err=$(grep -c "bad.csv:[0-9]*: " "$tmp/err")
if [ "$status" -eq 1 ] && [ "$n_err" -eq 6 ] &&
    grep -q "bad.csv:2: column time_us: 'x1': expected a non-negative number" "$tmp/err" &&
    grep -q "bad.csv:3: column collective: 'allscatter' is not a collective" "$tmp/err" &&
    grep -q "bad.csv:4: column dtype: 'quad' is not a data type" "$tmp/err" &&
    grep -q "bad.csv:5: column nodes: 12 GPUs do not split evenly over 5 hosts" "$tmp/err" &&
    grep -q "bad.csv:6: 1048575 bytes is not a whole number of 4-byte elements" "$tmp/err" &&
    grep -q "bad.csv:7: column nvlsim_system: .*system/dgx-z900.ini" "$tmp/err" &&
    grep -q "MAPE: .* over 1 rows" "$tmp/out"; then
    echo "ok: validate reports 6 malformed rows, replays the good one, exits 1"
else
    echo "FAIL: validate on malformed rows: exit $status, $n_err errors:"
    cat "$tmp/err" "$tmp/out"
    n_fail=$((n_fail + 1))
fi

# nvlsim calibrate compute-efficiency on the fixture's Megatron V1.0 row:
# one row, fitted exactly on itself (its own value, error 0 at the fit).
expect 0 out "training_efficiency = 0." -- calibrate compute-efficiency \
    "$top_srcdir/tests/data/training-fixture.csv" --system dgx2-v100
expect 0 out "MAPE 0.00%" -- calibrate compute-efficiency \
    "$top_srcdir/tests/data/training-fixture.csv" --system dgx2-v100
expect 1 err "no training rows of dgx-h100" -- calibrate compute-efficiency \
    "$top_srcdir/tests/data/training-fixture.csv" --system dgx-h100
# Without --system, one efficiency for every generation: the median of the
# two rows' own, 0.7795 (A100) and 0.8881 (V100).
expect 0 out "WORK_COMPUTE_STEP_EFFICIENCY 0.884 (sim/work/work-compute.h)" -- \
    calibrate compute-efficiency "$top_srcdir/tests/data/training-fixture.csv"

# nvlsim validate on training rows (the columns of training.csv: one SC21
# row and one Megatron V1.0 row on DGX-2): each becomes a scenario, and the
# last line is the summary.
expect 0 out "MAPE:" -- validate "$top_srcdir/tests/data/training-fixture.csv"
last=$(tail -n 1 "$tmp/out")
case $last in
MAPE:*) echo "ok: validate training rows ends with '$last'" ;;
*)
    echo "FAIL: validate training rows: last line '$last' does not start with 'MAPE:'"
    n_fail=$((n_fail + 1))
    ;;
esac

# validate --cross generation on two SC21 A100 rows and three Megatron V1.0
# V100 rows: each generation is simulated at the median of the other's rows'
# own efficiency (Ampere at the middle Volta row's, Volta at the mean of the
# two Ampere rows'), the one shared k is the median of all five, the CROSS
# MAPE is the mean of the held-out errors, and --max-mape gates it.
cross_csv="$top_srcdir/tests/data/training-cross-fixture.csv"
expect 0 out "CROSS MAPE:" -- validate --cross generation "$cross_csv"
if awk '
    $1 ~ /^[0-9]+$/ && NF > 9 {
        own[$(NF - 6)] = own[$(NF - 6)] " " $(NF - 4); all = all " " $(NF - 4)
        e = $NF + 0; sum += e < 0 ? -e : e; n++
    }
    $1 ~ /^(Ampere|Volta)$/ && NF == 6 { used[$1] = $3; rows[$1] = $2 }
    /^# own_k: / { shared = $0; sub(/.*k = /, "", shared); sub(/ .*/, "", shared) }
    /^CROSS MAPE: [0-9.]+% over 5 rows$/ { cross = $3 + 0; crossed = 1 }
    function sorted(list, v,   m, i, j, t) {
        m = split(list, v, " ")
        for (i = 1; i <= m; i++)
            for (j = i + 1; j <= m; j++)
                if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
        return m
    }
    function near(a, b) { return a - b < 0.00015 && b - a < 0.00015 }
    END {
        if (n != 5 || rows["Ampere"] != 2 || rows["Volta"] != 3) exit 1
        if (sorted(own["Volta"], v) != 3 || used["Ampere"] != v[2]) exit 1
        if (sorted(own["Ampere"], a) != 2 || !near(used["Volta"], (a[1] + a[2]) / 2)) exit 1
        if (used["Volta"] == used["Ampere"] || sorted(all, s) != 5 || shared != s[3]) exit 1
        if (!crossed || cross - sum / n > 0.06 || sum / n - cross > 0.06) exit 1
    }' "$tmp/out"; then
    echo "ok: validate --cross generation: each generation at the median of the other's own k"
else
    echo "FAIL: validate --cross generation: k used, shared k or CROSS MAPE not as fitted:"
    cat "$tmp/out"
    n_fail=$((n_fail + 1))
fi
expect 1 err "exceeds --max-mape 0.01%" -- validate --cross generation --max-mape 0.01 "$cross_csv"
expect 0 out "CROSS MAPE: " -- validate --cross generation --max-mape 99 "$cross_csv"

# A Megatron-Bridge row runs as its performance configuration does: bf16
# gradients, an fp8 recipe's parameters gathered in fp8. The same step by
# hand, with and without those two keys: validate's is the first.
blackwell="$top_srcdir/data/measurements/training-blackwell.csv"
{ head -n 1 "$blackwell"; grep 'LLAMA3_8B.*FP8-MX' "$blackwell" | grep -m 1 gb300; } >"$tmp/bridge.csv"
"$nvlsim" validate "$tmp/bridge.csv" --csv "$tmp/bridge-out.csv" >/dev/null
printf '[scenario]\nsystem = gb300-nvl72\nmodel = llama3-8b\n[layout]\ntp = 1\npp = 1\ndp = 8\nzero = 1\nflash_attention = yes\n[batch]\nglobal_batch = 128\nmicro_batch = 2\nseq_len = 8192\n[precision]\nmath = mxfp8\n' >"$tmp/bridge.ini"
with=$("$nvlsim" run -q "$tmp/bridge.ini" --set grad_bytes=2 --set param_bytes=1)
without=$("$nvlsim" run -q "$tmp/bridge.ini")
if awk -F, -v with="$with" -v without="$without" 'NR == 2 {
        d = $9 - with; e = $9 - without
        exit !(d * d < (1e-5 * with) ^ 2 && e * e > (1e-3 * with) ^ 2)
    }' "$tmp/bridge-out.csv"; then
    echo "ok: a Megatron-Bridge MXFP8 row runs with grad_bytes 2 and param_bytes 1 ($with s)"
else
    echo "FAIL: the Megatron-Bridge row: validate $(tail -n 1 "$tmp/bridge-out.csv"), by hand $with s, without the bytes $without s"
    n_fail=$((n_fail + 1))
fi

# Without FILE validate replays the shipped suite, collective rows then
# training rows, each file under a line naming it (one system's rows here:
# the whole suite takes a minute); calibrate compute-efficiency reads its
# training rows; --csv needs one file.
expect 0 out "data/measurements/training.csv (the shipped measurement suite)" -- \
    validate -q --system dgx2-v100
if grep -q "data/measurements/collectives.csv (the shipped measurement suite)" "$tmp/out" &&
    grep -q "data/measurements/training-mcore-h100.csv (the shipped measurement suite)" "$tmp/out" &&
    grep -q "data/measurements/training-blackwell.csv (the shipped measurement suite)" "$tmp/out" &&
    grep -q "data/measurements/training-public.csv (the shipped measurement suite)" "$tmp/out" &&
    [ "$(grep -c '^MAPE: ' "$tmp/out")" -eq 5 ] && grep -q '^MAPE: .* over 4 rows' "$tmp/out"; then
    echo "ok: validate without FILE: the five files of the suite, 4 DGX-2 training rows"
else
    echo "FAIL: validate without FILE did not replay the five files of the suite:"
    cat "$tmp/out"
    n_fail=$((n_fail + 1))
fi
expect 0 out "training_efficiency = " -- calibrate compute-efficiency --system dgx2-v100
expect 2 err "--csv and --plot write one file's rows: expected a FILE.csv" -- \
    validate --csv "$tmp/suite.csv"
expect 2 err "expected one FILE.csv, or none for the shipped suite" -- validate a.csv b.csv

# nvlsim run: the built-in study, then a scenario small enough to take
# milliseconds (Llama 3 8B, one DGX H100, tp 8, 8 sequences).
expect 0 out "step time" -- run
mkdir "$tmp/run"
tiny_scenario "$tmp/run/tiny.ini"
expect 0 out "step time" -- run "$tmp/run/tiny.ini"
expect 1 err "[precision] math: fp8 needs fp8 tensor cores" -- run "$tmp/run/tiny.ini" \
    --set system=dgx-a100 --set math=fp8
# 80 GPUs on 20 trays over five racks of 4: a dp group of 5 (ranks 8
# apart) holds 2, 2 and 1 GPUs in the racks it touches, NCCL's nodes of
# different sizes; it runs, and so do racks listed, full ones first.
expect 0 out "x 20 nodes in 5 NVLink domains (80 GPUs" -- run "$tmp/run/tiny.ini" \
    --set system=gb200-nvl72 --set tp=8 --set pp=2 --set dp=5 --set global_batch=10 \
    --set domains=5
expect 0 out "x 20 nodes in 2 NVLink domains of 18 and 2 hosts (80 GPUs" -- \
    run "$tmp/run/tiny.ini" --set system=gb200-nvl72 --set tp=8 --set pp=2 --set dp=5 \
    --set global_batch=10 --set domains=18,2
# The same 80 GPUs on 20 trays spread over two racks of 10 trays: every
# group even, it runs.
expect 0 out "x 20 nodes in 2 NVLink domains (80 GPUs" -- run "$tmp/run/tiny.ini" \
    --set system=gb200-nvl72 --set tp=8 --set pp=2 --set dp=5 --set global_batch=10
expect 0 out "# model Llama 3 8B; layout tp 8 pp 1 dp 1 " -- run "$tmp/run/tiny.ini"
expect 0 out "# model Llama 3 8B; layout tp 2 pp 1 dp 1 " -- \
    run "$tmp/run/tiny.ini" --set layout.tp=2

# --csv: the documented columns and one row; -q prints the step time alone,
# the same digits as the row's step_time_s.
expect 0 out "." -- run "$tmp/run/tiny.ini" -q --csv "$tmp/run/tiny.csv"
q=$(cat "$tmp/out")
header="scenario,system,nodes,domains,gpus,model,tp,cp,pp,dp,vp,ep,sp,zero,recompute,schedule"
header="$header,global_batch,micro_batch,seq_len,fidelity,step_time_s,tokens_per_s"
header="$header,tflops_per_gpu,mfu,memory_gib,hbm_gib,fits,compute_s,tp_s,pp_s,dp_s,ep_s,cp_s,idle_s"
csv_step=$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "step_time_s") c = i}
    NR == 2 {print $c}' "$tmp/run/tiny.csv")
if [ "$(head -n 1 "$tmp/run/tiny.csv")" = "$header" ] &&
    [ "$(wc -l <"$tmp/run/tiny.csv")" -eq 2 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
    [ -n "$q" ] && [ "$q" = "$csv_step" ]; then
    echo "ok: run --csv has the documented header and one row; -q prints its step_time_s $q"
else
    echo "FAIL: run --csv / -q: -q printed '$q', step_time_s '$csv_step'; the file:"
    cat "$tmp/run/tiny.csv"
    n_fail=$((n_fail + 1))
fi

# --write-trace, then the trace replayed by a scenario on the same system:
# the same step time to the last printed digit.
expect 0 out "$q" -- run "$tmp/run/tiny.ini" -q --write-trace "$tmp/run/tiny-trace.csv"
printf '[scenario]\nsystem = dgx-h100\ntrace = %s\n' "$tmp/run/tiny-trace.csv" \
    >"$tmp/run/replay.ini"
expect 0 out "." -- run "$tmp/run/replay.ini" -q
if [ "$(cat "$tmp/out")" = "$q" ]; then
    echo "ok: run replays its own trace to the same step time $q"
else
    echo "FAIL: run on the written trace: step time '$(cat "$tmp/out")', generated '$q'"
    n_fail=$((n_fail + 1))
fi

# --trace: the step's timeline as Chrome trace-event JSON (the suite
# test-report parses it event by event).
expect 0 out "$q" -- run "$tmp/run/tiny.ini" -q --trace "$tmp/run/tiny.json"
if [ "$(head -c 16 "$tmp/run/tiny.json")" = '{"traceEvents":[' ] &&
    grep -q '"ph":"X"' "$tmp/run/tiny.json"; then
    echo "ok: run --trace writes a Chrome trace"
else
    echo "FAIL: run --trace: $tmp/run/tiny.json starts '$(head -c 40 "$tmp/run/tiny.json")'"
    n_fail=$((n_fail + 1))
fi

# Megatron-LM's argument names set the keys they mean: the same run, byte
# for byte but the wall-clock line, with either spelling (and with - for
# _); gpus=N makes dp N / (tp x cp x pp).
same_run() { # same_run WHAT -- ARGS_A -- ARGS_B: both runs print the same
    what=$1
    shift 2
    a=
    while [ "$1" != -- ]; do
        a="$a $1"
        shift
    done
    shift
    # shellcheck disable=SC2086
    "$nvlsim" run $a 2>&1 | grep -v ' events in ' >"$tmp/same-a"
    "$nvlsim" run "$@" 2>&1 | grep -v ' events in ' >"$tmp/same-b"
    if grep -q '^step time' "$tmp/same-a" && cmp -s "$tmp/same-a" "$tmp/same-b"; then
        echo "ok: $what"
    else
        echo "FAIL: $what:"
        diff "$tmp/same-a" "$tmp/same-b" | head -n 20
        n_fail=$((n_fail + 1))
    fi
}
tiny="$tmp/run/tiny.ini"
same_run "run --set tensor_model_parallel_size=4 is run --set tp=4" -- \
    "$tiny" --set tp=4 -- "$tiny" --set tensor_model_parallel_size=4
same_run "run --set tensor-model-parallel-size=4 is run --set tp=4" -- \
    "$tiny" --set tp=4 -- "$tiny" --set tensor-model-parallel-size=4
same_run "run with Megatron-LM's names for pp, vp, ep, sp, recompute, zero and the batch" -- \
    "$tiny" --set tp=2 --set pp=2 --set vp=2 --set ep=1 --set sp=yes --set recompute=selective \
    --set zero=1 --set micro_batch=2 --set global_batch=16 --set seq_len=4096 -- \
    "$tiny" --set tensor_model_parallel_size=2 --set pipeline_model_parallel_size=2 \
    --set virtual_pipeline_model_parallel_size=2 --set expert_model_parallel_size=1 \
    --set context_parallel_size=1 --set sequence_parallel=yes \
    --set recompute_granularity=selective --set use_distributed_optimizer=true \
    --set micro_batch_size=2 --set global_batch_size=16 --set seq_length=4096
same_run "run --set gpus=16 is run --set dp=2 (tp 8)" -- \
    "$tiny" --set dp=2 -- "$tiny" --set gpus=16
expect 0 out "# model Llama 3 8B; layout tp 4 pp 1 dp 4 " -- run "$tiny" \
    --set gpus=16 --set tensor_model_parallel_size=4
expect 0 out "tensor_model_parallel_size (tp)" -- run --help
expect 0 out "use_distributed_optimizer (zero 1" -- run --help
expect 0 out "  recv), category (compute|tp|pp|dp|ep|cp), group and members (coll: a" -- run --help
expect 1 err "[layout] gpus: 12 is not a multiple of tp x cp x pp = 8 (dp = gpus / (tp x cp x pp))" -- \
    run "$tiny" --set gpus=12
# Userbuffers overlap sequence-parallel collectives: without them, the key
# and what it needs are named.
expect 1 err "[layout] tp_comm_overlap: yes needs tp > 1 and sp = yes" -- \
    run "$tiny" --set tp=4 --set sp=no --set tp_comm_overlap=yes
expect 0 out "exposed TP comm" -- run "$tiny" --set tp=4 --set sp=yes --set tp_comm_overlap=yes
same_run "run --set context_parallel_size=2 is run --set cp=2" -- \
    "$tiny" --set cp=2 --set tp=4 -- "$tiny" --set context_parallel_size=2 --set tp=4
expect 0 out "# model Llama 3 8B; layout tp 4 cp 2 pp 1 dp 1 " -- run "$tiny" \
    --set cp=2 --set tp=4
expect 0 out "exposed CP comm" -- run "$tiny" --set cp=2 --set tp=4

# Bad scenarios are bad input (1), each named by file, group and key; two
# scenarios or an unknown option are usage errors (2).
scenario() { # scenario NAME TEXT: writes $tmp/run/NAME.ini
    printf '%b' "$2" >"$tmp/run/$1.ini"
}
scenario group '[scenario]\nsystem = dgx-h100\nmodel = llama3-8b\n[batch]\nglobal_batch = 8\n[bogus]\nx = 1\n'
scenario key '[scenario]\nsystem = dgx-h100\nmodel = llama3-8b\n[layout]\ntpp = 2\n[batch]\nglobal_batch = 8\n'
scenario heads '[scenario]\nsystem = dgx-h100\nmodel = llama3-8b\n[layout]\ntp = 3\n[batch]\nglobal_batch = 8\n'
scenario model '[scenario]\nsystem = dgx-h100\nmodel = llama9-8b\n[batch]\nglobal_batch = 8\n'
scenario system '[scenario]\nsystem = dgx-h999\nmodel = llama3-8b\n[batch]\nglobal_batch = 8\n'
scenario number '[scenario]\nsystem = dgx-h100\nmodel = llama3-8b\n[batch]\nglobal_batch = 8x\n'
expect 1 err "group.ini: [bogus]: unknown group" -- run "$tmp/run/group.ini"
expect 1 err "key.ini: [layout] tpp: unknown key" -- run "$tmp/run/key.ini"
expect 1 err "heads.ini: [layout] tp: 3 does not divide the 32 heads of Llama 3 8B" -- \
    run "$tmp/run/heads.ini"
expect 1 err "model.ini: [scenario] model: no model 'llama9-8b'" -- run "$tmp/run/model.ini"
expect 1 err "no system model 'dgx-h999'" -- run "$tmp/run/system.ini"
expect 1 err "number.ini: [batch] global_batch: '8x' is not a plain number" -- \
    run "$tmp/run/number.ini"
expect 1 err "--set layout.tp: expected group.key=value or key=value" -- \
    run "$tmp/run/tiny.ini" --set layout.tp
expect 1 err "missing.ini" -- run "$tmp/run/missing.ini"
expect 2 err "expected at most one SCENARIO.ini, got 2 arguments" -- \
    run "$tmp/run/tiny.ini" "$tmp/run/tiny.ini"
expect 2 err "Unknown option --frob" -- run "$tmp/run/tiny.ini" --frob

# Every shipped study runs (about 8 s of the script's time, all together),
# and again with its GPUs given instead of its dp (--set gpus=N replaces
# the file's dp): the same step time (8 s more).
for f in "$top_srcdir"/scenarios/*.ini; do
    expect 0 out "." -- run -q "$f"
    cp "$tmp/out" "$tmp/study-dp"
    gpus=$(awk -F' *= *' '/^\[/ {g = $0} g == "[layout]" && $1 ~ /^(tp|pp|dp)$/ {n = (n ? n : 1) * $2}
        END {print n}' "$f")
    if "$nvlsim" run -q "$f" --set gpus="$gpus" >"$tmp/study-gpus" 2>&1 &&
        cmp -s "$tmp/study-dp" "$tmp/study-gpus"; then
        echo "ok: run -q $(basename "$f") --set gpus=$gpus: the same step time"
    else
        echo "FAIL: run -q $(basename "$f") --set gpus=$gpus: $(cat "$tmp/study-gpus")," \
            "expected $(cat "$tmp/study-dp")"
        n_fail=$((n_fail + 1))
    fi
    # The analytic tier (each call alone, stretched by a closed form of its
    # links' load; no shared network) within 3% of the flow replay.
    if "$nvlsim" run -q "$f" --set fidelity=analytic >"$tmp/study-analytic" 2>&1 &&
        awk -v flow="$(cat "$tmp/study-dp")" '{exit !($1 <= flow * 1.03 && $1 >= flow / 1.03)}' \
            "$tmp/study-analytic"; then
        echo "ok: run -q $(basename "$f") at the analytic tier: $(cat "$tmp/study-analytic") s," \
            "flow $(cat "$tmp/study-dp") s"
    else
        echo "FAIL: run -q $(basename "$f") --set fidelity=analytic: $(cat "$tmp/study-analytic")," \
            "expected within 3% of the flow replay's $(cat "$tmp/study-dp")"
        n_fail=$((n_fail + 1))
    fi
done
expect 0 out "flow / analytic = 1.0" -- explain run "$top_srcdir/scenarios/mixtral-8x7b-ep8.ini"
expect 1 err "'fast' is not one of: flow, packet, analytic" -- \
    run -q "$top_srcdir/scenarios/mixtral-8x7b-ep8.ini" --set fidelity=fast

# nvlsim coll: nccl-tests' table with what ran; sizes in nccl-tests' form;
# bad options are usage errors, a system that cannot host the GPUs too.
expect 0 out "(elements)" -- coll --system dgx-h100 -b 8 -e 1M -f 32
expect 0 out "nvls      Simple" -- coll --system dgx-h100 -b 256M -e 256M
expect 0 out "ring      Simple" -- coll --system dgx-a100 --collective all_gather -b 64M -e 64M
expect 0 out "direct" -- coll alltoall_perf --system dgx-h100 -b 1M -e 1M
expect 0 out "16 GPUs of dgx-h100 (2 nodes)" -- coll --system dgx-h100 --gpus 16 -b 1M -e 1M
expect 0 out "busbw" -- coll broadcast --system dgx1-v100 -b 1K -e 1K --fidelity packet
expect 2 err "--collective: 'allscatter': expected" -- coll --collective allscatter
expect 2 err "--proto: 'LL64': expected auto, LL, LL128 or Simple" -- coll --proto LL64
expect 2 err "--maxbytes: '8X' has an unknown unit 'X'" -- coll -e 8X
expect 2 err "--gpus: '12': 12 GPUs are not whole hosts of dgx-h100 (8 GPUs each)" -- coll --gpus 12
expect 2 err "NCCL cannot run all_reduce with algorithm nvls" -- coll --system dgx-a100 --algo nvls
expect 1 err "system/nonexistent.ini does not exist" -- coll --system nonexistent
# --gpu-list: a node's GPUs as CUDA_VISIBLE_DEVICES lists them; on a
# DGX-1 the header shows the rings NCCL builds on them (tests/coll's
# coll-rings suite reasons them out); a bad list is a usage error naming
# what was wrong.
expect 0 out "# NCCL rings: 3 channels x 20.0 GB/s, path NVB: 0 3 4 7 | 0 3 7 4 | 0 4 7 3" -- \
    coll --system dgx1-v100 --gpu-list 0,3,4,7 -b 1M -e 1M
expect 0 out "# NCCL rings: 3 channels x 20.0 GB/s, path NVB: 0 3 4 7 | 0 3 7 4 | 0 4 7 3" -- \
    coll --system dgx1-v100 --gpu-list 7,4,3,0 -b 1M -e 1M
expect 0 out "# gpus: 7,4,3,0 on each node (rank i on the i-th)" -- \
    coll --system dgx1-v100 --gpu-list 7,4,3,0 -b 1M -e 1M
expect 0 out "# NCCL rings: 1 channel x 6.0 GB/s, path SYS: 0 5" -- \
    coll --system dgx1-v100 --gpu-list 0,5 -b 1M -e 1M
expect 0 out "# NCCL rings: 6 channels x 9.0 GB/s, path NVL" -- \
    coll --system dgx1-p100 --gpu-list 0,1,2,3 -b 1M -e 1M
expect 0 out "8 GPUs of dgx-h100 (2 nodes)" -- coll --system dgx-h100 --gpus 8 --gpu-list 0,2,4,6 -b 1M -e 1M
expect 2 err "--gpu-list: '0,9': dgx1-v100 has GPUs 0 to 7 on a node, not 9" -- \
    coll --system dgx1-v100 --gpu-list 0,9
expect 2 err "--gpu-list: '0,3,3': GPU 3 is listed twice" -- coll --system dgx1-v100 --gpu-list 0,3,3
expect 2 err "--gpu-list: '0,x': 'x' is not a GPU number" -- coll --gpu-list 0,x
expect 2 err "--gpu-list: '0,,3': an empty entry" -- coll --gpu-list 0,,3
expect 2 err "--gpu-list: '': no GPU named" -- coll --gpu-list ""
expect 2 err "--gpu-list: '0,3,4,7': 6 GPUs are not whole hosts of 4 GPUs each" -- \
    coll --gpus 6 --gpu-list 0,3,4,7
# --gpus-per-node K: the first K GPUs of each node, nodes added for the
# rest; with one a node NCCL's model picks PAT for 1 MiB all_gather on
# 8 nodes (tests/coll's coll-pat suite works the times out).
expect 0 out "4 GPUs of dgx-h100 (4 nodes)" -- coll --gpus 4 --gpus-per-node 1 -b 1M -e 1M
expect 0 out "# gpus: 0,1 on each node" -- coll --gpus 8 --gpus-per-node 2 -b 1M -e 1M
expect 0 out "pat       Simple" -- coll all_gather --gpus 8 --gpus-per-node 1 -b 1M -e 1M
expect 0 out "PAT: the data of the rank 2^k away comes over dim k" -- \
    explain coll all_gather --gpus 8 --gpus-per-node 1 -b 1M
expect 0 out "     0       8" -- p2p --nodes 2 --gpus-per-node 1 --matrices-only --bytes 1M
expect 0 out "(elements)" -- coll -b 8 -e 64 --csv "$tmp/coll.csv"
if head -n 1 "$tmp/coll.csv" | grep -q '^size_bytes,count_elements,type,redop,root,time_us,algbw_GB_per_s,busbw_GB_per_s,algo,proto,n_channels,nccl_model_time_us,in_place_time_us,in_place_algbw_GB_per_s,in_place_busbw_GB_per_s$' &&
    [ "$(wc -l <"$tmp/coll.csv")" -eq 5 ]; then
    echo "ok: coll --csv has units in its column names, one row per size"
else
    echo "FAIL: coll --csv:"
    cat "$tmp/coll.csv"
    n_fail=$((n_fail + 1))
fi

# nccl-tests parity (issue 19): its command line and its table. A parser
# written for nccl-tests reads the rows: $12 is the in-place busbw, the
# CSV's for the same size, and the footer's average is the mean busbw of
# both groups of every row (src/common.cu), to the rounding of the rows.
"$nvlsim" coll all_reduce_perf -b 8 -e 8M -f 4 --csv "$tmp/parity.csv" >"$tmp/parity.out"
if awk 'NR == FNR { if (FNR > 1) { split($0, f, ","); busbw[f[1]] = sprintf("%.2f", f[15]); n_csv++ }; next }
    /Avg bus bandwidth/ { avg = $NF }
    /^#/ { next }
    {
        n++
        if ($12 != busbw[$1]) { printf "size %s: $12 is %s, the CSV says %s; ", $1, $12, busbw[$1]; bad = 1 }
        sum += $8 + $12
    }
    END {
        d = avg - sum / (2 * n)
        if (n == 0 || n != n_csv) { printf "%d rows, %d in the CSV; ", n, n_csv; bad = 1 }
        if (d > 0.005 || d < -0.005) { printf "average %s, the rows give %.4f; ", avg, sum / (2 * n); bad = 1 }
        if (!bad) printf "%d rows, $12 = the CSV in-place busbw, average %s = the mean of the rows", n, avg
        exit bad
    }' "$tmp/parity.csv" "$tmp/parity.out" >"$tmp/verdict"; then
    echo "ok: coll reads as nccl-tests: $(cat "$tmp/verdict")"
else
    echo "FAIL: coll as nccl-tests: $(cat "$tmp/verdict")"
    n_fail=$((n_fail + 1))
fi
for line in \
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 8388608 step: 4(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0" \
    "#  Rank  7 Group  0 Pid      - on      node0 device  7 [sim] NVIDIA H100 SXM5" \
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong  algo" \
    "           8             2     float     sum      -1    16.00    0.00    0.00    N/A    16.00" \
    "# Out of bounds values : 0 OK"; do
    if grep -qF -- "$line" "$tmp/parity.out"; then
        echo "ok: coll prints '$line'"
    else
        echo "FAIL: coll lacks '$line':"
        head -n 20 "$tmp/parity.out"
        n_fail=$((n_fail + 1))
    fi
done
if head -n 1 "$tmp/parity.csv" | grep -q ',nccl_model_time_us,in_place_time_us,in_place_algbw_GB_per_s,in_place_busbw_GB_per_s$'; then
    echo "ok: coll --csv adds the in-place group after its columns"
else
    echo "FAIL: coll --csv header: $(head -n 1 "$tmp/parity.csv")"
    n_fail=$((n_fail + 1))
fi
# -o is the reduction, -d the type (count = size / its bytes; a rank's
# part for all_gather as nccl-tests counts it); the collective is named as
# nccl-tests' binaries are, or plainly; values attach as getopt's do.
expect 0 out "     1048576        262144     float     max      -1" -- coll -o max -b 1M -e 1M
expect 2 err "--op: 'bogus': expected sum, prod, min, max or avg" -- coll -o bogus
expect 2 err "name the collective as the first argument or with --collective all_gather" -- \
    coll -o all_gather
expect 0 out "     1048576        524288      half     sum" -- coll -d half -b 1M -e 1M
expect 0 out "     1048576         32768     float    none      -1" -- coll all_gather_perf -b 1M -e 1M
expect 0 out "# nvlsim coll: reduce_scatter on 8 GPUs" -- coll reduce_scatter -b 1M -e 1M
expect 0 out "# nvlsim coll: all_reduce on 8 GPUs" -- coll all_reduce -b 1M -e 1M
expect 0 out "# nvlsim coll: broadcast on 8 GPUs" -- coll --collective broadcast_perf -b 1M -e 1M
expect 0 out "minBytes 1048576 maxBytes 2097152 step: 2(factor)" -- coll -b1M -e2M
expect 0 out "     2097152        524288     float     min" -- coll -b1M -e2M -omin
expect 0 out "     3145728        786432" -- coll -b 1M -e 3M -i 1M
expect 0 out "step: 1048576(bytes)" -- coll -b 1M -e 3M -f 1 -i1M
expect 2 err "--collective broadcast: the argument 'all_gather' names another" -- \
    coll all_gather --collective broadcast
expect 2 err "'foo_perf': expected a collective: all_reduce" -- coll foo_perf
# What changes a simulated time and what does not: -z 1 is --harness
# blocking, -g 8 one thread driving 8 GPUs (--launch-mode threads), -n the
# calls the first launch is spread over; -w, -c and -a are printed only.
coll_time() { # coll_time ARGS: the simulated time of 64 KiB all_reduce
    "$nvlsim" coll -b 64K -e 64K --csv "$tmp/t.csv" "$@" >"$tmp/t.out" 2>&1 &&
        awk -F, 'NR == 2 {print $6}' "$tmp/t.csv"
}
same_time() { # same_time WHAT ARGS1 -- ARGS2
    what=$1
    shift
    a="" b="" left=1
    for x in "$@"; do
        if [ "$x" = -- ]; then left=0; elif [ $left -eq 1 ]; then a="$a $x"; else b="$b $x"; fi
    done
    # shellcheck disable=SC2086
    ta=$(coll_time $a) tb=$(coll_time $b)
    if [ -n "$ta" ] && [ "$ta" = "$tb" ]; then
        echo "ok: $what: $ta us both"
    else
        echo "FAIL: $what: '$ta' us with$a, '$tb' us with$b"
        n_fail=$((n_fail + 1))
    fi
}
same_time "-z 1 is --harness blocking" -z 1 -- --harness blocking
same_time "-g 8 is --launch-mode threads" -g 8 -- --launch-mode threads
same_time "-w, -c and -a change no time" -w 0 -c 0 -a 3 -- -w 50 -c 5 -a 1
same_time "-n 20 is the runtime model's" -n 20 --
if [ "$(coll_time -n 1)" != "$(coll_time -n 20)" ]; then
    echo "ok: -n counts in the time"
else
    echo "FAIL: -n 1 and -n 20 give the same time"
    n_fail=$((n_fail + 1))
fi
expect 0 out "# nThread 2 nGpus 4 minBytes" -- coll -t 2 -g 4 -b 1M -e 1M
expect 0 out "# Blocking Enabled: wait for completion and barrier after each collective" -- \
    coll -z1 -b 1M -e 1M
expect 2 err "--nthreads 1 x --ngpus 16: a process drives 16 GPUs of one host" -- coll -g 16
expect 2 err "--launch-mode mpi: nccl-tests' -t and -g set the launch mode" -- \
    coll -g 2 --launch-mode mpi

# Faults and stragglers: run prints what it injected; a straggler 5 ms late
# each step on one DGX H100 with tp 8 makes the step 5 ms longer, to the
# printed digit; coll and p2p take --fault; bad faults name file, group and
# key (run: bad input, 1) or the option (coll, p2p: usage, 2).
expect 0 out "# faults: NVSwitch plane 1 down (on every node)" -- \
    run "$tmp/run/tiny.ini" --set faults.planes_down=1
expect 0 out "# stragglers: GPU 3: at 0.5 of its compute rate, 5 ms late each step" -- \
    run "$tmp/run/tiny.ini" --set stragglers.ranks=3 --set compute_rate=0.5 --set step_delay=5ms
healthy=$("$nvlsim" run -q "$tmp/run/tiny.ini")
late=$("$nvlsim" run -q "$tmp/run/tiny.ini" --set stragglers.ranks=3 --set step_delay=5ms)
if [ -n "$healthy" ] &&
    [ "$(awk -v a="$healthy" -v b="$late" 'BEGIN {printf "%.9f", b - a}')" = "0.005000000" ]; then
    echo "ok: a straggler 5 ms late: step $healthy s -> $late s"
else
    echo "FAIL: a straggler 5 ms late: step '$healthy' s -> '$late' s"
    n_fail=$((n_fail + 1))
fi
expect 1 err "tiny.ini: [faults] planes_down: '4' names plane 4; expected NVSwitch planes 0 to 3 of dgx-h100" -- \
    run "$tmp/run/tiny.ini" --set faults.planes_down=4
expect 1 err "tiny.ini: [faults] slow_rate: 'nan' is not a number" -- \
    run "$tmp/run/tiny.ini" --set faults.slow_links=3:1 --set slow_rate=nan
expect 1 err "tiny.ini: [stragglers] ranks: GPU 8 is not one of the job's 8 GPUs" -- \
    run "$tmp/run/tiny.ini" --set stragglers.ranks=8 --set compute_rate=0.5
expect 0 out "# faults: NVSwitch plane 1 down (on every node)" -- \
    coll --system dgx-h100 -b 1M -e 1M --fault planes_down=1
expect 0 out "# faults: GPUs 0-1 (1 link): down (on every node)" -- \
    p2p --system dgx1-v100 --matrices-only --bytes 1M --fault links_down=0-1
expect 2 err "--fault: [faults] links_down: '9:1' names GPU 9; expected GPUs 0 to 7 of dgx-h100" -- \
    coll --fault links_down=9:1
expect 2 err "--fault frob=1: expected KEY=VALUE with KEY one of: planes_down" -- \
    p2p --fault frob=1
expect 2 err "--fault: [faults] slow_rate: '0' is out of range" -- \
    coll --fault slow_links=3:1 --fault slow_rate=0

# nvlsim calibrate: the DGX-1 P100 copy overhead shipped in its model comes
# back from its calibration rows (Tartan's latency matrix, committed).
expect 0 out "copy_overhead = 9539ns" -- calibrate copy-overhead \
    "$top_srcdir/tests/data/calibrate-copy-overhead.csv" --system dgx1-p100 \
    --match "modified p2pBandwidthLatencyTest"
expect 2 err "expected latency, copy-overhead or compute-efficiency [FILE.csv], or gemm, memory, loopback or interference FILE.csv" -- calibrate frobnicate x.csv
expect 2 err "or gemm, memory, loopback or interference FILE.csv" -- calibrate gemm --system dgx-h100
expect 2 err "or gemm, memory, loopback or interference FILE.csv" -- calibrate interference --system dgx-h200

# nvlsim bench-net: the flow engine on two DGX H100 nodes (16 GPUs).
expect 0 out "all-to-all 1MiB per pair" -- bench-net --only flow --nodes 2
if awk '$1 == "flow" && $6 == 16 {found = 1} END {exit !found}' "$tmp/out"; then
    echo "ok: bench-net --only flow --nodes 2 runs 16 GPUs"
else
    echo "FAIL: bench-net --only flow --nodes 2: no flow row of 16 GPUs:"
    cat "$tmp/out"
    n_fail=$((n_fail + 1))
fi

# The packet engine's p2p sweep is deterministic: two runs, same bytes.
p2p_sweep() {
    "$nvlsim" p2p --system dgx-h100 --sweep-only -e 1MiB --fidelity packet
}
p2p_sweep >"$tmp/sweep-a" 2>&1
p2p_sweep >"$tmp/sweep-b" 2>&1
if [ "$(grep -c '^ *[0-9]' "$tmp/sweep-a")" -eq 21 ] && cmp -s "$tmp/sweep-a" "$tmp/sweep-b"; then
    echo "ok: p2p --fidelity packet sweep is reproducible ($(wc -l <"$tmp/sweep-a") lines)"
else
    echo "FAIL: two p2p --fidelity packet sweeps differ, or the sweep is not 1 B..1 MiB:"
    diff "$tmp/sweep-a" "$tmp/sweep-b"
    n_fail=$((n_fail + 1))
fi

# Two runs with one seed agree on the simulated part (pending, events,
# pool columns and trace hash); another seed changes the trace.
run_bench() {
    "$nvlsim" bench-core --pending 100,1000 --events 20000 --seed "$1" |
        awk '!/^#/ {print $1, $2, $6, $7, $8}'
}
run_bench 3 >"$tmp/a"
run_bench 3 >"$tmp/b"
run_bench 4 >"$tmp/c"
if [ "$(wc -l <"$tmp/a")" -eq 2 ] && cmp -s "$tmp/a" "$tmp/b" && ! cmp -s "$tmp/a" "$tmp/c" &&
    grep -q '^100 20000 101 1 ' "$tmp/a"; then
    echo "ok: bench-core is reproducible: $(tr '\n' ';' <"$tmp/a")"
else
    echo "FAIL: bench-core rows differ between equal seeds or match across seeds:"
    cat "$tmp/a" "$tmp/b" "$tmp/c"
    n_fail=$((n_fail + 1))
fi

# explain coll says when a call ran folded by symmetry (a ring over two
# GB200 NVL72 racks: one rack stands for both; a ring over DGX H100 nodes:
# channel c enters each node at GPU c, so one GPU in 8 stands for its
# node's), and that a tree never folds by nodes.
expect 0 out "folded by symmetry: moving every rank 1 node on maps the call onto itself, so 1 rank in 2 ran" -- \
    explain coll --system gb200-nvl72 --gpus 144 --algo ring --bytes 1M
expect 0 out "folded by symmetry: moving every rank 1 GPU on within its node maps the call onto itself, so 1 rank in 8 ran" -- \
    explain coll --system dgx-h100 --gpus 32 --algo ring --bytes 1G
if "$nvlsim" explain coll --system dgx-h100 --gpus 32 --algo tree --bytes 1M | grep -q "folded.*nodes\? on"; then
    echo "FAIL: explain coll says a tree over 4 nodes ran folded by nodes"
    n_fail=$((n_fail + 1))
else
    echo "ok: a tree over 4 nodes never folds by nodes"
fi

# nvlsim explain: its numbers are those of coll and run for the same input.
expect 0 out "<- the fastest: NCCL's choice" -- explain coll --system dgx-h100 --bytes 64M
sim_us=$(awk '/^  time / {print $2}' "$tmp/out")
"$nvlsim" coll --system dgx-h100 -b 64M -e 64M --csv "$tmp/coll64.csv" >/dev/null
coll_us=$(awk -F, 'NR == 2 {printf "%.2f", $6}' "$tmp/coll64.csv")
if [ -n "$sim_us" ] && [ "$sim_us" = "$coll_us" ]; then
    echo "ok: explain coll's simulated time is coll's ($sim_us us)"
else
    echo "FAIL: explain coll says '$sim_us' us, coll says '$coll_us' us"
    n_fail=$((n_fail + 1))
fi

# explain_coll ALGO TOL BYTES ARGS: explain coll of BYTES with ARGS runs
# ALGO; it prints a non-zero bandwidth (the binding rate, or the loopback
# CTA's); its estimate (or closed form) is within TOL percent of the
# simulated time; its simulation reads kernel + launch = time, and that
# time is what coll reports for the same call.
explain_coll() {
    want_algo=$1 tol=$2 bytes=$3
    shift 3
    what="explain coll --bytes $bytes $*"
    if ! "$nvlsim" explain coll --bytes "$bytes" "$@" >"$tmp/ex" 2>"$tmp/err"; then
        echo "FAIL: $what: exit status $?"
        cat "$tmp/err"
        n_fail=$((n_fail + 1))
        return
    fi
    # coll takes the same options; its table keeps nccl-tests' precision,
    # its CSV explain's.
    "$nvlsim" coll -b "$bytes" -e "$bytes" "$@" --csv "$tmp/ex.csv" >/dev/null
    coll_us=$(awk -F, 'NR == 2 {printf "%.2f", $6}' "$tmp/ex.csv")
    if ! awk -v want="$want_algo" -v tol="$tol" -v coll="$coll_us" '
        /^  reported / { est = $2 }
        /^    = .* = [0-9.]+ us$/ { est = $(NF - 1) }
        /<- binds/ || /the bandwidth: one CTA/ {
            for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^GB\/s/) bw = $i
        }
        /^  kernel .* \+ launch .* = time / { k = $2; l = $(NF - 5); t = $(NF - 1) }
        /^  time / { sim = $2; algo = $10; sub(/^\(/, "", algo); sub(/,$/, "", algo) }
        END {
            off = est > 0 ? 100 * (est - sim) / sim : 1e9
            d = k + l - t
            bad = ""
            if (algo != want) bad = bad " ran " algo ", not " want ";"
            if (!(bw + 0 > 0)) bad = bad " bandwidth " bw " GB/s;"
            if (off > tol || off < -tol) bad = bad sprintf(" estimate %s us, simulated %s us (%+.1f%%);", est, sim, off)
            if (d > 0.011 || d < -0.011) bad = bad sprintf(" kernel %s + launch %s us is not time %s us;", k, l, t)
            if (sim != coll) bad = bad " simulated " sim " us, coll says " coll " us;"
            if (bad != "") { print bad; exit 1 }
            printf "%s: %s GB/s binds, estimate %s us, simulated %s us (%+.2f%%, within %s%%), kernel %s + launch %s = %s us = coll\n", algo, bw, est, sim, off, tol, k, l, t
        }' "$tmp/ex" >"$tmp/verdict"; then
        echo "FAIL: $what:$(cat "$tmp/verdict")"
        n_fail=$((n_fail + 1))
    else
        echo "ok: $what: $(cat "$tmp/verdict")"
    fi
}
explain_coll ring 1 1G --system dgx-a100
explain_coll ring 1 256M --system dgx-h100 --algo ring --collective reduce_scatter
explain_coll ring 1 1G --system dgx-h100 --collective broadcast
# The tree's fill: coll-exec paces a CTA's sends, so a slice crosses each
# hop no faster than its CTA's copy, which the fill takes whole: 3.2% over.
explain_coll tree 4 1G --system dgx-a100 --gpus 16 --algo tree
explain_coll tree 10 4M --system dgx-a100 --gpus 16
explain_coll nvls 1 1G --system dgx-h100
explain_coll direct 1 256M --system dgx-h100 --collective alltoall
explain_coll direct 1 256M --system dgx-h100 --collective sendrecv
explain_coll direct 3 256M --system dgx-h100 --collective alltoall --gpus 16
explain_coll ring 0.01 8M --system loopback-h200 --gpus 4
explain_coll ring 1 8 --system dgx-h100 --launch-mode threads
explain_coll ring 1 8 --system dgx-h100 --harness blocking --cuda-graph
# With one thread driving 8 GPUs, the host issues 8 x host_issue a call.
issue_ns=$(awk '$1 == "host_issue" {print $3}' "$top_srcdir/models/runtime/nccl.ini" | tr -d ns)
issue_us=$(awk -v ns="$issue_ns" 'BEGIN {printf "%.2f", 8 * ns / 1000}')
expect 0 out "H = 8 GPUs x host_issue $(awk -v ns="$issue_ns" 'BEGIN {printf "%.2f", ns / 1000}') us = $issue_us us" -- \
    explain coll --system dgx-h100 --bytes 8 --launch-mode threads
expect 0 out "the host paces" -- explain coll --system dgx-h100 --bytes 8 --launch-mode threads
expect 2 err "--harness: 'pytorch': expected nccl-tests or blocking" -- explain coll --harness pytorch
expect 2 err "--launch-mode: 'smp': expected mpi or threads" -- explain coll --launch-mode smp
expect 2 err "--algo: 'frob': expected" -- explain coll --algo frob
expect 2 err "NCCL cannot run all_gather with algorithm tree" -- explain coll all_gather --algo tree
expect 2 err "name the collective as the first argument or with --collective all_gather" -- \
    explain coll --op all_gather
expect 2 err "'frob': expected a collective" -- explain coll frob
expect 2 err "--collective all_gather: the argument 'broadcast' names another" -- \
    explain coll broadcast --collective all_gather
expect 0 out "all_reduce (max) of 1048576 bytes" -- explain coll -o max -b 1M
printf '[scenario]\nsystem = dgx-h100\nmodel = llama3-8b\n[layout]\ntp = 2\npp = 2\ndp = 2\n[batch]\nglobal_batch = 8\n' >"$tmp/explain.ini"
expect 0 out "## The pipeline bubble" -- explain run "$tmp/explain.ini"
# The kernel table: each pass's rows add up to the total it states (to
# the 0.05 us each row rounds), no kernel beats its peak, and what bounds
# each kind of kernel is named.
if awk '
    $1 == "forward" && $NF ~ /^(HBM|tensor|flash)$/ { fwd += $5; n++ }
    $1 == "backward" && $NF ~ /^(HBM|tensor|flash)$/ { bwd += $5; n++ }
    $NF ~ /^(tensor|flash)$/ { if ($(NF - 1) + 0 > 100) bad = 1 }
    $2 == "attn.core" && $NF != "flash" { bad = 1 }
    $2 == "ffn.down" && $NF != "tensor" { bad = 1 }
    /^  forward [0-9.]+ us, backward/ { tf = $2; tb = $5 }
    END {
        exit !(n > 20 && !bad && tf > 0 && fwd - tf < n * 0.05 && tf - fwd < n * 0.05 &&
               bwd - tb < n * 0.05 && tb - bwd < n * 0.05)
    }' "$tmp/out"; then
    echo "ok: explain run's kernel table adds up to its pass totals"
else
    echo "FAIL: explain run's kernel table:"
    sed -n '/^## Compute of one block/,/^$/p' "$tmp/out"
    n_fail=$((n_fail + 1))
fi
# FlashAttention's ceiling with its numbers filled in: H100 reproduces
# FlashAttention-3's 648 and 561 of 989 TFLOP/s; B200's exponential units
# take as long as its products (r = 1).
expect 0 out "= 65.5% of peak forward, 56.7% backward" -- explain run "$tmp/explain.ini"
expect 0 out "a clock = 1.000; 1 / (1 / eta + kappa r) = 1 / (1 / 0.824 + 0.625 x 1.000) = 54.4% of peak forward" -- \
    explain run "$tmp/explain.ini" --set system=dgx-b200
"$nvlsim" explain run "$tmp/explain.ini" >"$tmp/out"
explained=$(awk '/^  step time / {print $3; exit}' "$tmp/out" | tr -d ';')
ran=$("$nvlsim" run "$tmp/explain.ini" | awk '/^step time/ {print $3}')
if [ -n "$ran" ] && [ "$explained" = "$ran" ]; then
    echo "ok: explain run's step time is run's ($ran s)"
else
    echo "FAIL: explain run says '$explained' s, run says '$ran' s"
    n_fail=$((n_fail + 1))
fi
expect 2 err "expected coll [COLLECTIVE] [options] or run" -- explain frobnicate
expect 1 err "[layout] tp: 3 does not divide" -- explain run "$tmp/explain.ini" --set tp=3

# nvlsim compare: one row per system, the reason where it cannot run.
expect 0 out "cannot run: " -- compare "$tmp/explain.ini" --systems dgx-h100,dgx-a100 \
    --set math=fp8 --no-coll
expect 0 out "dgx-a100" -- compare "$tmp/explain.ini" --systems dgx-h100,dgx-a100 \
    -b 1M -e 4M --csv "$tmp/compare.csv" --coll-csv "$tmp/compare-coll.csv"
if [ "$(wc -l <"$tmp/compare.csv")" -eq 3 ] && [ "$(wc -l <"$tmp/compare-coll.csv")" -eq 5 ] &&
    head -n 1 "$tmp/compare.csv" | grep -q '^system,gpu,gpus,nodes,status,reason,step_time_s'; then
    echo "ok: compare --csv has a row per system, --coll-csv a row per system and size"
else
    echo "FAIL: compare CSVs:"
    cat "$tmp/compare.csv" "$tmp/compare-coll.csv"
    n_fail=$((n_fail + 1))
fi
expect 0 out "dgx-a100" -- compare "$tmp/explain.ini" --systems dgx-h100,dgx-a100 \
    -b 1M -e 4M --plot "$tmp/compare.png" --coll-plot "$tmp/compare-coll.svg"
if [ -s "$tmp/compare.csv" ] && [ -s "$tmp/compare-coll.gp" ] &&
    { ! command -v gnuplot >/dev/null ||
        { [ "$(head -c 4 "$tmp/compare.png" | od -An -c | tr -d ' ')" = '211PNG' ] &&
            grep -q '<svg' "$tmp/compare-coll.svg"; }; }; then
    echo "ok: compare --plot and --coll-plot draw (or leave the script without gnuplot)"
else
    echo "FAIL: compare --plot, --coll-plot"
    ls -la "$tmp"
    n_fail=$((n_fail + 1))
fi
expect 1 err "no system model 'dgx-z9'" -- compare "$tmp/explain.ini" --systems dgx-z9

# nvlsim calibrate gemm: a fixture made by the kernel model itself at
# ceilings 0.75 (bf16) and 0.6 (fp8) gives them back exactly; the copy row
# is not a GEMM.
expect 0 out "gemm_ceiling_fp16 = 0.750" -- calibrate gemm \
    "$top_srcdir/tests/data/bench-gpu-fixture.csv" --system dgx-h100
expect 0 out "gemm_ceiling_fp8 = 0.600" -- calibrate gemm \
    "$top_srcdir/tests/data/bench-gpu-fixture.csv" --system dgx-h100
expect 0 out "fitted on the others, MAPE 0.00%" -- calibrate gemm \
    "$top_srcdir/tests/data/bench-gpu-fixture.csv" --system dgx-h100
expect 1 err "no column kind" -- calibrate gemm \
    "$top_srcdir/tests/data/training-fixture.csv" --system dgx-h100
# nvlsim calibrate memory: the fixture's reduce rows run at 0.91, 0.89 and
# 0.90 of an H100's 3.35 TB/s; the fit is their median.
expect 0 out "hbm_efficiency = 0.900" -- calibrate memory \
    "$top_srcdir/tests/data/bench-gpu-fixture.csv" --system dgx-h100
expect 0 out "-1.10%" -- calibrate memory \
    "$top_srcdir/tests/data/bench-gpu-fixture.csv" --system dgx-h100
grep -v '^reduce,' "$top_srcdir/tests/data/bench-gpu-fixture.csv" >"$tmp/no-reduce.csv"
expect 1 err "no reduce rows" -- calibrate memory "$tmp/no-reduce.csv" --system dgx-h100

# nvlsim calibrate interference: the shipped constant is what the H200's
# measurement gives; on rows made by the model with g = 1.2 on 132 SMs
# (1.2 x 132 / 131, / 128, / 100) the fit gives 1.2 back exactly, and an
# add beside 1.0404 TB/s of copying (a quarter of the H200's streaming
# 4.1616 TB/s) 1.25.
measured="$top_srcdir/tests/data/measured/h200-2026-12-04/interfere.csv"
expect 0 out "WORK_REPLAY_GEMM_BESIDE_CTAS 1.210 (sim/work/work-replay.h)" -- \
    calibrate interference "$measured" --system dgx-h200
expect 0 out "54 held out: MAPE 6.12%" -- calibrate interference "$measured" --system dgx-h200
hdr=victim,holder,ctas,victim_us,victim_alone_us,slowdown,copy_bytes_per_s,copy_alone_bytes_per_s
printf '%s\n' "$hdr" "gemm,spin,1,0,0,1.2091603053,0,0" "gemm,spin,4,0,0,1.2375,0,0" \
    "gemm,spin,32,0,0,1.584,0,0" "add,paced,16,0,0,1.25,0,1.0404e12" >"$tmp/interfere.csv"
expect 0 out "WORK_REPLAY_GEMM_BESIDE_CTAS 1.200" -- \
    calibrate interference "$tmp/interfere.csv" --system dgx-h200
expect 0 out "3 rows fitted: MAPE 0.00%; 1 held out: MAPE 0.00%" -- \
    calibrate interference "$tmp/interfere.csv" --system dgx-h200
printf '%s\n' "$hdr" "gemm,spin,1,0,0,1.2,0,0" "memcpy,spin,1,0,0,1.2,0,0" >"$tmp/bad-victim.csv"
expect 1 err "bad-victim.csv:3: victim: expected gemm, gemm_MxNxK or add, got 'memcpy'" -- \
    calibrate interference "$tmp/bad-victim.csv" --system dgx-h200
printf '%s\n' "$hdr" "gemm,spin,132,0,0,1.2,0,0" >"$tmp/all-sms.csv"
expect 1 err "all-sms.csv:2: expected 1 to 131 CTAs" -- \
    calibrate interference "$tmp/all-sms.csv" --system dgx-h200
printf '%s\n' "$hdr" "add,paced,4,0,0,1.02,0,8e10" >"$tmp/no-spin.csv"
expect 1 err "no gemm rows beside spinning CTAs" -- \
    calibrate interference "$tmp/no-spin.csv" --system dgx-h200
expect 1 err "no column victim (expected nvlsim-bench interfere's CSV)" -- \
    calibrate interference "$top_srcdir/tests/data/bench-gpu-fixture.csv" --system dgx-h200

# Outputs that are not regular files are written where they are, never
# replaced by one: standard output for -, a device, a FIFO, a symbolic
# link (its target gets the rows); a full device is an error.
expect 0 out "size_bytes,count_elements" -- coll -b 1M -e 1M --csv -
expect 0 out "ring" -- coll -b 1M -e 1M --csv /dev/null
if [ -c /dev/null ]; then
    echo "ok: /dev/null is still a device"
else
    echo "FAIL: --csv /dev/null replaced the device"
    n_fail=$((n_fail + 1))
fi
expect 1 err "/dev/full: cannot write: No space left on device" -- coll -b 1M -e 1M --csv /dev/full
: >"$tmp/target.csv"
ln -s "$tmp/target.csv" "$tmp/link.csv"
expect 0 out "ring" -- coll -b 1M -e 1M --csv "$tmp/link.csv"
if [ -L "$tmp/link.csv" ] && grep -q '^1048576,' "$tmp/target.csv"; then
    echo "ok: a link stays a link, its target holds the rows"
else
    echo "FAIL: --csv through a symbolic link replaced it or left its target empty"
    n_fail=$((n_fail + 1))
fi
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/from-fifo" &
expect 0 out "ring" -- coll -b 1M -e 1M --csv "$tmp/fifo"
wait
if [ -p "$tmp/fifo" ] && grep -q '^1048576,' "$tmp/from-fifo"; then
    echo "ok: a FIFO stays a FIFO and carries the rows"
else
    echo "FAIL: --csv to a FIFO replaced it or sent nothing"
    n_fail=$((n_fail + 1))
fi
expect 2 err "--csv: '-': expected a file for --plot" -- coll -b 1M -e 1M --csv - --plot "$tmp/p.png"

[ "$n_fail" -eq 0 ]

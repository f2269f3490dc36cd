#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# nvlsim sweep: one CSV row per point of a small sweep (Llama 3 8B on one
# DGX node: milliseconds a point), invalid points as rows with their
# reason, the same bytes with --jobs 1 and --jobs 2; resuming after SIGKILL
# at random moments finishes the missing points only (no row lost or
# doubled, the same bytes as a clean run); damaged journal files are redone;
# bad sweep files and output folders are errors (exit 1) that leave a
# folder's results as they were; usage errors exit 2.
. "$top_srcdir/tests/cli/lib.sh"

# expect STATUS TEXT -- ARGS: runs nvlsim sweep ARGS; checks the exit status
# and that stderr (for a failure, one line, and after a usage error GNU's
# Try line) or stdout contains TEXT.
expect() {
    want=$1 text=$2
    shift 3
    "$nvlsim" sweep "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    stream=out
    [ "$want" -ne 0 ] && stream=err
    if [ "$got" -ne "$want" ]; then
        fail "nvlsim sweep $*: exit $got, expected $want"
        cat "$tmp/err"
    elif ! grep -qF -- "$text" "$tmp/$stream"; then
        fail "nvlsim sweep $*: std$stream lacks '$text':"
        cat "$tmp/$stream"
    elif [ "$want" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        fail "nvlsim sweep $*: error is not one line:"
        cat "$tmp/err"
    elif [ "$want" -eq 2 ] && { [ "$(wc -l <"$tmp/err")" -ne 2 ] ||
        [ "$(tail -n 1 "$tmp/err")" != "Try 'nvlsim sweep --help' for more information." ]; }; then
        fail "nvlsim sweep $*: a usage error is not one line and the Try line:"
        cat "$tmp/err"
    else
        ok "nvlsim sweep $* -> $got"
    fi
}

# snapshot DIR: the names and checksums of the files under DIR.
snapshot() {
    (cd "$1" && find . -type f ! -name .lock | LC_ALL=C sort | xargs cksum)
}

tiny_scenario "$tmp/tiny.ini"
# 2 x 5 x 2 x 2 = 40 points; tp 3 does not divide Llama 3 8B's 32 heads,
# so 8 points are invalid.
cat >"$tmp/sweep.ini" <<EOF
[sweep]
base = tiny.ini
[axes]
scenario.system = dgx-h100, dgx-a100
layout.tp = 1, 2, 3, 4, 8
batch.micro_batch = 1, 2
batch.global_batch = 8, 16
EOF
n=40
header="point,status,reason,scenario.system,layout.tp,batch.micro_batch,batch.global_batch"
header="$header,step_time_s,tokens_per_s,tflops_per_gpu,mfu,memory_gib,fits"
header="$header,compute_s,tp_s,pp_s,dp_s,ep_s,cp_s,idle_s,gpus,nodes,domains"

# check_results FILE WHAT: the header, then exactly points 0..n-1, once each,
# in order.
check_results() {
    if [ "$(head -n 1 "$1")" != "$header" ]; then
        fail "$2: header is '$(head -n 1 "$1")'"
    elif ! tail -n +2 "$1" | awk -F, -v n=$n '$1 != NR - 1 {exit 1} END {exit NR != n}'; then
        fail "$2: the rows are not points 0 to $((n - 1)), once each, in order:"
        cut -c 1-60 "$1"
    else
        ok "$2: $n rows, points 0 to $((n - 1)) in order"
    fi
}

expect 0 "40 points, 32 ok, 8 invalid; 40 simulated now" -- \
    "$tmp/sweep.ini" --out "$tmp/j1" --jobs 1
check_results "$tmp/j1/results.csv" "--jobs 1"
t0=$(date +%s.%N)
expect 0 "40 points, 32 ok, 8 invalid; 40 simulated now" -- \
    "$tmp/sweep.ini" --out "$tmp/j2" --jobs 2
t1=$(date +%s.%N)
if cmp -s "$tmp/j1/results.csv" "$tmp/j2/results.csv"; then
    ok "--jobs 1 and --jobs 2 write the same results.csv"
else
    fail "--jobs 1 and --jobs 2 differ:"
    diff "$tmp/j1/results.csv" "$tmp/j2/results.csv"
fi
# --refine 3: every point at the analytic tier, then the best three by
# tokens/s again at the base's fidelity (flow): refined.csv ranks them
# (tokens/s not increasing), each flow row is the plain sweep's row for
# that point, and flow over analytic is 1 to 1.03 (contention only adds).
expect 0 "the best 3 points by tokens_per_s" -- \
    "$tmp/sweep.ini" --out "$tmp/refined" --jobs 2 --refine 3
if [ "$(wc -l <"$tmp/refined/refined.csv")" -eq 4 ] &&
    awk -F, 'NR > 1 && ($4 < 1 || $4 > 1.03 || (NR > 2 && $2 > last)) {bad = 1} {last = $2}
        END {exit bad}' "$tmp/refined/refined.csv"; then
    ok "--refine 3 ranks 3 points, flow over analytic within 1..1.03"
else
    fail "refined.csv is not 3 ranked points within 3%:"
    cat "$tmp/refined/refined.csv"
fi
cut -d, -f5- "$tmp/refined/refined.csv" | tail -n +2 | while IFS= read -r row; do
    point=${row%%,*}
    if grep -qxF -- "$row" "$tmp/j1/results.csv"; then
        ok "refined point $point is the flow sweep's row"
    else
        fail "refined point $point differs from the flow sweep's row: $row"
    fi
done
expect 0 "the best 1 points by step_time_s" -- \
    "$tmp/sweep.ini" --out "$tmp/refined" --refine 1 --rank-by step_time_s
expect 2 "--rank-by: 'bogus': expected a result column" -- \
    "$tmp/sweep.ini" --out "$tmp/x" --refine 1 --rank-by bogus
expect 2 "--rank-by ranks the points --refine confirms" -- \
    "$tmp/sweep.ini" --out "$tmp/x" --rank-by mfu
expect 2 "--refine: '0': expected a number of points from 1" -- \
    "$tmp/sweep.ini" --out "$tmp/x" --refine 0
# --plot: a heat map of the results (a resumed, finished sweep simulates
# nothing and draws); without gnuplot the script is still written.
expect 0 "0 simulated now" -- "$tmp/sweep.ini" --out "$tmp/j1" --plot "$tmp/heat.png"
if [ -s "$tmp/heat.gp" ] && { ! command -v gnuplot >/dev/null ||
    [ "$(head -c 4 "$tmp/heat.png" | od -An -c | tr -d ' ')" = '211PNG' ]; }; then
    ok "--plot draws the sweep as a heat map"
else
    fail "--plot: no heat map"
fi
expect 2 "--plot" -- "$tmp/sweep.ini" --out "$tmp/j1" --plot "$tmp/heat.gif"
row=$(grep '^8,' "$tmp/j1/results.csv")
want='8,invalid,tiny.ini: [layout] tp: 3 does not divide the 32 heads of Llama 3 8B,dgx-h100,3,1,8'
if [ "$row" = "$want,,,,,,,,,,,,,,,," ]; then
    ok "an invalid point is a row with its reason and empty results"
else
    fail "point 8: '$row'"
fi
row=$(grep '^0,' "$tmp/j1/results.csv")
case $row in
0,ok,,dgx-h100,1,1,8,[0-9]*,1,1) ok "a valid point has its results, gpus and nodes: $row" ;;
*) fail "point 0: '$row'" ;;
esac

# A finished sweep rerun simulates nothing and writes the same bytes.
expect 0 "40 points, 32 ok, 8 invalid; 0 simulated now" -- \
    "$tmp/sweep.ini" --out "$tmp/j1" --jobs 2
if cmp -s "$tmp/j1/results.csv" "$tmp/j2/results.csv"; then
    ok "a rerun of a finished sweep writes the same results.csv"
else
    fail "a rerun of a finished sweep changed results.csv"
fi

# SIGKILL at random moments of a clean run's duration until the sweep gets
# to finish (at most 20 times), then a rerun: every point once, the same
# bytes as a clean run.
k=0 n_killed=0
while [ $k -lt 20 ] && [ ! -e "$tmp/killed/results.csv" ]; do
    k=$((k + 1))
    delay=$(awk -v p=$$ -v k=$k -v t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') \
        'BEGIN { srand(); srand(srand() + 7 * p + 13 * k);
        printf "%.3f", t * (0.02 + 0.25 * rand()) }')
    "$nvlsim" sweep "$tmp/sweep.ini" --out "$tmp/killed" --jobs 2 >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    n_rows=$(find "$tmp/killed/points" -name '[0-9]*.csv' 2>/dev/null | wc -l)
    [ -e "$tmp/killed/results.csv" ] || n_killed=$((n_killed + 1))
    echo "# run $k killed after $delay s: $n_rows points journaled"
done
if [ $n_killed -ge 2 ]; then
    ok "$n_killed runs killed before the end"
else
    fail "only $n_killed runs were killed before the end"
fi
expect 0 "40 points, 32 ok, 8 invalid" -- "$tmp/sweep.ini" --out "$tmp/killed" --jobs 2
echo "# $(cat "$tmp/out")"
check_results "$tmp/killed/results.csv" "resumed after SIGKILLs"
if cmp -s "$tmp/killed/results.csv" "$tmp/j1/results.csv"; then
    ok "the resumed sweep's results.csv equals a clean run's"
else
    fail "the resumed sweep's results.csv differs from a clean run's:"
    diff "$tmp/killed/results.csv" "$tmp/j1/results.csv"
fi

# A journal file cut short (no final newline) and a killed writer's
# temporary: both points are simulated again, the temporary removed.
cp -r "$tmp/j1" "$tmp/damaged"
head -c 20 "$tmp/j1/points/000005.csv" >"$tmp/damaged/points/000005.csv"
mv "$tmp/damaged/points/000006.csv" "$tmp/damaged/points/.000006.csv.Xy12Ab"
head -c 30 "$tmp/j1/points/000006.csv" >"$tmp/damaged/points/.000006.csv.Xy12Ab"
expect 0 "40 points, 32 ok, 8 invalid; 2 simulated now" -- \
    "$tmp/sweep.ini" --out "$tmp/damaged" --jobs 2
if cmp -s "$tmp/damaged/results.csv" "$tmp/j1/results.csv" &&
    [ -z "$(find "$tmp/damaged/points" -name '.*')" ]; then
    ok "damaged journal files are simulated again; temporaries are removed"
else
    fail "after damaged journal files: results differ or temporaries remain"
fi

# Bad sweep files: exit 1, a message naming file and key, and the folder
# of a finished sweep left as it was.
before=$(snapshot "$tmp/j1")
sweep_file() { # sweep_file NAME TEXT: writes $tmp/NAME.ini
    printf '%b' "$2" >"$tmp/$1.ini"
}
sweep_file unknown '[sweep]\nbase = tiny.ini\n[axes]\nlayout.tpp = 1, 2\n'
sweep_file empty '[sweep]\nbase = tiny.ini\n[axes]\nlayout.tp = 1, 2\nbatch.micro_batch =\n'
sweep_file blank '[sweep]\nbase = tiny.ini\n[axes]\nlayout.tp = 1, , 2\n'
sweep_file twice '[sweep]\nbase = tiny.ini\n[axes]\nlayout.tp = 1, 2, 1\n'
sweep_file bare '[sweep]\nbase = tiny.ini\n[axes]\ntp = 1, 2\n'
sweep_file noaxes '[sweep]\nbase = tiny.ini\n[axes]\n'
sweep_file nobase '[sweep]\nbase = missing.ini\n[axes]\nlayout.tp = 1\n'
sweep_file group '[sweep]\nbase = tiny.ini\n[axis]\nlayout.tp = 1\n'
printf '[scenario]\nsystem = dgx-h100\nmodel = llama3-8b\n[layout]\ntpp = 2\n' >"$tmp/typo-base.ini"
sweep_file typo '[sweep]\nbase = typo-base.ini\n[axes]\nlayout.tp = 1\n'
expect 1 "unknown.ini: [axes] layout.tpp: unknown scenario key" -- \
    "$tmp/unknown.ini" --out "$tmp/j1"
expect 1 "empty.ini: [axes] batch.micro_batch: no values" -- "$tmp/empty.ini" --out "$tmp/j1"
expect 1 "blank.ini: [axes] layout.tp: value 2 of 3 is empty" -- "$tmp/blank.ini" --out "$tmp/j1"
expect 1 "twice.ini: [axes] layout.tp: value '1' is given twice" -- \
    "$tmp/twice.ini" --out "$tmp/j1"
expect 1 "bare.ini: [axes] tp: expected group.key" -- "$tmp/bare.ini" --out "$tmp/j1"
expect 1 "noaxes.ini: [axes]: no axes" -- "$tmp/noaxes.ini" --out "$tmp/j1"
expect 1 "nobase.ini: [sweep] base: " -- "$tmp/nobase.ini" --out "$tmp/j1"
expect 1 "group.ini: [axis]: unknown group" -- "$tmp/group.ini" --out "$tmp/j1"
expect 1 "typo.ini: [sweep] base: typo-base.ini: [layout] tpp: unknown scenario key" -- \
    "$tmp/typo.ini" --out "$tmp/j1"
expect 1 "missing.ini" -- "$tmp/missing.ini" --out "$tmp/j1"

# Resuming with another base (same file name, other text) or other axes:
# exit 1 naming the folder's sweep.ini, the results untouched.
mkdir "$tmp/other"
sed 's/global_batch = 8/global_batch = 16/' "$tmp/tiny.ini" >"$tmp/other/tiny.ini"
cp "$tmp/sweep.ini" "$tmp/other/sweep.ini"
expect 1 "j1/sweep.ini: the folder holds a sweep of another base scenario" -- \
    "$tmp/other/sweep.ini" --out "$tmp/j1"
sed 's/layout.tp = 1, 2, 3, 4, 8/layout.tp = 1, 2, 4, 8/' "$tmp/sweep.ini" >"$tmp/axes.ini"
expect 1 "j1/sweep.ini: the folder holds another sweep ('layout.tp = 1, 2, 3, 4, 8' there" -- \
    "$tmp/axes.ini" --out "$tmp/j1"
if [ "$(snapshot "$tmp/j1")" = "$before" ]; then
    ok "errors left the finished sweep's folder as it was"
else
    fail "an error changed the finished sweep's folder"
fi

# Output folders that cannot be written or hold something else.
: >"$tmp/file"
mkdir "$tmp/busy" && : >"$tmp/busy/notes.txt"
expect 1 "/proc/nvlsim-sweep: cannot create the folder" -- \
    "$tmp/sweep.ini" --out /proc/nvlsim-sweep
expect 1 "file/out: cannot create the folder" -- "$tmp/sweep.ini" --out "$tmp/file/out"
expect 1 "file: not a folder" -- "$tmp/sweep.ini" --out "$tmp/file"
expect 1 "busy: the folder holds notes.txt but no sweep.ini" -- \
    "$tmp/sweep.ini" --out "$tmp/busy"
if [ "$(ls "$tmp/busy")" = notes.txt ]; then
    ok "a folder holding other files is left as it was"
else
    fail "the folder holding other files changed: $(ls -A "$tmp/busy")"
fi

# Usage errors.
expect 2 "--out DIR is required" -- "$tmp/sweep.ini"
expect 2 "expected one SWEEP.ini, got 0 arguments" -- --out "$tmp/x"
expect 2 "--jobs: " -- "$tmp/sweep.ini" --out "$tmp/x" --jobs 0
expect 2 "Unknown option --frob" -- "$tmp/sweep.ini" --frob
[ -e "$tmp/x" ] && fail "a usage error created the output folder"

[ "$n_fail" -eq 0 ]

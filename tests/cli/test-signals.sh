#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Interrupts and children. SIGINT or SIGTERM while nvlsim writes an output
# (coll --csv, a sweep's journal) removes its temporary (.NAME.XXXXXX),
# leaves what was there before intact (a previous x.csv, the points a sweep
# has journaled) and ends nvlsim by the signal (exit 130, 143); a sweep so
# interrupted resumes to the same rows as one never interrupted. gnuplot
# runs with a timeout (NVLSIM_GNUPLOT_TIMEOUT, here 1 s): a fake gnuplot
# that never ends is killed with what it started, one that fails is
# reported; either way exit 1, one line naming the plot and the CSV, and
# the CSV stays. An interrupt while gnuplot runs stops it too.
. "$top_srcdir/tests/cli/lib.sh"
# Job control: a background job of a shell without it ignores SIGINT.
set -m

# temporaries DIR: the names under DIR that start with '.' (but .lock, a
# sweep folder's lock), one a line.
temporaries() {
    find "$1" -name '.*' ! -name .lock ! -path "$1" | sed "s|^$1/||"
}

# gone PID: true once process PID has ended (a zombie counts as ended:
# its parent, killed too, may not be reaped at once), waiting up to 30 s
# (a sanitized build on a busy machine may take seconds to act on a
# signal).
gone() {
    i=0
    while [ $i -lt 300 ]; do
        kill -0 "$1" 2>/dev/null || return 0
        [ -r "/proc/$1/stat" ] && [ "$(sed 's/^.*) //' "/proc/$1/stat" | cut -c 1)" = Z ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# wait_for PID PATTERN DIR: waits (up to 60 s) until a file matching
# PATTERN is in DIR, or the process has ended; true when the file came.
wait_for() {
    i=0
    while [ $i -lt 600 ]; do
        [ -n "$(find "$3" -name "$2" 2>/dev/null | head -n 1)" ] && return 0
        kill -0 "$1" 2>/dev/null || return 1
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# interrupt SIG WANT DIR WHAT: starts coll, long enough to interrupt, with
# --csv DIR/x.csv; sends SIG once its temporary is there; checks the exit
# status (WANT) and that no temporary is left.
interrupt() {
    sig=$1 want=$2 dir=$3 what=$4
    "$nvlsim" coll --system dgx-h100 --gpus 64 -b 1G -e 8G --csv "$dir/x.csv" \
        >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    if ! wait_for "$pid" '.x.csv.*' "$dir"; then
        fail "$what: no temporary .x.csv.* appeared while coll ran"
        wait "$pid"
        return 1
    fi
    kill -"$sig" "$pid"
    wait "$pid"
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$what: exit $got, expected $want (128 + SIG$sig): $(cat "$tmp/err")"
    elif [ -n "$(temporaries "$dir")" ]; then
        fail "$what: temporaries left: $(temporaries "$dir" | tr '\n' ' ')"
    else
        return 0
    fi
    return 1
}

mkdir "$tmp/int" "$tmp/term" "$tmp/kept"
if interrupt INT 130 "$tmp/int" "coll --csv, SIGINT" && [ ! -e "$tmp/int/x.csv" ]; then
    ok "coll --csv x.csv, SIGINT: exit 130, no x.csv, no temporary"
elif [ -e "$tmp/int/x.csv" ]; then
    fail "coll --csv x.csv, SIGINT: x.csv appeared"
fi
if interrupt TERM 143 "$tmp/term" "coll --csv, SIGTERM" && [ ! -e "$tmp/term/x.csv" ]; then
    ok "coll --csv x.csv, SIGTERM: exit 143, no x.csv, no temporary"
elif [ -e "$tmp/term/x.csv" ]; then
    fail "coll --csv x.csv, SIGTERM: x.csv appeared"
fi

# A complete x.csv from an earlier run stays as it was.
"$nvlsim" coll -b 1K -e 64K --csv "$tmp/kept/x.csv" >/dev/null
before=$(cksum <"$tmp/kept/x.csv")
for sig in INT:130 TERM:143; do
    if interrupt "${sig%:*}" "${sig#*:}" "$tmp/kept" "coll --csv over an earlier x.csv, SIG${sig%:*}" &&
        [ "$(cksum <"$tmp/kept/x.csv")" = "$before" ] && [ "$(ls -A "$tmp/kept")" = x.csv ]; then
        ok "coll --csv over an earlier x.csv, SIG${sig%:*}: that x.csv intact, no temporary"
    elif [ "$(cksum <"$tmp/kept/x.csv")" != "$before" ]; then
        fail "coll --csv, SIG${sig%:*}: the earlier x.csv changed"
    fi
done

# A sweep interrupted (SIGINT, then SIGTERM) once it has journaled points,
# then resumed: the same results.csv as a sweep never interrupted.
cat >"$tmp/base.ini" <<'EOF'
[scenario]
name = base
system = dgx-h100
model = llama3-8b
[layout]
tp = 8
[batch]
global_batch = 64
EOF
cat >"$tmp/sweep.ini" <<'EOF'
[sweep]
base = base.ini
[axes]
layout.tp = 1, 2, 4, 8
batch.global_batch = 128, 256
batch.micro_batch = 1, 2
EOF
if ! "$nvlsim" sweep "$tmp/sweep.ini" --out "$tmp/clean" --jobs 2 >"$tmp/out" 2>"$tmp/err"; then
    fail "the uninterrupted sweep: $(cat "$tmp/err")"
fi
n_interrupted=0
for sig in INT:130 TERM:143; do
    "$nvlsim" sweep "$tmp/sweep.ini" --out "$tmp/swept" --jobs 2 >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    # Past the points journaled by the run before: two more.
    n0=$(find "$tmp/swept/points" -name '0*.csv' 2>/dev/null | wc -l)
    i=0
    while [ $i -lt 600 ] && kill -0 "$pid" 2>/dev/null &&
        [ "$(find "$tmp/swept/points" -name '0*.csv' 2>/dev/null | wc -l)" -lt $((n0 + 2)) ]; do
        sleep 0.05
        i=$((i + 1))
    done
    kill -"${sig%:*}" "$pid" 2>/dev/null
    wait "$pid"
    got=$?
    if [ "$got" -eq 0 ] && [ -e "$tmp/swept/results.csv" ]; then
        echo "# the sweep ended before SIG${sig%:*}"
    elif [ "$got" -ne "${sig#*:}" ]; then
        fail "sweep, SIG${sig%:*}: exit $got, expected ${sig#*:}: $(cat "$tmp/err")"
    elif [ -n "$(temporaries "$tmp/swept")" ] || [ -e "$tmp/swept/results.csv" ]; then
        fail "sweep, SIG${sig%:*}: left $(temporaries "$tmp/swept" | tr '\n' ' ')$(ls "$tmp/swept")"
    else
        n_interrupted=$((n_interrupted + 1))
        ok "sweep, SIG${sig%:*}: exit $got with $(find "$tmp/swept/points" -name '0*.csv' | wc -l) of 16 points journaled, no temporary"
    fi
done
[ $n_interrupted -ge 1 ] || fail "the sweep was never interrupted before it ended"
if "$nvlsim" sweep "$tmp/sweep.ini" --out "$tmp/swept" --jobs 2 >"$tmp/out" 2>"$tmp/err" &&
    cmp -s "$tmp/swept/results.csv" "$tmp/clean/results.csv"; then
    ok "the interrupted sweep resumed: the same results.csv as an uninterrupted one ($(cat "$tmp/out"))"
else
    fail "the resumed sweep differs from an uninterrupted one: $(cat "$tmp/err")"
    diff "$tmp/swept/results.csv" "$tmp/clean/results.csv" | head -n 5
fi

# gnuplot: fake ones first on PATH. One that never ends (it records the
# pid of what it started), one that fails.
mkdir "$tmp/bin-hang" "$tmp/bin-fail"
cat >"$tmp/bin-hang/gnuplot" <<EOF
#!/bin/sh
sleep 1000 &
echo \$! >"$tmp/sleep.pid"
wait
EOF
printf '#!/bin/sh\necho "gnuplot: cannot open the terminal" >&2\nexit 1\n' >"$tmp/bin-fail/gnuplot"
chmod +x "$tmp/bin-hang/gnuplot" "$tmp/bin-fail/gnuplot"

# plot_case WHAT BIN TEXT: coll --plot DIR/x.png with BIN's gnuplot and a
# 1 s timeout: exit 1, stderr one line with TEXT and the kept CSV, x.csv
# whole (its header and the rows), no image and no temporary.
plot_case() {
    what=$1 bin=$2 text=$3 dir="$tmp/plot-$1"
    mkdir "$dir"
    start=$(date +%s)
    NVLSIM_GNUPLOT_TIMEOUT=1 PATH="$bin:$PATH" "$nvlsim" coll -b 1K -e 64K --plot "$dir/x.png" \
        >"$tmp/out" 2>"$tmp/err"
    got=$?
    took=$(($(date +%s) - start))
    line="nvlsim coll: plot $dir/x.png: gnuplot $dir/x.gp $text; the CSV $dir/x.csv is kept"
    if [ "$got" -ne 1 ]; then
        fail "$what: exit $got, expected 1: $(cat "$tmp/err")"
    elif [ "$(cat "$tmp/err")" != "$line" ]; then
        fail "$what: stderr is not '$line': $(cat "$tmp/err")"
    elif [ "$(ls -A "$dir" | tr '\n' ' ')" != "x.csv x.gp " ]; then
        fail "$what: the folder holds $(ls -A "$dir" | tr '\n' ' ')"
    elif [ "$(head -n 1 "$dir/x.csv" | cut -d, -f1)" != size_bytes ] ||
        [ "$(wc -l <"$dir/x.csv")" -ne 8 ]; then
        fail "$what: x.csv is not whole: $(wc -l <"$dir/x.csv") lines"
    elif [ "$took" -gt 20 ]; then
        fail "$what: took $took s with a timeout of 1 s"
    else
        ok "$what: exit 1 in $took s, '$(cat "$tmp/err")', x.csv kept"
    fi
}
plot_case hang "$tmp/bin-hang" \
    "gave no plot within 1 s and was stopped (NVLSIM_GNUPLOT_TIMEOUT sets the limit in seconds)"
if [ -s "$tmp/sleep.pid" ] && gone "$(cat "$tmp/sleep.pid")"; then
    ok "what the hanging gnuplot started was killed with it"
else
    fail "the hanging gnuplot's child is still running"
    kill "$(cat "$tmp/sleep.pid")" 2>/dev/null
fi
plot_case fail "$tmp/bin-fail" "failed (status 1): gnuplot: cannot open the terminal"

# A timeout that is not a number of seconds: exit 1, the variable named.
mkdir "$tmp/plot-bad"
NVLSIM_GNUPLOT_TIMEOUT=soon PATH="$tmp/bin-fail:$PATH" "$nvlsim" coll -b 1K -e 1K \
    --plot "$tmp/plot-bad/x.png" >"$tmp/out" 2>"$tmp/err"
got=$?
if [ "$got" -eq 1 ] && grep -q "NVLSIM_GNUPLOT_TIMEOUT: 'soon' is not a number of seconds" "$tmp/err" &&
    [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
    ok "NVLSIM_GNUPLOT_TIMEOUT=soon: exit 1, one line naming it"
else
    fail "NVLSIM_GNUPLOT_TIMEOUT=soon: exit $got: $(cat "$tmp/err")"
fi

# SIGINT while gnuplot runs (no timeout): exit 130, gnuplot and its child
# stopped, the image's temporary removed, the CSV (finished) kept.
mkdir "$tmp/plot-int"
rm -f "$tmp/sleep.pid"
NVLSIM_GNUPLOT_TIMEOUT=0 PATH="$tmp/bin-hang:$PATH" "$nvlsim" coll -b 1K -e 64K \
    --plot "$tmp/plot-int/x.png" >"$tmp/out" 2>"$tmp/err" &
pid=$!
i=0
while [ $i -lt 600 ] && [ ! -s "$tmp/sleep.pid" ]; do
    sleep 0.05
    i=$((i + 1))
done
kill -INT "$pid"
wait "$pid"
got=$?
if [ "$got" -eq 130 ] && [ "$(ls -A "$tmp/plot-int" | tr '\n' ' ')" = "x.csv x.gp " ] &&
    [ -s "$tmp/sleep.pid" ] && gone "$(cat "$tmp/sleep.pid")"; then
    ok "SIGINT while gnuplot runs: exit 130, gnuplot stopped, x.csv and x.gp kept, no temporary"
else
    fail "SIGINT while gnuplot runs: exit $got, folder $(ls -A "$tmp/plot-int" | tr '\n' ' ')"
    [ -s "$tmp/sleep.pid" ] && kill "$(cat "$tmp/sleep.pid")" 2>/dev/null
fi

[ "$n_fail" -eq 0 ] || echo "$n_fail failed"
[ "$n_fail" -eq 0 ]

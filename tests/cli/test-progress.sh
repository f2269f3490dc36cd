#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Progress and rows as they finish. validate and sweep draw done/total, the
# rate and an ETA on stderr when it is a terminal (script(1), util-linux,
# gives them one; those checks are skipped without it), one line rewritten
# with carriage returns and erased at the end, never on stdout; nothing at
# all when stderr is a file. validate's rows reach a pipe as each is
# replayed: the first is read from a FIFO while the command still runs,
# and after a SIGTERM every row that came is whole.
. "$top_srcdir/tests/cli/lib.sh"
suite="$top_srcdir/data/measurements/collectives.csv"

# The checks that need a rate and an ETA drawn (a quarter second passed
# and 8 done, before the end) take inputs of several seconds here, over a
# second on a machine 3x faster: every other row of the shipped suite and a 32-point sweep of larger batches. Rows of the shipped suite:
# every 30th (43 rows) and every 100th (13 rows, under 4 KiB of output: a
# block-buffered stdout would hold them all until the end).
(head -n 1 "$suite" && awk 'NR > 1 && NR % 2 == 0' "$suite") >"$tmp/half.csv"
n_half=$(($(wc -l <"$tmp/half.csv") - 1))
(head -n 1 "$suite" && awk 'NR > 1 && NR % 30 == 0' "$suite") >"$tmp/rows43.csv"
(head -n 1 "$suite" && awk 'NR > 1 && NR % 100 == 0' "$suite") >"$tmp/rows13.csv"
tiny_scenario "$tmp/tiny.ini"
cat >"$tmp/sweep.ini" <<'EOF'
[sweep]
base = tiny.ini
[axes]
scenario.system = dgx-h100, dgx-a100
layout.tp = 1, 2, 4, 8
batch.micro_batch = 1, 2
batch.global_batch = 8, 16
EOF
sed 's/^batch.global_batch = .*/batch.global_batch = 128, 256/' "$tmp/sweep.ini" >"$tmp/sweep-slow.ini"

# on_tty LOG COMMAND: runs the shell command on a pseudo-terminal (stdin,
# stdout and stderr), what it writes in LOG.
have_script=no
if command -v script >/dev/null 2>&1 && script -qc true /dev/null </dev/null >/dev/null 2>&1; then
    have_script=yes
fi
on_tty() {
    script -qc "$2" "$1" </dev/null >/dev/null 2>&1
}
# lines FILE: FILE with carriage returns as line breaks.
lines() { tr '\r' '\n' <"$1"; }

if [ "$have_script" = yes ]; then
    # validate -q on a terminal: the progress line, then the summary after
    # it was erased (a line of blanks).
    on_tty "$tmp/v.log" "'$nvlsim' validate -q '$tmp/half.csv'"
    if lines "$tmp/v.log" | grep -q "^[0-9]*/$n_half rows\$" &&
        lines "$tmp/v.log" | grep -q "^[0-9]*/$n_half rows, [0-9.]* rows/s, ETA [0-9hms]*\$" &&
        lines "$tmp/v.log" | grep -B 1 '^# MAPE per system' | head -n 1 | grep -q '^ *$' &&
        ! lines "$tmp/v.log" | sed -n '/^# MAPE per system/,$p' | grep -q 'rows/s'; then
        ok "validate on a terminal: done/total, rate and ETA, erased before the summary"
    else
        fail "validate on a terminal: $(lines "$tmp/v.log" | head -n 5)"
    fi
    # Rows down a pipe, progress on the terminal: the pipe gets rows alone.
    on_tty "$tmp/vp.log" "'$nvlsim' validate '$tmp/rows13.csv' | cat >'$tmp/vp.out'"
    if lines "$tmp/vp.log" | grep -q '/13 rows' && ! grep -q "$(printf '\r')" "$tmp/vp.out" &&
        ! grep -q 'rows/s' "$tmp/vp.out" && grep -q '^MAPE: ' "$tmp/vp.out"; then
        ok "validate | cat on a terminal: progress on the terminal, rows alone down the pipe"
    else
        fail "validate | cat: $(head -c 300 "$tmp/vp.out")"
    fi
    # stderr a file, stdout the terminal: no progress anywhere.
    on_tty "$tmp/ve.log" "'$nvlsim' validate -q '$tmp/rows43.csv' 2>'$tmp/ve.err'"
    if [ ! -s "$tmp/ve.err" ] && ! grep -q 'rows/s\|/43 rows' "$tmp/ve.log" &&
        grep -q '^MAPE: ' "$tmp/ve.log"; then
        ok "validate with stderr to a file on a terminal: no progress"
    else
        fail "validate 2>file: stderr '$(cat "$tmp/ve.err")'"
    fi
    # sweep on a terminal: points done of 32, rate, ETA, erased before the
    # summary line.
    on_tty "$tmp/s.log" "'$nvlsim' sweep '$tmp/sweep-slow.ini' --out '$tmp/s' --jobs 1"
    if lines "$tmp/s.log" | grep -q '^[0-9]*/32 points, [0-9.]* points/s, ETA [0-9hms]*$' &&
        lines "$tmp/s.log" | grep 'results.csv: 32 points' | grep -vq 'points/s,' &&
        lines "$tmp/s.log" | grep -B 1 'results.csv: 32 points' | head -n 1 | grep -q '^ *$'; then
        ok "sweep on a terminal: done/total, rate and ETA, erased before the summary"
    else
        fail "sweep on a terminal: $(lines "$tmp/s.log" | tail -n 5)"
    fi
else
    echo "skip: script (util-linux) not found: no progress line checked on a terminal"
fi

# stderr a file: nothing but what the command says without progress.
if "$nvlsim" validate -q "$tmp/rows43.csv" >"$tmp/q.out" 2>"$tmp/q.err" && [ ! -s "$tmp/q.err" ] &&
    "$nvlsim" sweep "$tmp/sweep.ini" --out "$tmp/s2" >"$tmp/s2.out" 2>"$tmp/s2.err" &&
    [ ! -s "$tmp/s2.err" ] && ! grep -q "$(printf '\r')" "$tmp/q.out" "$tmp/s2.out"; then
    ok "validate and sweep with stderr to a file: no progress, no carriage return"
else
    fail "stderr to a file: '$(cat "$tmp/q.err" "$tmp/s2.err")'"
fi

# A FIFO: the header and the first row arrive while validate of the whole
# suite (seconds) still runs,
# which the SIGTERM sent then proves by ending it (status 143: a
# block-buffered stdout sends nothing before the end, and the end is
# status 0); every line that came is whole (ends in a line break).
mkfifo "$tmp/fifo"
(
    "$nvlsim" validate "$suite" >"$tmp/fifo" 2>"$tmp/fifo.err" &
    echo $! >"$tmp/fifo.pid"
    wait $!
    echo $? >"$tmp/fifo.status"
) &
exec 3<"$tmp/fifo"
IFS= read -r header <&3
IFS= read -r first <&3
kill -TERM "$(cat "$tmp/fifo.pid")" 2>/dev/null
cat <&3 >"$tmp/fifo.rest"
exec 3<&-
wait
status=$(cat "$tmp/fifo.status")
if [ "$status" -eq 143 ] && [ "${header#* line system}" != "$header" ] &&
    echo "$first" | awk '$1 !~ /^[0-9]+$/ { exit 1 }' &&
    { [ ! -s "$tmp/fifo.rest" ] || [ "$(tail -c 1 "$tmp/fifo.rest" | od -An -c | tr -d ' ')" = '\n' ]; }; then
    ok "validate > FIFO: the first row read while it ran (SIGTERM then ended it): rows whole"
else
    fail "validate > FIFO: status $status, header '$header', first '$first', rest $(wc -c <"$tmp/fifo.rest") bytes"
fi

[ "$n_fail" -eq 0 ] || echo "$n_fail failed"
[ "$n_fail" -eq 0 ]

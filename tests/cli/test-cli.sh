#!/bin/sh
# The nvlsim command line: help and version, exit statuses (0 ok, 2 usage),
# one-line errors naming what was wrong, and bench-core's output being
# reproducible in everything but the wall-clock columns.
set -u
# GLib translates its own messages; the checks below read the English ones.
LC_ALL=C
export LC_ALL
nvlsim="$top_builddir/nvlsim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n_fail=0

# expect STATUS STREAM TEXT -- ARGS: runs nvlsim ARGS, checks the exit status
# and that STREAM (out or err) contains TEXT; errors must be one line.
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
    elif [ "$want" -eq 2 ] && [ "$stream" = err ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        echo "FAIL: $what: error is not one line:"
        cat "$tmp/err"
        n_fail=$((n_fail + 1))
    else
        echo "ok: $what -> $got"
    fi
}

expect 0 out "nvlsim 0." -- --version
expect 0 out "bench-core" -- --help
expect 0 out "bench-core" -- help
expect 0 out "--pending" -- help bench-core
expect 0 out "--pending" -- bench-core --help
expect 2 err "Usage:" --
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
expect 0 out "h100-sxm5 " -- list gpus
expect 0 out "nvlink4 " -- list links
expect 0 out "nvswitch3 " -- list switches
expect 0 out "cx7-ndr " -- list nics
expect 0 out "list" -- --help
expect 0 out "KIND is one of" -- help list
expect 2 err "unknown kind 'nonsense'; expected one of: systems, gpus" -- list nonsense
expect 2 err "no kind given" -- list
expect 2 err "more than one kind given" -- list gpus nics
for kind in systems gpus links switches nics; do
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
unset NVLSIM_MODELS

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

[ "$n_fail" -eq 0 ]

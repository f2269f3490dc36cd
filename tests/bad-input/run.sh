#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Bad input: malformed files of every format nvlsim reads (hardware and LLM
# models, scenarios, sweeps, traces, measurement CSVs), each case a line of
# the table `cases` beside this script:
#
#   STATUS | STDERR TEXT | MODELS | NVLSIM ARGUMENTS
#
# For each case nvlsim runs (under timeout 20, stdin closed) in an empty
# scratch folder $T that holds a folder dir/, an empty folder out/ and a
# regular file file; the case passes when the exit status is STATUS (never a
# signal, never a timeout), stderr is one line of at most 2048 bytes,
# "nvlsim COMMAND: ...", containing STDERR TEXT (so no sanitizer report),
# followed for a usage error (2) by GNU's "Try 'nvlsim COMMAND --help' for
# more information." and nothing else,
# and no file appeared or vanished under $T, the inputs or the models (no
# partial output, no temporary left behind). ARGUMENTS are shell words
# (eval'd) and may name $IN (the inputs/ folder), $GEN (inputs generated at
# test time: 10-MB lines) and $T. MODELS is "-" for the shipped models,
# "FILE=SOURCE" to run on a copy of models/ with FILE replaced by SOURCE
# (relative to $IN, or $GEN/...), or by an empty folder when SOURCE is @dir,
# or "NVLSIM_MODELS=VALUE" to run with that search path (VALUE may name $T),
# or "NVLSIM_MEMORY_LIMIT=SIZE" to run with that memory limit.
#
# Run by make check; by hand: top_srcdir=. top_builddir=BUILD sh tests/bad-input/run.sh
set -u
LC_ALL=C
export LC_ALL
nvlsim="$top_builddir/nvlsim"
here="$top_srcdir/tests/bad-input"
IN="$here/inputs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n_fail=0 n_case=0

# Inputs too large to commit: single lines of 10 MB in each text format.
GEN="$tmp/gen"
mkdir "$GEN"
big() { # big: 10 MiB of 'x' on stdout, no newline
    head -c 10485760 /dev/zero | tr '\0' x
}
{ printf '[scenario]\nsystem = dgx-h100\nmodel = llama3-8b\n'; big; printf '\n'; } >"$GEN/long-line.ini"
{ printf '[gpu]\nname = '; big; printf '\nsms = '; big; printf '\n'; } >"$GEN/long-gpu.ini"
{ printf '[sweep]\nbase = builtin\n[axes]\nlayout.tp = '; big; printf '\n'; } >"$GEN/long-sweep.ini"
{
    head -n 1 "$IN/trace/good.csv"
    big | tr x 1
    printf ',0,compute,compute,,,,,,1.0,,,1,0,x\n'
} >"$GEN/long-trace.csv"
{ printf 'system,nvlsim_system,'; big; printf '\n'; } >"$GEN/long-header.csv"

# snapshot: every path under the scratch folder, the inputs and the models.
snapshot() {
    find "$tmp" "$IN" -path "$tmp/std*" -prune -o -print | LC_ALL=C sort
}

# models SPEC: a models/ copy under $tmp/models with SPEC's file replaced.
models() {
    rm -rf "$tmp/models"
    cp -R "$top_srcdir/models" "$tmp/models"
    file=${1%%=*} source=$(eval "echo \"${1#*=}\"")
    rm -f "$tmp/models/$file"
    case $source in
    @dir) mkdir "$tmp/models/$file" ;;
    /*) cp "$source" "$tmp/models/$file" ;;
    *) cp "$IN/$source" "$tmp/models/$file" ;;
    esac
}

fail() {
    echo "FAIL: $what: $*"
    sed 's/^/    /' "$tmp/stderr" | head -c 600
    n_fail=$((n_fail + 1))
}

check() { # check WANT TEXT: the last run's status and stderr
    lines=1 try="Try 'nvlsim $(cat "$tmp/std-command") --help' for more information."
    [ "$1" -eq 2 ] && lines=2
    if [ "$got" -eq 124 ]; then
        fail "no answer within 20 s (a hang?)"
    elif [ "$got" -ge 125 ]; then
        fail "killed by signal $((got - 128)) (exit $got)"
    elif grep -qE 'Sanitizer|runtime error:' "$tmp/stderr"; then
        fail "sanitizer report"
    elif [ "$got" -ne "$1" ]; then
        fail "exit $got, expected $1"
    elif [ "$(wc -l <"$tmp/stderr")" -ne "$lines" ] ||
        [ "$(head -n 1 "$tmp/stderr" | wc -c)" -gt 2048 ]; then
        fail "stderr is not $lines line(s), the first of at most 2048 bytes ($(wc -l <"$tmp/stderr") lines)"
    elif [ "$1" -eq 2 ] && [ "$(tail -n 1 "$tmp/stderr")" != "$try" ]; then
        fail "the second line is not '$try'"
    elif ! head -n 1 "$tmp/stderr" | grep -qF -- "$2"; then
        fail "stderr lacks '$2'"
    elif [ "$(head -n 1 "$tmp/stderr" | cut -d: -f1)" != "nvlsim $(cat "$tmp/std-command")" ]; then
        fail "stderr does not start with 'nvlsim $(cat "$tmp/std-command"):'"
    elif [ "$(snapshot)" != "$before" ]; then
        fail "files appeared or vanished:$(snapshot | diff - "$tmp/std-before" | grep '^[<>]')"
    else
        echo "ok: $what -> $got: $(head -c 160 "$tmp/stderr")"
    fi
}

trim() {
    printf '%s' "$1" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//'
}

while IFS='|' read -r want text spec args; do
    case $want in '' | '#'*) continue ;; esac
    want=$(trim "$want") text=$(trim "$text") spec=$(trim "$spec")
    n_case=$((n_case + 1))
    T="$tmp/case"
    rm -rf "$T"
    mkdir "$T" "$T/dir" "$T/out"
    echo "a regular file" >"$T/file"
    (
        case $spec in
        -) ;;
        NVLSIM_MODELS=*)
            NVLSIM_MODELS=$(eval "echo \"${spec#NVLSIM_MODELS=}\"")
            export NVLSIM_MODELS
            ;;
        NVLSIM_MEMORY_LIMIT=*)
            NVLSIM_MEMORY_LIMIT=${spec#NVLSIM_MEMORY_LIMIT=}
            export NVLSIM_MEMORY_LIMIT
            ;;
        *)
            models "$spec"
            NVLSIM_MODELS="$tmp/models"
            export NVLSIM_MODELS
            ;;
        esac
        cd "$T" || exit 99
        eval "set -- $args"
        echo "$*" >"$tmp/std-args"
        echo "$1" >"$tmp/std-command"
        snapshot >"$tmp/std-before"
        timeout 20 "$nvlsim" "$@" </dev/null >"$tmp/std-out" 2>"$tmp/stderr"
        echo $? >"$tmp/std-status"
    )
    got=$(cat "$tmp/std-status")
    before=$(cat "$tmp/std-before")
    what="case $n_case: nvlsim $(sed "s|$IN/||g; s|$tmp/||g" "$tmp/std-args" | cut -c 1-120)"
    [ "$spec" != - ] && what="$what (models: $spec)"
    check "$want" "$text"
done <"$here/cases"

echo "# $n_case cases, $n_fail failed"
[ "$n_case" -ge 60 ] && [ "$n_fail" -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# nvlsim sweep over MPI ranks: two ranks (mpirun -np 2 --oversubscribe)
# write the same results.csv as one process, byte for byte, and resume a
# folder a single process started. Skipped (77) when nvlsim is built
# without MPI or mpirun is missing.
set -u
LC_ALL=C
export LC_ALL
if [ "${with_mpi:-no}" != yes ] || [ -z "${mpirun:-}" ] || [ "$mpirun" = no ]; then
    echo "skip: nvlsim built without MPI, or no mpirun"
    exit 77
fi
nvlsim="$top_builddir/nvlsim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n_fail=0
# Under --enable-sanitizers: Open MPI's own components (loaded with dlopen,
# unloaded at exit) leave allocations LeakSanitizer reports in unknown
# modules; leaks are not looked for here. nvlsim's own sweep code is
# leak-checked by test-sweep.sh, which runs it without MPI.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
# Open MPI refuses root unless told, and needs no network between ranks
# of one machine.
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_btl=self,vader
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_btl

printf '[scenario]\nsystem = dgx-h100\nmodel = llama3-8b\n[layout]\ntp = 8\n[batch]\nglobal_batch = 8\n' \
    >"$tmp/base.ini"
printf '[sweep]\nbase = base.ini\n[axes]\nlayout.tp = 1, 2, 3, 4, 8\nbatch.micro_batch = 1, 2, 4\nlayout.pp = 1, 2\n' \
    >"$tmp/sweep.ini"

"$nvlsim" sweep "$tmp/sweep.ini" --out "$tmp/one" --jobs 2 >/dev/null
"$mpirun" --oversubscribe -np 2 "$nvlsim" sweep "$tmp/sweep.ini" --out "$tmp/two" --jobs 1 \
    >"$tmp/two.out" 2>"$tmp/two.err"
status=$?
if [ "$status" -eq 0 ] && cmp -s "$tmp/one/results.csv" "$tmp/two/results.csv" &&
    grep -q "on 2 MPI ranks" "$tmp/two.out"; then
    echo "ok: 2 MPI ranks write the single process's results.csv ($(wc -l <"$tmp/two/results.csv") lines)"
else
    echo "FAIL: mpirun -np 2 sweep: exit $status"
    cat "$tmp/two.out" "$tmp/two.err"
    diff "$tmp/one/results.csv" "$tmp/two/results.csv" | head -n 10
    n_fail=$((n_fail + 1))
fi

# Resume under MPI a folder a single process left half done.
"$nvlsim" sweep "$tmp/sweep.ini" --out "$tmp/half" --jobs 1 >/dev/null
rm "$tmp/half/results.csv"
ls "$tmp/half/points" | awk 'NR % 2 == 0' | while read -r f; do rm "$tmp/half/points/$f"; done
"$mpirun" --oversubscribe -np 2 "$nvlsim" sweep "$tmp/sweep.ini" --out "$tmp/half" >"$tmp/half.out" 2>&1
if cmp -s "$tmp/one/results.csv" "$tmp/half/results.csv" && grep -q "from an earlier run" "$tmp/half.out"; then
    echo "ok: MPI ranks finish a folder a single process started"
else
    echo "FAIL: MPI resume:"
    cat "$tmp/half.out"
    n_fail=$((n_fail + 1))
fi

# A bad sweep file: every rank exits 1, rank 0 says why.
printf '[sweep]\nbase = base.ini\n[axes]\nlayout.tpp = 1, 2\n' >"$tmp/bad.ini"
"$mpirun" --oversubscribe -np 2 "$nvlsim" sweep "$tmp/bad.ini" --out "$tmp/bad" >"$tmp/bad.out" 2>&1
status=$?
if [ "$status" -eq 1 ] && grep -q "layout.tpp" "$tmp/bad.out"; then
    echo "ok: a bad sweep file under MPI exits 1 naming the key"
else
    echo "FAIL: bad sweep under MPI: exit $status"
    cat "$tmp/bad.out"
    n_fail=$((n_fail + 1))
fi
[ "$n_fail" -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make fuzz: builds each fuzz target (tests/fuzz/fuzz-NAME.c) with clang's
# libFuzzer, AddressSanitizer (leaks included) and UndefinedBehaviorSanitizer
# against the sim/ sources, then fuzzes each for FUZZ_SECONDS seconds, one
# after the other, from its seed corpus (tests/fuzz/corpus/NAME), its
# regression inputs (tests/fuzz/regress/NAME) and its dictionary
# (tests/fuzz/NAME.dict). Prints per target the executions, the coverage
# (libFuzzer's cov: and ft:) and the outcome; exits 1 when a target
# crashed, leaked, hit undefined behaviour or ran out of time or memory on
# an input (kept under tests/fuzz/work/crashes/ of the build tree).
#
# Usage: run.sh NAME...  (from the top of the build tree; make fuzz sets
# the environment)
#   top_srcdir     the source tree (absolute)
#   FUZZ_SOURCES   the sim/ sources of the program, relative to top_srcdir
#                  (.c files are compiled, the rest ignored)
#   FUZZ_CPPFLAGS  include paths and flags of GLib and json-glib (and MPI)
#   FUZZ_LIBS      GLib, json-glib, libcsv (and MPI) to link
#   FUZZ_CC        the compiler (clang)
#   FUZZ_SECONDS   seconds per target (60); 0 builds only
#   FUZZ_JOBS      compilers run at once (2)
#   FUZZ_FLAGS     more libFuzzer flags, such as -jobs=2 or -runs=1000
set -eu

: "${top_srcdir:?run.sh: top_srcdir must be set (make fuzz sets it)}"
: "${FUZZ_SOURCES:?run.sh: FUZZ_SOURCES must be set (make fuzz sets it)}"
FUZZ_CC=${FUZZ_CC:-clang}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_JOBS=${FUZZ_JOBS:-2}
FUZZ_CPPFLAGS=${FUZZ_CPPFLAGS:-}
FUZZ_LIBS=${FUZZ_LIBS:-}
FUZZ_FLAGS=${FUZZ_FLAGS:-}

if [ $# -eq 0 ]; then
    echo "run.sh: name the targets to build and run" >&2
    exit 2
fi

build=tests/fuzz/build
work=tests/fuzz/work
mkdir -p "$build/obj" "$work/crashes"

san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cflags="-std=gnu11 -g -O1 $san -I$top_srcdir/sim -I. $FUZZ_CPPFLAGS \
-DNVLSIM_SOURCE_DIR=\"$top_srcdir\" -DNVLSIM_BUILD_DIR=\"$(pwd)\" \
-DNVLSIM_PREFIX=\"$top_srcdir\" -DNVLSIM_BINDIR=\"$top_srcdir/bin\" -DNVLSIM_PKGDATADIR=\"$top_srcdir\""

# The compiler must have libFuzzer (clang with compiler-rt).
probe="$build/probe"
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
    >"$probe.c"
if ! $FUZZ_CC -fsanitize=fuzzer,address,undefined -o "$probe" "$probe.c" 2>"$probe.log"; then
    echo "run.sh: $FUZZ_CC cannot build a libFuzzer target (make fuzz needs clang and" >&2
    echo "compiler-rt, Debian: clang libclang-rt-dev; FUZZ_CC=... names another):" >&2
    cat "$probe.log" >&2
    exit 1
fi

# The library: every .c of the program but its main, compiled with
# coverage hooks for libFuzzer and the sanitizers; an object is rebuilt
# when its source, any header under sim/ or config.h is newer.
newest=$(ls -t "$top_srcdir"/sim/*/*.h config.h 2>/dev/null | head -n 1)
objects=
jobs=0
for src in $FUZZ_SOURCES; do
    case $src in
    *.c) ;;
    *) continue ;;
    esac
    case $src in
    */cli-main.c) continue ;;
    esac
    obj="$build/obj/$(echo "$src" | sed 's|/|_|g; s|\.c$|.o|')"
    objects="$objects $obj"
    if [ -f "$obj" ] && [ "$obj" -nt "$top_srcdir/$src" ] && [ "$obj" -nt "$newest" ]; then
        continue
    fi
    echo "  FUZZCC   $src"
    rm -f "$obj"
    # shellcheck disable=SC2086
    $FUZZ_CC $cflags -fsanitize=fuzzer-no-link -c -o "$obj" "$top_srcdir/$src" &
    jobs=$((jobs + 1))
    if [ "$jobs" -ge "$FUZZ_JOBS" ]; then
        wait -n 2>/dev/null || wait
        jobs=$((jobs - 1))
    fi
done
wait
for obj in $objects; do
    [ -f "$obj" ] || { echo "run.sh: $obj was not built" >&2; exit 1; }
done
rm -f "$build/libfuzzsim.a"
# shellcheck disable=SC2086
ar rcs "$build/libfuzzsim.a" $objects

for name in "$@"; do
    echo "  FUZZLD   tests/fuzz/fuzz-$name"
    # shellcheck disable=SC2086
    $FUZZ_CC $cflags -fsanitize=fuzzer -o "$build/fuzz-$name" \
        "$top_srcdir/tests/fuzz/fuzz-$name.c" "$build/libfuzzsim.a" $FUZZ_LIBS -lm
done

[ "$FUZZ_SECONDS" -gt 0 ] || exit 0

# Each target fuzzes its own working corpus (kept between runs, so that
# fuzzing resumes where it stopped), read together with the committed
# inputs, which libFuzzer never writes to.
failed=
summary="$work/summary.txt"
printf '%-10s %12s %8s %8s %8s  %s\n' target runs cov ft corpus outcome >"$summary"
total=0
for name in "$@"; do
    corpus="$work/corpus/$name"
    log="$work/$name.log"
    mkdir -p "$corpus"
    dict=
    [ -f "$top_srcdir/tests/fuzz/$name.dict" ] && dict="-dict=$top_srcdir/tests/fuzz/$name.dict"
    seeds="$top_srcdir/tests/fuzz/corpus/$name"
    regress=
    [ -d "$top_srcdir/tests/fuzz/regress/$name" ] && regress="$top_srcdir/tests/fuzz/regress/$name"
    echo "  FUZZ     $name for ${FUZZ_SECONDS}s (log: $log)"
    status=0
    # shellcheck disable=SC2086
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        "$build/fuzz-$name" -max_total_time="$FUZZ_SECONDS" -timeout=20 -rss_limit_mb=2048 \
        -max_len=16384 -print_final_stats=1 $dict -artifact_prefix="$work/crashes/$name-" \
        $FUZZ_FLAGS "$corpus" "$seeds" $regress >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
    stat=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1 || true)
    cov=$(echo "$stat" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$stat" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    n_corpus=$(find "$corpus" -type f | wc -l)
    if [ "$status" -eq 0 ]; then
        outcome=ok
    else
        outcome="FAILED (exit $status; see $log)"
        failed="$failed $name"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' "$log" >&2 || true
    fi
    [ -n "$runs" ] || runs=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed 's/^#\([0-9]*\).*/\1/')
    total=$((total + ${runs:-0}))
    printf '%-10s %12s %8s %8s %8s  %s\n' "$name" "${runs:-?}" "${cov:-?}" "${ft:-?}" \
        "$n_corpus" "$outcome" >>"$summary"
done
printf '%-10s %12s\n' total "$total" >>"$summary"
cat "$summary"
if [ -n "$failed" ]; then
    echo "make fuzz: failed:$failed (inputs under $work/crashes/)" >&2
    exit 1
fi

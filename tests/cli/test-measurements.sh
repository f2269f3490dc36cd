#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The measurement suite in the tree (data/measurements/) keeps the rows of
# the reference set it comes from (../shared/reference/ beside the
# checkout, the origin): training.csv with precision, cp, vp and fsdp,
# collectives.csv with harness, launch_mode and cuda_graph after the
# reference's columns. A
# clone without the reference set beside it (CI) skips the test (77); every
# file of the suite must still be there and shipped.
set -u
LC_ALL=C
export LC_ALL
data="$top_srcdir/data/measurements"
ref="$top_srcdir/../shared/reference"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n_fail=0

for f in collectives.csv training.csv training-mcore-h100.csv training-blackwell.csv training-public.csv \
    README.md; do
    if [ ! -f "$data/$f" ]; then
        echo "FAIL: data/measurements/$f is missing"
        n_fail=$((n_fail + 1))
    elif ! grep -q "data/measurements/$f" "$top_srcdir/Makefile.am"; then
        echo "FAIL: data/measurements/$f is not installed (nobase_dist_pkgdata_DATA)"
        n_fail=$((n_fail + 1))
    fi
done
[ "$n_fail" -eq 0 ] || exit 1

if [ ! -d "$ref" ]; then
    echo "SKIP: no reference set at $ref to compare data/measurements/ with"
    exit 77
fi

# The reference's CSV files, each with its copy in the suite.
for f in "$ref"/*.csv; do
    name=$(basename "$f")
    if [ ! -f "$data/$name" ]; then
        echo "FAIL: $name of the reference set has no copy in data/measurements/"
        n_fail=$((n_fail + 1))
    fi
done

# training.csv: the reference's rows as they are, with six columns more
# at the end of each line (none of them holds a comma).
tr -d '\r' <"$ref/training.csv" >"$tmp/ref-train.csv"
tr -d '\r' <"$data/training.csv" | sed -E 's/(,[^,]*){6}$//' >"$tmp/tree-train.csv"
if cmp -s "$tmp/ref-train.csv" "$tmp/tree-train.csv" &&
    head -n 1 "$data/training.csv" | tr -d '\r' | grep -q ',precision,cp,vp,fsdp,recompute,stack$'; then
    echo "ok: data/measurements/training.csv keeps the reference rows"
else
    echo "FAIL: data/measurements/training.csv differs from $ref/training.csv beyond its six columns:"
    diff "$tmp/ref-train.csv" "$tmp/tree-train.csv" | head -n 10
    n_fail=$((n_fail + 1))
fi
# What a row says lives in its columns, never in its notes: the reference
# file, which has the notes and not the columns, replays no row; each is
# skipped for the precision it does not state in a column.
"$top_builddir/nvlsim" validate "$ref/training.csv" >"$tmp/from-notes.txt"
n_ref=$(($(wc -l <"$tmp/ref-train.csv") - 1))
if grep -q '^MAPE: 0.0% over 0 rows' "$tmp/from-notes.txt" &&
    grep -q '^# skipped [0-9]* rows: no precision (column precision' "$tmp/from-notes.txt"; then
    echo "ok: the notes alone replay nothing ($(grep '^# skipped' "$tmp/from-notes.txt" | tr '\n' ' '))"
else
    echo "FAIL: the reference's $n_ref rows, which state their precision only in notes, replayed:"
    tail -n 5 "$tmp/from-notes.txt"
    n_fail=$((n_fail + 1))
fi

# collectives.csv: the reference's rows as they are, with three columns
# more at the end of each line (none of them holds a comma).
tr -d '\r' <"$ref/collectives.csv" >"$tmp/ref.csv"
sed -E 's/,[^,]*,[^,]*,[^,]*\r?$//' "$data/collectives.csv" >"$tmp/tree.csv"
if cmp -s "$tmp/ref.csv" "$tmp/tree.csv" &&
    head -n 1 "$data/collectives.csv" | tr -d '\r' | grep -q ',harness,launch_mode,cuda_graph$'; then
    echo "ok: data/measurements/collectives.csv keeps the reference rows ($(wc -l <"$tmp/ref.csv") lines)"
else
    echo "FAIL: data/measurements/collectives.csv differs from $ref/collectives.csv beyond its three columns:"
    diff "$tmp/ref.csv" "$tmp/tree.csv" | head -n 10
    n_fail=$((n_fail + 1))
fi

[ "$n_fail" -eq 0 ] || echo "$n_fail failed"
[ "$n_fail" -eq 0 ]

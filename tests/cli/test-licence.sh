#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every source file carries the licence's SPDX line near its top (C and
# CUDA sources and headers, shell scripts, gnuplot templates, the build
# files), and the licence itself is there.
set -u
src=${top_srcdir:-.}
n_fail=0
[ -f "$src/LICENSE" ] && grep -q "Apache License" "$src/LICENSE" || {
    echo "FAIL: no Apache-2.0 LICENSE in $src"
    n_fail=1
}
n=0
for f in $(cd "$src" && find sim tests bench plots docs -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.sh' -o \
    -name '*.gp' \) ! -path 'tests/fuzz/corpus/*' ! -path 'tests/data/*' | LC_ALL=C sort) \
    autogen.sh Makefile.am configure.ac; do
    n=$((n + 1))
    if ! head -n 3 "$src/$f" | grep -q "SPDX-License-Identifier: Apache-2.0"; then
        echo "FAIL: $f has no SPDX-License-Identifier: Apache-2.0 line in its first 3 lines"
        n_fail=$((n_fail + 1))
    fi
done
echo "# $n files checked, $n_fail without the licence line"
[ "$n_fail" -eq 0 ]

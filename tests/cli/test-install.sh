#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# nvlsim as users install it: make install DESTDIR=... stages the program
# and its data, the staged prefix is moved to another folder, and from a
# folder outside the build tree the moved nvlsim must find its own data
# (never the build tree's): the README's quick start (nvlsim run), the
# shipped measurement suite (validate without FILE), list, a system given
# as a file (--system ./FILE.ini, a scenario's system and model keys), a
# folder of $NVLSIM_MODELS with one extra system file, and one-line errors
# for a missing folder or file. A copy of the program alone looks for its
# data at the configured $(pkgdatadir).
. "$top_srcdir/tests/cli/lib.sh"

# The build's own make, without the parent's jobserver (make check runs
# this script as a plain command).
if ! (cd "$top_builddir" && env -u MAKEFLAGS -u MFLAGS "${make:-make}" install \
    DESTDIR="$tmp/stage") >"$tmp/install.log" 2>&1; then
    echo "FAIL: make install DESTDIR=$tmp/stage:"
    tail -n 20 "$tmp/install.log"
    exit 1
fi
staged_bin=$(find "$tmp/stage" -type f -name nvlsim -path '*/bin/nvlsim' | head -n 1)
if [ -z "$staged_bin" ]; then
    echo "FAIL: make install DESTDIR=... staged no bin/nvlsim"
    exit 1
fi
staged_prefix=$(dirname "$(dirname "$staged_bin")")
mv "$staged_prefix" "$tmp/moved"
moved=$(cd "$tmp/moved" && pwd -P)
data="$moved/share/nvlsim"
for f in models/system/dgx-h100.ini models/llm/llama3-8b.ini scenarios/gpt3-175b-dgx-h100.ini \
    plots/busbw.gp data/measurements/collectives.csv data/measurements/training.csv \
    data/measurements/README.md; do
    [ -f "$data/$f" ] || fail "make install did not install $f under \$(pkgdatadir)"
done

mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1
PATH="$moved/bin:$PATH"
export PATH
unset NVLSIM_MODELS NVLSIM_PLOTS

# run_nvlsim STATUS ARGS: runs the moved nvlsim, stdout in $tmp/out and
# stderr in $tmp/err; true when it exits STATUS (errors: one line).
run_nvlsim() {
    want=$1
    shift
    nvlsim "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "nvlsim $*: exit $got, expected $want: $(head -c 400 "$tmp/err")"
        return 1
    fi
    if [ "$want" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        fail "nvlsim $*: the error is not one line: $(cat "$tmp/err")"
        return 1
    fi
    return 0
}

if [ "$(command -v nvlsim)" = "$moved/bin/nvlsim" ] && run_nvlsim 0 --version &&
    grep -qxF "data: $data (installed, found from the program's folder)" "$tmp/out"; then
    ok "the moved nvlsim finds its data beside it: $(tail -n 1 "$tmp/out")"
else
    fail "nvlsim --version of the moved install: $(cat "$tmp/out")"
fi

# The README's quick start.
if run_nvlsim 0 run && grep -q '^step time ' "$tmp/out"; then
    ok "nvlsim run (the built-in study): $(grep '^step time' "$tmp/out")"
else
    fail "nvlsim run printed no step time"
fi

# Every row of list names the installed models as its origin.
if run_nvlsim 0 list systems && grep -q "^dgx-h100 .*  $data/models\$" "$tmp/out" &&
    [ "$(grep -v '^#' "$tmp/out" | grep -cv "  $data/models\$")" -eq 0 ] &&
    ! grep -qF "$top_srcdir" "$tmp/out"; then
    ok "nvlsim list systems: every model from $data/models"
else
    fail "nvlsim list systems does not list the installed models:"
    cat "$tmp/out"
fi

# The shipped suite without FILE: its five files, exit 0 (there is no gate
# without --max-mape); one system's rows of each, the whole suite takes a
# minute.
if run_nvlsim 0 validate -q --system dgx1-p100 &&
    grep -qxF "# nvlsim validate: $data/data/measurements/collectives.csv (the shipped measurement suite)" "$tmp/out" &&
    grep -qxF "# nvlsim validate: $data/data/measurements/training.csv (the shipped measurement suite)" "$tmp/out" &&
    grep -qxF "# nvlsim validate: $data/data/measurements/training-mcore-h100.csv (the shipped measurement suite)" "$tmp/out" &&
    grep -qxF "# nvlsim validate: $data/data/measurements/training-blackwell.csv (the shipped measurement suite)" "$tmp/out" &&
    grep -qxF "# nvlsim validate: $data/data/measurements/training-public.csv (the shipped measurement suite)" "$tmp/out" &&
    [ "$(grep -c '^MAPE: ' "$tmp/out")" -eq 5 ] &&
    grep '^MAPE: ' "$tmp/out" | head -n 1 | grep -qv ' over 0 rows'; then
    ok "nvlsim validate (the shipped suite, dgx1-p100): $(grep '^MAPE: ' "$tmp/out" | head -n 1)"
else
    fail "nvlsim validate --system dgx1-p100 did not replay the shipped suite:"
    cat "$tmp/out"
fi
if run_nvlsim 0 validate -q --system dgx2-v100 &&
    grep '^MAPE: ' "$tmp/out" | sed -n 2p | grep -q ' over 4 rows'; then
    ok "nvlsim validate (the shipped suite, dgx2-v100): $(grep '^MAPE: ' "$tmp/out" | sed -n 2p)"
else
    fail "nvlsim validate --system dgx2-v100 replayed no training rows:"
    cat "$tmp/out"
fi
if run_nvlsim 0 calibrate compute-efficiency --system dgx2-v100 &&
    grep -q '^training_efficiency = ' "$tmp/out"; then
    ok "nvlsim calibrate compute-efficiency reads the shipped training.csv"
else
    fail "nvlsim calibrate compute-efficiency --system dgx2-v100: $(tail -n 3 "$tmp/out")"
fi

# A system file given by its path, and a scenario naming files.
sed 's/^name = .*/name = My box/' "$data/models/system/dgx-a100.ini" >my-box.ini
cp "$data/models/llm/llama3-8b.ini" my-model.ini
printf '[scenario]\nsystem = ./my-box.ini\nmodel = my-model.ini\n[layout]\ntp = 8\n[batch]\nglobal_batch = 8\n' \
    >study.ini
if run_nvlsim 0 p2p --system ./my-box.ini --matrices-only --bytes 1M &&
    grep -q '^# nvlsim p2p: ./my-box.ini ' "$tmp/out"; then
    ok "nvlsim p2p --system ./my-box.ini loads the file"
else
    fail "nvlsim p2p --system ./my-box.ini: $(head -n 2 "$tmp/out")"
fi
if run_nvlsim 0 run -q study.ini; then
    ok "a scenario with system = ./my-box.ini and model = my-model.ini: $(cat "$tmp/out") s"
fi
run_nvlsim 1 p2p --system ./no-box.ini && grep -qF "./no-box.ini: no such system file" "$tmp/err" &&
    ok "--system ./no-box.ini: $(cat "$tmp/err")"
run_nvlsim 1 p2p --system my-model.ini && grep -qF "my-model.ini: no [system] group: not a system file" "$tmp/err" &&
    ok "--system my-model.ini: $(cat "$tmp/err")"

# $NVLSIM_MODELS: a folder holding one extra system file, searched before
# the shipped models.
mkdir -p "$tmp/mine/system"
sed 's/^name = .*/name = My pod/' "$data/models/system/dgx-h100.ini" >"$tmp/mine/system/my-pod.ini"
NVLSIM_MODELS="$tmp/mine"
export NVLSIM_MODELS
mine=$(cd "$tmp/mine" && pwd)
if run_nvlsim 0 list systems && grep -q "^my-pod .*  $mine\$" "$tmp/out" &&
    grep -q "^dgx-h100 .*  $data/models\$" "$tmp/out"; then
    ok "NVLSIM_MODELS=$mine: list systems has my-pod from it and the shipped systems"
else
    fail "NVLSIM_MODELS=$mine: list systems:"
    cat "$tmp/out"
fi
run_nvlsim 0 coll --system my-pod -b 1M -e 1M && ok "NVLSIM_MODELS: coll --system my-pod runs"
NVLSIM_MODELS="$tmp/none:$tmp/mine"
run_nvlsim 1 list systems && grep -qF "NVLSIM_MODELS: $tmp/none: no such folder" "$tmp/err" &&
    ok "a folder of NVLSIM_MODELS that is not there: $(cat "$tmp/err")"
unset NVLSIM_MODELS

# The program alone, away from its data: the configured $(pkgdatadir).
mkdir "$tmp/lone"
cp "$moved/bin/nvlsim" "$tmp/lone/nvlsim"
"$tmp/lone/nvlsim" --version >"$tmp/out" 2>&1
if grep -qxF "data: $pkgdatadir (installed, at the configured path)" "$tmp/out"; then
    ok "a copy of nvlsim alone looks in the configured $pkgdatadir"
else
    fail "a copy of nvlsim alone: $(cat "$tmp/out")"
fi
if [ ! -d "$pkgdatadir/models" ]; then
    "$tmp/lone/nvlsim" list systems >"$tmp/out" 2>"$tmp/err"
    if [ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        grep -qF "$pkgdatadir/models: no such folder: the shipped models are not where" "$tmp/err"; then
        ok "without its data nvlsim says where it looked: $(cat "$tmp/err")"
    else
        fail "nvlsim without its data: $(cat "$tmp/err")"
    fi
fi

[ "$n_fail" -eq 0 ] || echo "$n_fail failed"
[ "$n_fail" -eq 0 ]

# SPDX-License-Identifier: Apache-2.0
# The start every shell test of tests/cli shares, sourced after its own
# comment: strict variables, the C locale (GLib translates its messages;
# the checks read the English ones), $nvlsim (the build tree's program),
# $tmp (a folder removed at exit), the failure count $n_fail with ok and
# fail to report a check, and tiny_scenario.
set -u
LC_ALL=C
export LC_ALL
nvlsim="$top_builddir/nvlsim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n_fail=0

ok() { echo "ok: $*"; }
fail() {
    echo "FAIL: $*"
    n_fail=$((n_fail + 1))
}

# tiny_scenario FILE: a scenario that takes milliseconds (Llama 3 8B on one
# DGX H100, tp 8, a batch of 8 sequences).
tiny_scenario() {
    cat >"$1" <<'SCENARIO'
[scenario]
name = tiny
system = dgx-h100
model = llama3-8b
[layout]
tp = 8
[batch]
global_batch = 8
SCENARIO
}

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# calibrate cluster fits a perturbation back: a cluster whose NVLink runs
# at 0.9 of its rate and whose NICs take twice DGX H100's latency (a
# system file deriving from dgx-h100) prints nccl-tests' output through
# nvlsim coll, one node and two; its header line naming the system and the
# collective is cut, as an older nccl-tests' log has neither (--collective
# says it). Fitted from dgx-h100, the NVLink
# efficiency and the NIC latency come back within 2%, the figures the sizes
# cannot tell keep dgx-h100's, and the file written runs where a system
# name goes (coll, validate, run).
. "$top_srcdir/tests/cli/lib.sh"

cat >"$tmp/perturbed.ini" <<'INI'
[system]
base = dgx-h100
name = DGX H100 with slow NVLink and NICs
[nvlink]
efficiency = 0.9
[network]
nic_latency = 1200ns
INI
"$nvlsim" coll -s "$tmp/perturbed.ini" -b 1M -e 256M -f 4 | sed '/^# nvlsim coll:/d' >"$tmp/one.log" &&
    "$nvlsim" coll -s "$tmp/perturbed.ini" --nodes 2 --gpus 16 -b 4K -e 256M -f 4 |
    sed '/^# nvlsim coll:/d' >"$tmp/two.log" || fail "coll on the perturbed system"

"$nvlsim" calibrate cluster --system dgx-h100 --collective all_reduce -o "$tmp/mine.ini" \
    "$tmp/one.log" "$tmp/two.log" \
    >"$tmp/out" 2>"$tmp/err" || fail "calibrate cluster: $(cat "$tmp/err")"
cat "$tmp/out"
# value KEY: the figure the file sets, in its own unit (ns for times).
value() { sed -n "s/^$1 = \([0-9.]*\)\(ns\)\{0,1\}$/\1/p" "$tmp/mine.ini"; }
within() { # within GOT WANT: |GOT/WANT - 1| <= 2%
    awk -v g="$1" -v w="$2" 'BEGIN { d = g / w - 1; exit !(g != "" && d <= 0.02 && d >= -0.02) }'
}
eff=$(value efficiency)
lat=$(value nic_latency)
within "$eff" 0.9 && ok "NVLink efficiency fitted back: $eff (0.9)" || fail "NVLink efficiency $eff, not 0.9"
within "$lat" 1200 && ok "NIC latency fitted back: ${lat}ns (1200ns)" || fail "NIC latency ${lat}ns, not 1200ns"
grep -q '^kernel_setup\|^nic_efficiency' "$tmp/mine.ini" &&
    fail "a figure the sizes cannot tell was written: $(cat "$tmp/mine.ini")" ||
    ok "kernel_setup and nic_efficiency keep dgx-h100's (the sizes cannot tell them)"
grep -q "^base = dgx-h100$" "$tmp/mine.ini" && ok "the file derives from dgx-h100" || fail "no base"
grep -q "held-out sizes" "$tmp/out" && ok "the held-out sizes' error is printed" || fail "no held-out error"

# The file where a system name goes: the logs replay on it within 1%.
"$nvlsim" validate -q --system "$tmp/mine.ini" --collective all_reduce "$tmp/two.log" >"$tmp/val" 2>&1 ||
    fail "validate --system mine.ini: $(cat "$tmp/val")"
mape=$(sed -n 's/^MAPE: \([0-9.]*\)% over \([1-9][0-9]*\) rows.*/\1/p' "$tmp/val")
awk -v m="$mape" 'BEGIN { exit !(m != "" && m <= 1) }' && ok "the two-node log on the fitted file: MAPE $mape%" ||
    fail "MAPE on the fitted file: $(tail -n 3 "$tmp/val")"
tiny_scenario "$tmp/tiny.ini"
"$nvlsim" run -q "$tmp/tiny.ini" --set "system=$tmp/mine.ini" >/dev/null 2>"$tmp/err" &&
    ok "run takes the fitted file as its system" || fail "run: $(cat "$tmp/err")"

# Refusals: no output file; a file that is not a log.
"$nvlsim" calibrate cluster --system dgx-h100 --collective all_reduce "$tmp/one.log" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "cluster needs --system BASE, -o FILE.ini" "$tmp/err" && ok "no -o: usage" ||
    fail "no -o: $(cat "$tmp/err")"
"$nvlsim" calibrate cluster --system dgx-h100 -o "$tmp/x.ini" "$tmp/perturbed.ini" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ ! -e "$tmp/x.ini" ] && grep -q "not nccl-tests' output" "$tmp/err" &&
    ok "a file that is not a log: refused, nothing written" || fail "not a log: $(cat "$tmp/err")"

[ $n_fail -eq 0 ]

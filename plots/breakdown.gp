# SPDX-License-Identifier: Apache-2.0
# Where a training step's time goes, as stacked bars: one bar per row (one
# nvlsim run --csv, or the many rows of a sweep), stacked from compute,
# exposed TP, PP, DP, EP and CP communication, and idle time (bubble, waits).
#   gnuplot -e "datafile='run.csv'; outfile='breakdown.png'" breakdown.gp
# Variables (all optional but datafile and outfile):
#   label   column that names each bar           (default 'scenario')
#   parts   the stacked columns, seconds, space-separated
#           (default 'compute_s tp_s pp_s dp_s ep_s cp_s idle_s')
#   plottitle  title above the plot
nvlsim_dir = ''
do for [nvlsim_c = strlen(ARG0):1:-1] {
    if (nvlsim_dir eq '' && ARG0[nvlsim_c:nvlsim_c] eq '/') { nvlsim_dir = ARG0[1:nvlsim_c] }
}
load nvlsim_dir.'common.gp'

if (!exists("label")) label = 'scenario'
if (!exists("parts")) parts = 'compute_s tp_s pp_s dp_s ep_s cp_s idle_s'
part_title(c) = c eq 'compute_s' ? 'compute' : c eq 'tp_s' ? 'exposed TP comm' : \
                c eq 'pp_s' ? 'exposed PP comm' : c eq 'dp_s' ? 'exposed DP comm' : \
                c eq 'ep_s' ? 'exposed EP comm' : c eq 'cp_s' ? 'exposed CP comm' : \
                c eq 'idle_s' ? 'idle (bubble, waits)' : c
part_color(c) = c eq 'compute_s' ? '#009E73' : c eq 'tp_s' ? '#0072B2' : \
                c eq 'pp_s' ? '#E69F00' : c eq 'dp_s' ? '#CC79A7' : c eq 'ep_s' ? '#D55E00' : \
                c eq 'cp_s' ? '#F0E442' : c eq 'idle_s' ? '#BBBBBB' : '#56B4E9'

undefine STATS_*
stats datafile using (column(word(parts, 1))) nooutput
eval nvlsim_need_rows
n_rows = STATS_records
# Wider for many bars; long labels are cut and slanted.
eval nvlsim_terminal(n_rows > 8 ? 260 + 56 * n_rows : 900, 600)
set output outfile
set title plottitle noenhanced
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border rgb '#ffffff'
set boxwidth 0.7
set ylabel 'time per step (s)'
set yrange [0:*]
set grid noxtics ytics
set key outside right top noenhanced
if (n_rows > 2) { set xtics rotate by -35 left noenhanced } else { set xtics noenhanced }
if (n_rows < 3) { set xrange [-1:n_rows] }
bar_label(s) = strlen(s) > 40 ? s[1:37].'...' : s

plot for [i = 1:words(parts)] datafile \
    using (column(word(parts, i))):xtic(bar_label(strcol(label))) \
    lc rgb part_color(word(parts, i)) title part_title(word(parts, i))
set output

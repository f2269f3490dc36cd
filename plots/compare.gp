# SPDX-License-Identifier: Apache-2.0
# Step time per system (or per any label): one bar per row, with its value,
# from nvlsim run --csv rows of the same job on several systems.
#   gnuplot -e "datafile='systems.csv'; outfile='compare.png'" compare.gp
# Variables (all optional but datafile and outfile):
#   label   column that names each bar      (default 'system')
#   ycol    the measure, seconds            (default 'step_time_s')
#   plottitle  title above the plot
nvlsim_dir = ''
do for [nvlsim_c = strlen(ARG0):1:-1] {
    if (nvlsim_dir eq '' && ARG0[nvlsim_c:nvlsim_c] eq '/') { nvlsim_dir = ARG0[1:nvlsim_c] }
}
load nvlsim_dir.'common.gp'

if (!exists("label")) label = 'system'
if (!exists("ycol")) ycol = 'step_time_s'

undefine STATS_*
stats datafile using (column(ycol)) nooutput
eval nvlsim_need_rows
n_rows = STATS_records
y_max = STATS_max
eval nvlsim_terminal(n_rows > 8 ? 260 + 70 * n_rows : 800, 560)
set output outfile
set title plottitle noenhanced
set style fill solid 0.85 border rgb '#ffffff'
set boxwidth 0.6
set ylabel (ycol eq 'step_time_s' ? 'step time (s)' : ycol) noenhanced
set yrange [0:y_max * 1.15]
set xrange [-0.6:n_rows - 0.4]
set grid noxtics ytics
set key off
if (n_rows > 4) { set xtics rotate by -35 left noenhanced } else { set xtics noenhanced }

plot datafile using 0:(column(ycol)):($0 + 1):xtic(strcol(label)) \
        with boxes lc variable, \
     '' using 0:(column(ycol)):(sprintf('%.3g', column(ycol))) with labels offset 0,0.8
set output

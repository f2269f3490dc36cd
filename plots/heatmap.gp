# SPDX-License-Identifier: Apache-2.0
# A sweep as a heat map: one cell per pair of values of two axis columns
# (e.g. tp x pp), coloured by a measure (step time) and labelled with it.
# Axis values are shown in the order they first appear in the file; a pair
# that appears twice shows its last row. An empty measure (an invalid point)
# leaves the cell blank, labelled invalid.
#   gnuplot -e "datafile='sweep.csv'; outfile='heatmap.png'" heatmap.gp
# Variables (all optional but datafile and outfile):
#   xcol    column across     (default 'tp'; a sweep may call it 'layout.tp')
#   ycol    column up         (default 'pp')
#   zcol    the measure       (default 'step_time_s')
#   plottitle  title above the plot
nvlsim_dir = ''
do for [nvlsim_c = strlen(ARG0):1:-1] {
    if (nvlsim_dir eq '' && ARG0[nvlsim_c:nvlsim_c] eq '/') { nvlsim_dir = ARG0[1:nvlsim_c] }
}
load nvlsim_dir.'common.gp'

if (!exists("xcol")) xcol = 'tp'
if (!exists("ycol")) ycol = 'pp'
if (!exists("zcol")) zcol = 'step_time_s'

nvlsim_list = ''
undefine STATS_*
stats datafile using (nvlsim_collect(strcol(xcol))) nooutput
eval nvlsim_need_rows
x_list = nvlsim_list
nvlsim_list = ''
stats datafile using (nvlsim_collect(strcol(ycol))) nooutput
y_list = nvlsim_list
n_x = words(x_list)
n_y = words(y_list)

eval nvlsim_terminal(n_x > 8 ? 300 + 70 * n_x : 860, n_y > 8 ? 200 + 50 * n_y : 600)
set output outfile
set title plottitle noenhanced
set xlabel xcol noenhanced
set ylabel ycol noenhanced
set cblabel (zcol eq 'step_time_s' ? 'step time (s)' : zcol) noenhanced
set xrange [0.5:n_x + 0.5]
set yrange [0.5:n_y + 0.5]
set xtics () scale 0
set ytics () scale 0
do for [i = 1:n_x] { set xtics add (word(x_list, i) i) }
do for [i = 1:n_y] { set ytics add (word(y_list, i) i) }
unset grid
set key off
set palette defined (0 '#1a9850', 0.5 '#fee08b', 1 '#d73027')
set style fill solid 1.0 noborder

plot datafile using (nvlsim_index(x_list, strcol(xcol))):(nvlsim_index(y_list, strcol(ycol))):(0.5):(0.5):(column(zcol)) \
        with boxxyerror fc palette, \
     '' using (nvlsim_index(x_list, strcol(xcol))):(nvlsim_index(y_list, strcol(ycol))):(strcol(zcol) eq '' ? 'invalid' : sprintf('%.4g', column(zcol))) \
        with labels
set output

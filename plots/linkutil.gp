# SPDX-License-Identifier: Apache-2.0
# Per-link utilization over time, one line per link, from a long-format CSV:
# one row per (time, link) sample.
#   gnuplot -e "datafile='links.csv'; outfile='links.png'" linkutil.gp
# Variables (all optional but datafile and outfile):
#   xcol    time column, seconds      (default 'time_s')
#   ycol    utilization, 0 to 1       (default 'utilization')
#   series  column naming the link    (default 'link')
#   maxkey  most links named in the key; more are drawn unnamed (default 16)
#   plottitle  title above the plot
nvlsim_dir = ''
do for [nvlsim_c = strlen(ARG0):1:-1] {
    if (nvlsim_dir eq '' && ARG0[nvlsim_c:nvlsim_c] eq '/') { nvlsim_dir = ARG0[1:nvlsim_c] }
}
load nvlsim_dir.'common.gp'

if (!exists("xcol")) xcol = 'time_s'
if (!exists("ycol")) ycol = 'utilization'
if (!exists("series")) series = 'link'
if (!exists("maxkey")) maxkey = 16

nvlsim_list = ''
undefine STATS_*
stats datafile using (nvlsim_collect(strcol(series))) nooutput
eval nvlsim_need_rows
n_links = words(nvlsim_list)

eval nvlsim_terminal(1000, 560)
set output outfile
set title plottitle noenhanced
set xlabel 'time (s)'
set ylabel (ycol eq 'utilization' ? 'link utilization' : ycol) noenhanced
set yrange [0:*]
set key outside right top noenhanced
set format y '%g'
# Utilization is stored as a fraction and drawn in percent.
scale = 1
if (ycol eq 'utilization') { scale = 100; set yrange [0:105]; set ylabel 'link utilization (%)' }

plot for [i = 1:n_links] datafile \
    using (strcol(series) eq word(nvlsim_list, i) ? column(xcol) : NaN):(column(ycol) * scale) \
    with lines lw 1.5 lc i title (i <= maxkey ? word(nvlsim_list, i) : '')
set output

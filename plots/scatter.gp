# SPDX-License-Identifier: Apache-2.0
# Simulated against measured, log-log, one colour per series, with the line
# y = x and a band of +/- band around it (default 5%): nvlsim validate --csv.
# The title gives the rows and their mean absolute percentage error (MAPE).
#   gnuplot -e "datafile='validate.csv'; outfile='scatter.png'" scatter.gp
# Variables (all optional but datafile and outfile):
#   xcol    measured column      (default 'measured')
#   ycol    simulated column     (default 'simulated')
#   series  column whose values get a colour each; '' for one (default 'system')
#   band    relative half-width of the band (default 0.05)
#   plottitle  title above the plot
nvlsim_dir = ''
do for [nvlsim_c = strlen(ARG0):1:-1] {
    if (nvlsim_dir eq '' && ARG0[nvlsim_c:nvlsim_c] eq '/') { nvlsim_dir = ARG0[1:nvlsim_c] }
}
load nvlsim_dir.'common.gp'

if (!exists("xcol")) xcol = 'measured'
if (!exists("ycol")) ycol = 'simulated'
if (!exists("series")) series = 'system'
if (!exists("band")) band = 0.05

nvlsim_list = ''
if (series ne '') {
    stats datafile using (nvlsim_collect(strcol(series))) nooutput
}
n_series = series eq '' ? 1 : words(nvlsim_list)
# Only positive pairs can sit on log axes.
pos(v) = v > 0 ? v : NaN
undefine STATS_*
stats datafile using (pos(column(xcol))):(pos(column(ycol))) nooutput
eval nvlsim_need_rows
n_rows = STATS_records
lo = (STATS_min_x < STATS_min_y ? STATS_min_x : STATS_min_y) / 1.6
hi = (STATS_max_x > STATS_max_y ? STATS_max_x : STATS_max_y) * 1.6
stats datafile using (abs(pos(column(ycol)) - pos(column(xcol))) / pos(column(xcol)) * 100) nooutput
mape = STATS_mean

eval nvlsim_terminal(760, 700)
set output outfile
heading = sprintf('%d rows, MAPE %.1f%%', n_rows, mape)
set title (plottitle eq '' ? heading : plottitle."\n".heading) noenhanced
set logscale xy 10
set xrange [lo:hi]
set yrange [lo:hi]
set size ratio -1
set format xy '%g'
# Rows may mix units (us, GB/s, s): each point is in its own row's unit.
set xlabel (xcol eq 'measured' ? "measured (each row's unit)" : xcol) noenhanced
set ylabel (ycol eq 'simulated' ? "simulated (each row's unit)" : ycol) noenhanced
set key top left noenhanced box opaque
set samples 64
set style fill transparent solid 0.5 noborder

plot '+' using 1:($1 * (1 - band)):($1 * (1 + band)) with filledcurves \
        lc rgb '#9ecae1' title sprintf('+/-%g%%', band * 100), \
     x with lines dt 2 lw 1.5 lc rgb '#444444' title 'simulated = measured', \
     for [i = 1:n_series] datafile \
        using (series eq '' || strcol(series) eq word(nvlsim_list, i) ? pos(column(xcol)) : NaN):(pos(column(ycol))) \
        with points pt 7 ps 0.9 lc i title (series eq '' ? 'rows' : word(nvlsim_list, i))
set output

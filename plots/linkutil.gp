# SPDX-License-Identifier: Apache-2.0
# Link utilization over time, from nvlsim run --links-plot's CSV: one row
# per time bin (time_s, the bin's start), one column per series, each a
# fraction from 0 to 1. Columns named "class NAME" are link classes (the
# mean over the class's used links, weighted by rate), drawn in the upper
# panel; the others (nvlsim names them "link A -> B": the busiest links)
# in the lower one. The file is read once, into a datablock, whatever the
# number of series.
#   gnuplot -e "datafile='links.csv'; outfile='links.png'" linkutil.gp
# Variables (all optional but datafile and outfile):
#   plottitle  title above the plots
nvlsim_dir = ''
do for [nvlsim_c = strlen(ARG0):1:-1] {
    if (nvlsim_dir eq '' && ARG0[nvlsim_c:nvlsim_c] eq '/') { nvlsim_dir = ARG0[1:nvlsim_c] }
}
load nvlsim_dir.'common.gp'

# The column count; the header's names, its line read as data (a list
# for word()); then the rows, into a datablock.
undefine STATS_*
stats datafile using 1 every ::0::0 nooutput
eval nvlsim_need_rows
n_cols = STATS_columns
if (n_cols < 2) {
    print sprintf('%s: no series to plot (no link carried traffic?)', datafile)
    exit status 1
}
nvlsim_header(i, n) = i > n ? '' : '"'.strcol(i).'" '.nvlsim_header(i + 1, n)
set key noautotitle
stats datafile using (names = nvlsim_header(1, n_cols), 0) every ::0::0 nooutput
set key autotitle columnhead
nvlsim_using = '1'
do for [i = 2:n_cols] { nvlsim_using = nvlsim_using.':'.i }
set table $nvlsim_rows separator comma
plot datafile using @nvlsim_using with table
unset table
# The datablock has no header: its first row is data, and titles are ours.
set key noautotitle

# Series 2 .. n_cols: classes first in nvlsim's files, but found by name;
# the column numbers of each kind as lists for word().
is_class(i) = strstrt(word(names, i), 'class ') == 1
label(i) = is_class(i) ? word(names, i)[7:] : \
    (strstrt(word(names, i), 'link ') == 1 ? word(names, i)[6:] : word(names, i))
class_cols = ''
link_cols = ''
do for [i = 2:n_cols] {
    if (is_class(i)) { class_cols = class_cols.' '.i } else { link_cols = link_cols.' '.i }
}
n_class = words(class_cols)
n_link = words(link_cols)
n_panels = (n_class > 0) + (n_link > 0)
col(list, j) = word(list, j) + 0

eval nvlsim_terminal(1100, n_panels > 1 ? 820 : 520)
set output outfile
set multiplot layout n_panels, 1 title plottitle noenhanced
set xlabel 'time (s)'
set ylabel 'link utilization (%)'
# Low loads stay readable: the axis ends where the data do (up to 100 %).
set yrange [0:*<105]
set autoscale xfix
set key outside right top noenhanced
# Both panels share the time axis: the same margins, whatever their keys.
set lmargin at screen 0.07
set rmargin at screen 0.66
set format y '%g'
if (n_class > 0) {
    set title 'mean per link class' noenhanced
    plot for [j = 1:n_class] $nvlsim_rows using 1:(column(col(class_cols, j)) * 100) \
        with steps lw 2 lc j title label(col(class_cols, j))
}
if (n_link > 0) {
    set title sprintf('the %d busiest link%s', n_link, n_link == 1 ? '' : 's') noenhanced
    plot for [j = 1:n_link] $nvlsim_rows using 1:(column(col(link_cols, j)) * 100) \
        with steps lw 1.2 lc j title label(col(link_cols, j))
}
unset multiplot
set output

# SPDX-License-Identifier: Apache-2.0
# Bus bandwidth against message size, log-log, one line per series: the
# curves nccl-tests' results are drawn as. Reads nvlsim coll --csv (or rows
# of several runs with a column naming each, e.g. system, to compare
# generations).
#   gnuplot -e "datafile='coll.csv'; outfile='busbw.png'" busbw.gp
# Variables (all optional but datafile and outfile):
#   xcol    size column, bytes               (default 'size_bytes')
#   ycol    bandwidth column, GB/s           (default 'busbw_GB_per_s')
#   series  column whose values get a line each; '' for one line (default '')
#   linetitle  the line's title when series is ''  (default 'simulated')
#   plottitle  title above the plot
nvlsim_dir = ''
do for [nvlsim_c = strlen(ARG0):1:-1] {
    if (nvlsim_dir eq '' && ARG0[nvlsim_c:nvlsim_c] eq '/') { nvlsim_dir = ARG0[1:nvlsim_c] }
}
load nvlsim_dir.'common.gp'

if (!exists("xcol")) xcol = 'size_bytes'
if (!exists("ycol")) ycol = 'busbw_GB_per_s'
if (!exists("series")) series = ''
if (!exists("linetitle")) linetitle = 'simulated'

nvlsim_list = ''
if (series ne '') {
    stats datafile using (nvlsim_collect(strcol(series))) nooutput
}
n_series = series eq '' ? 1 : words(nvlsim_list)
undefine STATS_*
stats datafile using (column(xcol)) nooutput
eval nvlsim_need_rows
size_min = STATS_min
size_max = STATS_max

eval nvlsim_terminal(900, 560)
set output outfile
set title plottitle noenhanced
set logscale x 2
set logscale y 10
set xlabel 'message size (bytes)'
set ylabel sprintf('%s (GB/s)', ycol eq 'busbw_GB_per_s' ? 'bus bandwidth' : \
                   ycol eq 'algbw_GB_per_s' ? 'algorithm bandwidth' : ycol) noenhanced
# Sizes as nccl-tests writes them (8, 1K, 128M, 8G), at most about 12 tics.
size_label(b) = b >= 2**30 ? sprintf('%gG', b / 2**30) : b >= 2**20 ? sprintf('%gM', b / 2**20) : \
                b >= 2**10 ? sprintf('%gK', b / 2**10) : sprintf('%g', b)
lo = floor(log(size_min) / log(2) + 1e-9)
hi = ceil(log(size_max) / log(2) - 1e-9)
step = ceil((hi - lo + 1) / 12.0)
set xtics ()
do for [e = lo:hi:step] { set xtics add (size_label(2**e) 2**e) }
set xrange [2**(lo - 0.2):2**(hi + 0.2)]
set key top left noenhanced
set format y '%g'

if (series eq '') {
    plot datafile using (column(xcol)):(column(ycol)) with linespoints lw 2 pt 7 ps 0.6 \
        lc rgb nvlsim_color(1) title linetitle
} else {
    plot for [i = 1:n_series] datafile \
        using (strcol(series) eq word(nvlsim_list, i) ? column(xcol) : NaN):(column(ycol)) \
        with linespoints lw 2 pt 7 ps 0.6 lc rgb nvlsim_color(i) title word(nvlsim_list, i)
}
set output

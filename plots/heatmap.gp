# SPDX-License-Identifier: Apache-2.0
# A sweep as heat maps: one cell per pair of values of two axis columns
# (e.g. tp x pp), coloured by a measure (step time) and labelled with it;
# one panel (small multiples, on one colour scale) per combination of the
# values of the facet columns, the sweep's other axes, so that no cell
# holds two points. Axis values and panels are in the order they first
# appear in the file; a cell that appears twice in a panel shows its last
# row. An empty measure (an invalid point) leaves the cell blank, labelled
# invalid. Colours: viridis (dark is low), readable with any colour vision
# and in grey; on a log scale when the measure spans more than 10x.
#   gnuplot -e "datafile='sweep.csv'; outfile='heatmap.png'" heatmap.gp
# Variables (all optional but datafile and outfile):
#   xcol    column across     (default 'tp'; a sweep may call it 'layout.tp')
#   ycol    column up         (default 'pp')
#   zcol    the measure       (default 'step_time_s')
#   facets  columns whose values split the panels, separated by spaces
#           (default none: one panel)
#   plottitle  title above the plot
nvlsim_dir = ''
do for [nvlsim_c = strlen(ARG0):1:-1] {
    if (nvlsim_dir eq '' && ARG0[nvlsim_c:nvlsim_c] eq '/') { nvlsim_dir = ARG0[1:nvlsim_c] }
}
load nvlsim_dir.'common.gp'

if (!exists("xcol")) xcol = 'tp'
if (!exists("ycol")) ycol = 'pp'
if (!exists("zcol")) zcol = 'step_time_s'
if (!exists("facets")) facets = ''

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

# A row's panel: "key = value, key = value" over the facets.
n_facets = words(facets)
facet_of(i) = i > n_facets ? '' : \
    (i > 1 ? ', ' : '').word(facets, i).' = '.strcol(word(facets, i)).facet_of(i + 1)
nvlsim_list = ''
stats datafile using (nvlsim_collect(facet_of(1))) nooutput
p_list = nvlsim_list
n_p = words(p_list)
# With facets, a grid: the last facet's values across (up to 6), else as
# square as the panels allow.
nvlsim_list = ''
if (n_facets > 0) { stats datafile using (nvlsim_collect(strcol(word(facets, n_facets)))) nooutput }
n_last = words(nvlsim_list)
n_cols = n_p == 1 ? 1 : (n_facets > 1 && n_last <= 6 ? n_last : ceil(sqrt(n_p)))
n_rows = ceil(1.0 * n_p / n_cols)

# One colour scale for every panel; invalid points have no measure.
undefine STATS_*
stats datafile using (column(zcol)) nooutput
z_min = exists("STATS_min") ? STATS_min : 0
z_max = exists("STATS_max") ? STATS_max : 1
if (z_max <= z_min) { z_max = z_min + (z_min != 0 ? abs(z_min) * 0.01 : 1) }
# A measure over more than a factor of 10 is coloured on a log scale, so
# that the small values (the fast layouts) are told apart too.
log_cb = z_min > 0 && z_max / z_min > 10
shade(z) = log_cb ? log(z / z_min) / log(z_max / z_min) : (z - z_min) / (z_max - z_min)
# Labels white on the dark half of viridis, black on the light half.
ink(z) = shade(z) < 0.55 ? 0xffffff : 0x000000

# Panels of 70 x 50 pixels a cell at least; room in pixels for the title,
# each panel's title, tics and labels, and a column for the colour box.
panel_w = n_p == 1 ? (n_x > 8 ? 230 + 70 * n_x : 790) : (n_x > 4 ? 110 + 60 * n_x : 350)
panel_h = n_p == 1 ? (n_y > 8 ? 200 + 50 * n_y : 600) : (n_y > 4 ? 90 + 45 * n_y : 290)
top_px = (plottitle ne '' ? 36 : 0) + (n_facets > 0 ? 30 : 10)
left_px = 80
bottom_px = 55
right_px = 110
gap_x = 80
gap_y = 60 + (n_facets > 0 ? 30 : 0)
width = left_px + panel_w * n_cols + gap_x * (n_cols - 1) + right_px
height = top_px + panel_h * n_rows + gap_y * (n_rows - 1) + bottom_px
eval nvlsim_terminal(width, height)
set output outfile
right = 1.0 - 1.0 * right_px / width
top = 1.0 - 1.0 * top_px / height
bottom = 1.0 * bottom_px / height
set multiplot layout n_rows, n_cols title plottitle noenhanced \
    margins screen 1.0 * left_px / width, screen right, screen bottom, screen top \
    spacing screen 1.0 * gap_x / width, screen 1.0 * gap_y / height
set xlabel xcol noenhanced
set ylabel ycol noenhanced
set cblabel (zcol eq 'step_time_s' ? 'step time (s)' : zcol) noenhanced
set xrange [0.5:n_x + 0.5]
set yrange [0.5:n_y + 0.5]
set cbrange [z_min:z_max]
if (log_cb) { set logscale cb }
set xtics () scale 0
set ytics () scale 0
do for [i = 1:n_x] { set xtics add (word(x_list, i) i) }
do for [i = 1:n_y] { set ytics add (word(y_list, i) i) }
unset grid
set key off
set palette defined (0 '#440154', 0.125 '#472d7b', 0.25 '#3b528b', 0.375 '#2c728e', \
    0.5 '#21918c', 0.625 '#28ae80', 0.75 '#5ec962', 0.875 '#addc30', 1 '#fde725')
set style fill solid 1.0 noborder
# The colour box once, beside the grid, for all panels.
set colorbox user origin screen right + 20.0 / width, screen bottom \
    size screen 18.0 / width, screen top - bottom

do for [p = 1:n_p] {
    panel = word(p_list, p)
    set title (n_facets > 0 ? panel : '') noenhanced
    plot datafile using (facet_of(1) eq panel ? nvlsim_index(x_list, strcol(xcol)) : NaN): \
            (nvlsim_index(y_list, strcol(ycol))):(0.5):(0.5):(column(zcol)) \
            with boxxyerror fc palette, \
         '' using (facet_of(1) eq panel ? nvlsim_index(x_list, strcol(xcol)) : NaN): \
            (nvlsim_index(y_list, strcol(ycol))): \
            (strcol(zcol) eq '' ? 'invalid' : sprintf('%.4g', column(zcol))): \
            (strcol(zcol) eq '' ? 0x000000 : ink(column(zcol))) \
            with labels tc rgb variable
    unset colorbox
}
unset multiplot
set output

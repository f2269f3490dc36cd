# SPDX-License-Identifier: Apache-2.0
# Shared by nvlsim's plot templates (loaded by each, never run alone): checks
# the two variables every template needs, reads CSV with a header row (columns
# are found by name), and picks the terminal from the output's extension.
#   datafile  the CSV to read
#   outfile   the image to write: NAME.png (pngcairo, or png without cairo),
#             NAME.svg, or NAME.pdf (pdfcairo: a gnuplot without cairo stops
#             with one line naming the terminal it lacks)
#   nvlsim_terminals  the terminals to choose from (default GPVAL_TERMINALS;
#             set it to check what a gnuplot without cairo does)
#   plottitle optional title above the plot
# A template calls nvlsim_terminal(width, height) with eval, then plots.

if (!exists("datafile") || !exists("outfile")) {
    print "usage: gnuplot -e \"datafile='IN.csv'; outfile='OUT.png'\" TEMPLATE.gp (or OUT.svg)"
    exit status 2
}
if (!exists("plottitle")) plottitle = ''

set datafile separator ','
set key autotitle columnhead
# A row filtered out of one series evaluates to NaN; treating NaN as missing
# keeps each series' line unbroken across the other series' rows.
set datafile missing NaN

nvlsim_ext = strlen(outfile) > 4 ? outfile[strlen(outfile)-3:] : ''
if (nvlsim_ext ne '.png' && nvlsim_ext ne '.PNG' && nvlsim_ext ne '.svg' && nvlsim_ext ne '.SVG' && \
    nvlsim_ext ne '.pdf' && nvlsim_ext ne '.PDF') {
    print sprintf("%s: expected a file name ending in .png, .svg or .pdf", outfile)
    exit status 2
}
if (!exists("nvlsim_terminals")) nvlsim_terminals = GPVAL_TERMINALS
nvlsim_has(t) = strstrt(' '.nvlsim_terminals.' ', ' '.t.' ') > 0
nvlsim_svg = nvlsim_ext eq '.svg' || nvlsim_ext eq '.SVG'
nvlsim_pdf = nvlsim_ext eq '.pdf' || nvlsim_ext eq '.PDF'
if (nvlsim_pdf && !nvlsim_has('pdfcairo')) {
    print "PDF needs gnuplot's pdfcairo terminal, which this gnuplot lacks (built without " . \
          "cairo): write .png or .svg, or use a gnuplot with cairo"
    exit status 1
}
nvlsim_png = nvlsim_has('pngcairo') ? 'pngcairo' : 'png'
# A PDF page in inches, at 100 of the templates' pixels an inch.
nvlsim_terminal(w, h) = nvlsim_svg ? \
    sprintf("set terminal svg size %d,%d dynamic enhanced font 'Sans,12' background rgb 'white'", w, h) : \
    nvlsim_pdf ? \
    sprintf("set terminal pdfcairo size %.2fin,%.2fin enhanced font 'Sans,10'", w / 100.0, h / 100.0) : \
    nvlsim_png eq 'pngcairo' ? \
    sprintf("set terminal pngcairo size %d,%d enhanced font 'Sans,10' background rgb 'white'", w, h) : \
    sprintf("set terminal png size %d,%d enhanced", w, h)

# After a stats command: stop with an error when it found no rows. Usage:
# undefine STATS_*; stats ...; eval nvlsim_need_rows
nvlsim_need_rows = "if (!exists('STATS_records') || STATS_records == 0) { " . \
    "print sprintf('%s: no rows to plot', datafile); exit status 1 }"

# The distinct values of a text column, in the order they first appear, as a
# list for word() and words(): each value quoted, so spaces are kept.
# Usage: nvlsim_list = ''; stats datafile using (nvlsim_collect(strcol(COL))) nooutput
nvlsim_collect(s) = (strstrt(nvlsim_list, '"'.s.'"') == 0 ? \
    nvlsim_list = nvlsim_list.'"'.s.'" ' : 0, 0)
# Position (1 ...) of value s in a list made by nvlsim_collect, 0 if absent.
nvlsim_index(list, s) = sum [nvlsim_i = 1:words(list)] (word(list, nvlsim_i) eq s ? nvlsim_i : 0)

# Colours shared by the templates (colour-blind safe, Okabe-Ito).
nvlsim_colors = "#0072B2 #E69F00 #009E73 #CC79A7 #56B4E9 #D55E00 #F0E442 #000000"
nvlsim_color(i) = word(nvlsim_colors, (i - 1) % words(nvlsim_colors) + 1)
do for [nvlsim_i = 1:words(nvlsim_colors)] { set linetype nvlsim_i lc rgb nvlsim_color(nvlsim_i) }
set linetype cycle words(nvlsim_colors)

set grid back lc rgb '#dddddd'
set border lc rgb '#444444'

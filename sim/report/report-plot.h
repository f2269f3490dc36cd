/* SPDX-License-Identifier: Apache-2.0 */
/* Plots: a CSV rendered by a gnuplot template of plots/ (busbw, breakdown,
 * compare, heatmap, scatter, linkutil), gnuplot run as a program. */
#pragma once

#include <glib.h>
#include <stdbool.h>

/* Seconds gnuplot may take to render a plot before it is stopped, unless
 * $NVLSIM_GNUPLOT_TIMEOUT gives another limit (seconds, 0 for none). */
#define REPORT_PLOT_TIMEOUT_S 60

/* The templates folder: $NVLSIM_PLOTS if set and not empty (a folder that
 * replaces the shipped templates), else the data folder's plots/
 * (sim_data_dir: the source tree's for the build tree's nvlsim, else the
 * installed ones). The string is the program's: do not free it. */
const char *report_plots_dir(void);

/* Whether out_path names a plot nvlsim can write: a name ending in .png,
 * .svg or .pdf (any case), with no line break (a gnuplot string cannot
 * hold one). False and an error naming the path otherwise. Whether this
 * gnuplot has the terminal a name needs (pdfcairo for .pdf) is known only
 * when it runs: the template stops with a line naming the terminal. */
bool report_plot_check(const char *out_path, GError **error);

/* The script report_plot writes for out_path: the same name with .gp in
 * place of .png, .svg or .pdf (newly allocated). */
char *report_plot_script_path(const char *out_path);

/* Renders csv_path to out_path (.png, .svg or .pdf) with template_name.gp.
 * Writes the script report_plot_script_path(out_path): the variables
 * (datafile, outfile and each pair of extra_vars, a NULL-terminated list
 * name, value, name, value, ..., values set as strings), then a load of the
 * template, so that "gnuplot SCRIPT" renders the plot again. Then runs
 * gnuplot on it (no shell) into a temporary beside out_path, renamed into
 * place when gnuplot succeeds: the image appears whole or not at all.
 * When gnuplot is not on PATH it writes the script only, returns true and
 * sets *note (newly allocated) to a line saying how to render it;
 * otherwise *note is NULL. False and an error (the template missing, the
 * script unwritable, gnuplot failing with its last message, gnuplot taking
 * longer than REPORT_PLOT_TIMEOUT_S or $NVLSIM_GNUPLOT_TIMEOUT seconds:
 * then it is killed, with all it started) otherwise. */
bool report_plot(const char *template_name, const char *csv_path, const char *out_path,
                 const char *const *extra_vars, char **note, GError **error);

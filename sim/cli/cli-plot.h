/* SPDX-License-Identifier: Apache-2.0 */
/* --plot FILE on the commands that write a CSV (coll, run, validate): the
 * CSV rendered by a template of plots/ (report-plot.h). */
#pragma once

#include <stdbool.h>

/* Checks --plot's FILE before any work: true when it names a .png, .svg
 * or .pdf; otherwise prints "nvlsim COMMAND: --plot: ..." on stderr and
 * returns false (a usage error). */
bool cli_plot_check(const char *command, const char *plot_path);

/* Checks --plot as cli_plot_check does, then the CSV it reads: the one
 * --csv names (*csv), or one beside the plot (newly allocated into *csv)
 * without --csv; false after printing an error, or for --csv - (standard
 * output, which the plot cannot read). */
bool cli_plot_csv(const char *command, const char *plot_path, char **csv);

/* Renders csv_path into plot_path with template_name and vars (name, value
 * pairs, NULL-terminated; see report_plot). When gnuplot is missing, prints
 * a note on how to render the written script and returns true; on failure
 * (gnuplot's timeout included) prints one line, "nvlsim COMMAND: plot
 * PLOT: why; the CSV CSV is kept", and returns false (the command exits
 * 1). */
bool cli_plot(const char *command, const char *template_name, const char *csv_path,
              const char *plot_path, const char *const *vars);

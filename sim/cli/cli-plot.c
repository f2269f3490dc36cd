/* SPDX-License-Identifier: Apache-2.0 */
/* --plot FILE: checks the name before a command runs, picks the CSV's name
 * when --csv is not given, and reports gnuplot's absence, failure or
 * timeout as one line on stderr naming the plot and the CSV it keeps. The
 * rendering itself is report_plot's.
 */
#include "cli/cli-plot.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report-plot.h"

bool
cli_plot_check(const char *command, const char *plot_path)
{
    g_autoptr(GError) error = NULL;
    if (report_plot_check(plot_path, &error))
        return true;
    g_prefix_error(&error, "--plot: ");
    cli_print_error(command, error);
    return false;
}

bool
cli_plot_csv(const char *command, const char *plot_path, char **csv)
{
    if (!cli_plot_check(command, plot_path))
        return false;
    if (*csv != NULL && strcmp(*csv, "-") == 0) {
        fprintf(stderr,
                "nvlsim %s: --csv: '-': expected a file for --plot %s to read (or no --csv: "
                "the CSV goes beside the plot)\n",
                command, plot_path);
        return false;
    }
    if (*csv == NULL) {
        g_autofree char *script = report_plot_script_path(plot_path);
        *csv = g_strdup_printf("%.*s.csv", (int)(strlen(script) - strlen(".gp")), script);
    }
    return true;
}

bool
cli_plot(const char *command, const char *template_name, const char *csv_path,
         const char *plot_path, const char *const *vars)
{
    g_autoptr(GError) error = NULL;
    g_autofree char *note = NULL;
    if (!report_plot(template_name, csv_path, plot_path, vars, &note, &error)) {
        /* One line: which plot, why, and that the data is not lost. */
        fprintf(stderr, "nvlsim %s: plot %s: %s; the CSV %s is kept\n", command, plot_path,
                error->message, csv_path);
        return false;
    }
    if (note != NULL)
        fprintf(stderr, "nvlsim %s: %s\n", command, note);
    return true;
}

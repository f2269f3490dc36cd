/* SPDX-License-Identifier: Apache-2.0 */
/* Plots with gnuplot. nvlsim writes its CSV, then a short script that sets
 * a template's variables and loads the template, then runs gnuplot on that
 * script as a program (g_spawn with an argv: no shell, so no quoting of file
 * names for one), in a process group of its own that is stopped past a
 * timeout. The templates (plots/NAME.gp) read columns by name, so a CSV
 * that gains or reorders columns still plots. gnuplot is optional: without
 * it the script is still written, to be rendered wherever gnuplot is.
 */
#include "report/report-plot.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/core-data.h"
#include "core/core-output.h"

const char *
report_plots_dir(void)
{
    const char *env = g_getenv("NVLSIM_PLOTS");
    if (env != NULL && *env != '\0')
        return env;
    g_autofree char *shipped = sim_data_path("plots");
    return g_intern_string(shipped);
}

/* The extension of path when it is .png, .svg or .pdf (any case) after a
 * name of at least one character; NULL otherwise. */
static const char *
plot_extension(const char *path)
{
    g_autofree char *base = g_path_get_basename(path);
    size_t n = strlen(path);
    if (strlen(base) <= 4)
        return NULL;
    const char *ext = path + n - 4;
    static const char *const known[] = {".png", ".svg", ".pdf"};
    for (size_t i = 0; i < G_N_ELEMENTS(known); i++)
        if (g_ascii_strcasecmp(ext, known[i]) == 0)
            return ext;
    return NULL;
}

bool
report_plot_check(const char *out_path, GError **error)
{
    if (plot_extension(out_path) == NULL) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: expected a plot file name ending in .png, .svg or .pdf", out_path);
        return false;
    }
    if (strpbrk(out_path, "\n\r") != NULL) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: a plot file name cannot hold a line break", out_path);
        return false;
    }
    return true;
}

char *
report_plot_script_path(const char *out_path)
{
    const char *ext = plot_extension(out_path);
    size_t stem = ext != NULL ? (size_t)(ext - out_path) : strlen(out_path);
    return g_strdup_printf("%.*s.gp", (int)stem, out_path);
}

/* Appends text as a gnuplot single-quoted string, where '' stands for one
 * quote and nothing else is special. */
static void
append_quoted(GString *out, const char *text)
{
    g_string_append_c(out, '\'');
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '\'')
            g_string_append_c(out, '\'');
        g_string_append_c(out, *p);
    }
    g_string_append_c(out, '\'');
}

/* Appends: name = 'value' unless -e set name first. A gnuplot string
 * cannot hold a line break: false and an error then. */
static bool
append_variable(GString *out, const char *name, const char *value, GError **error)
{
    if (strpbrk(value, "\n\r") != NULL) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "plot variable %s: '%s' holds a line break, which gnuplot cannot read", name,
                    value);
        return false;
    }
    g_string_append_printf(out, "if (!exists(\"%s\")) %s = ", name, name);
    append_quoted(out, value);
    g_string_append_c(out, '\n');
    return true;
}

static bool
is_identifier(const char *name)
{
    if (!g_ascii_isalpha(name[0]) && name[0] != '_')
        return false;
    for (const char *p = name; *p != '\0'; p++)
        if (!g_ascii_isalnum(*p) && *p != '_')
            return false;
    return true;
}

/* Writes the script (whole or not at all): the variables, then the load of
 * the template. Paths are absolute so that it renders from any folder. */
static bool
write_script(const char *script, const char *template_path, const char *csv_path,
             const char *out_path, const char *const *extra_vars, GError **error)
{
    g_autofree char *csv_abs = g_canonicalize_filename(csv_path, NULL);
    g_autofree char *out_abs = g_canonicalize_filename(out_path, NULL);
    g_autoptr(GString) text = g_string_new(NULL);
    g_string_append_printf(text,
                           "# Written by nvlsim. Render the plot again with: gnuplot %s\n"
                           "# (a variable set before it with -e wins: -e \"outfile='x.svg'\")\n",
                           script);
    if (!append_variable(text, "datafile", csv_abs, error) ||
        !append_variable(text, "outfile", out_abs, error))
        return false;
    for (const char *const *v = extra_vars; v != NULL && v[0] != NULL; v += 2) {
        g_return_val_if_fail(is_identifier(v[0]) && v[1] != NULL, false);
        if (!append_variable(text, v[0], v[1], error))
            return false;
    }
    if (strpbrk(template_path, "\n\r") != NULL) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: a template path with a line break cannot be loaded", template_path);
        return false;
    }
    g_string_append(text, "load ");
    append_quoted(text, template_path);
    g_string_append_c(text, '\n');
    if (sim_output_write_all(script, text->str, text->len, error))
        return true;
    g_prefix_error(error, "plot script: ");
    return false;
}

/* The last non-empty line of text, without surrounding blanks (newly
 * allocated; "" when none). */
static char *
last_line(const char *text)
{
    g_auto(GStrv) lines = g_strsplit(text != NULL ? text : "", "\n", -1);
    for (guint i = g_strv_length(lines); i > 0; i--) {
        g_strstrip(lines[i - 1]);
        if (lines[i - 1][0] != '\0')
            return g_strdup(lines[i - 1]);
    }
    return g_strdup("");
}

/* How long gnuplot may take: $NVLSIM_GNUPLOT_TIMEOUT seconds (0: no
 * limit), else REPORT_PLOT_TIMEOUT_S. */
static bool
gnuplot_timeout_s(double *out, GError **error)
{
    const char *env = g_getenv("NVLSIM_GNUPLOT_TIMEOUT");
    *out = REPORT_PLOT_TIMEOUT_S;
    if (env == NULL || *env == '\0')
        return true;
    char *end = NULL;
    double t = g_ascii_strtod(env, &end);
    if (end == env || *end != '\0' || !(t >= 0 && t <= 86400)) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "NVLSIM_GNUPLOT_TIMEOUT: '%s' is not a number of seconds from 0 (no limit) to "
                    "86400, such as 60",
                    env);
        return false;
    }
    *out = t;
    return true;
}

/* In the child, before exec: a process group of its own, so that a
 * timeout or an interrupt stops gnuplot and whatever it started. */
static void
own_group(gpointer data)
{
    (void)data;
    setpgid(0, 0);
}

/* Reads what is ready on fd (stderr of the child) into text, keeping the
 * last 64 KiB; false at the end of the stream. */
static bool
read_some(int fd, GString *text)
{
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN;
    g_string_append_len(text, buf, n);
    if (text->len > 65536)
        g_string_erase(text, 0, (gssize)(text->len - 65536));
    return n > 0;
}

/* Waits for pid while reading its stderr from fd, at most limit_s seconds
 * (0: no limit). True with *wait_status when it ended in time. */
static bool
wait_child(GPid pid, int fd, double limit_s, GString *err_text, int *wait_status)
{
    gint64 deadline = g_get_monotonic_time() + (gint64)(limit_s * G_USEC_PER_SEC);
    bool reading = true;
    for (;;) {
        pid_t done = waitpid(pid, wait_status, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR)) {
            /* What it wrote last, without waiting on a grandchild that
             * holds the pipe open. */
            struct pollfd p = {fd, POLLIN, 0};
            while (reading && poll(&p, 1, 0) > 0 && read_some(fd, err_text))
                ;
            return done == pid;
        }
        gint64 left_us = limit_s > 0 ? deadline - g_get_monotonic_time() : G_USEC_PER_SEC;
        if (left_us <= 0)
            return false;
        int wait_ms = (int)MIN(left_us / 1000 + 1, 50);
        struct pollfd p = {fd, POLLIN, 0};
        if (reading && poll(&p, 1, wait_ms) > 0)
            reading = read_some(fd, err_text);
        else if (!reading)
            g_usleep((gulong)wait_ms * 1000);
    }
}

/* Runs gnuplot on script with outfile set to tmp_path (argv, no shell),
 * stopped (its whole process group) past the timeout. */
static bool
run_gnuplot(const char *gnuplot, const char *script, const char *tmp_path, GError **error)
{
    double limit_s;
    if (!gnuplot_timeout_s(&limit_s, error))
        return false;
    g_autoptr(GString) set_out = g_string_new("outfile = ");
    append_quoted(set_out, tmp_path);
    char *argv[] = {(char *)gnuplot, "-e", set_out->str, (char *)script, NULL};
    GPid pid;
    int err_fd = -1;
    if (!g_spawn_async_with_pipes(NULL, argv, NULL,
                                  G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, own_group,
                                  NULL, &pid, NULL, NULL, &err_fd, error)) {
        g_prefix_error(error, "%s: ", gnuplot);
        return false;
    }
    /* Here too: whichever of the two runs first, the group exists before
     * it is signalled. */
    setpgid(pid, pid);
    sim_output_child_add(pid);
    g_autoptr(GString) err_text = g_string_new(NULL);
    int wait_status = 0;
    bool in_time = wait_child(pid, err_fd, limit_s, err_text, &wait_status);
    if (!in_time) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR)
            ;
    }
    sim_output_child_remove(pid);
    close(err_fd);
    if (!in_time) {
        g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                    "gnuplot %s gave no plot within %g s and was stopped "
                    "(NVLSIM_GNUPLOT_TIMEOUT sets the limit in seconds)",
                    script, limit_s);
        return false;
    }
    GStatBuf st;
    if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) {
        if (g_stat(tmp_path, &st) == 0 && st.st_size > 0)
            return true;
        g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                    "gnuplot %s wrote no image (is the CSV empty?)", script);
        return false;
    }
    g_autofree char *why = last_line(err_text->str);
    if (WIFEXITED(wait_status))
        g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, "gnuplot %s failed (status %d)%s%s",
                    script, WEXITSTATUS(wait_status), *why ? ": " : "", why);
    else
        g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                    "gnuplot %s was killed by signal %d%s%s", script, WTERMSIG(wait_status),
                    *why ? ": " : "", why);
    return false;
}

/* Renders into a temporary beside out_path (same extension, which picks
 * the terminal), renamed into place on success and removed otherwise. */
static bool
render(const char *gnuplot, const char *script, const char *out_path, GError **error)
{
    g_autofree char *tmp = NULL;
    int fd = sim_output_temp(out_path, plot_extension(out_path), &tmp, error);
    if (fd < 0)
        return false;
    close(fd);
    if (!run_gnuplot(gnuplot, script, tmp, error)) {
        sim_output_temp_remove(tmp);
        return false;
    }
    return sim_output_rename(tmp, out_path, error);
}

bool
report_plot(const char *template_name, const char *csv_path, const char *out_path,
            const char *const *extra_vars, char **note, GError **error)
{
    *note = NULL;
    if (!report_plot_check(out_path, error))
        return false;
    g_autofree char *file = g_strconcat(template_name, ".gp", NULL);
    g_autofree char *template_path = g_build_filename(report_plots_dir(), file, NULL);
    if (!g_file_test(template_path, G_FILE_TEST_IS_REGULAR)) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "no plot template %s (set NVLSIM_PLOTS to the folder of nvlsim's plots/)",
                    template_path);
        return false;
    }
    g_autofree char *template_abs = g_canonicalize_filename(template_path, NULL);
    g_autofree char *script = report_plot_script_path(out_path);
    if (!write_script(script, template_abs, csv_path, out_path, extra_vars, error))
        return false;
    g_autofree char *gnuplot = g_find_program_in_path("gnuplot");
    if (gnuplot == NULL) {
        *note = g_strdup_printf("gnuplot not found: render with: gnuplot %s", script);
        return true;
    }
    return render(gnuplot, script, out_path, error);
}

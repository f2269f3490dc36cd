/* SPDX-License-Identifier: Apache-2.0 */
/* The progress line of validate and sweep (cli-progress.h): text made from
 * the counts at most every quarter second, written with a carriage return
 * in front and blanks after it to cover a longer line before, and erased
 * with blanks (no terminal escape sequences: any terminal, and script(1)'s
 * logs, read it). Wall-clock time from GLib's monotonic clock.
 */
#include "cli/cli-progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The text is remade at most this often. */
#define REDRAW_US (G_USEC_PER_SEC / 4)
/* Done before a second has passed, this many give a rate worth showing. */
#define SETTLED_COUNT 8

struct CliProgress {
    char *unit;
    uint64_t n_total;
    bool active;
    bool stdout_tty;  /* rows on stdout land on the terminal too */
    bool shown;       /* the line is on the terminal */
    gint64 t0_us;     /* started */
    gint64 made_us;   /* the text was made; 0: never */
    char text[160];   /* the line as last made */
    size_t shown_len; /* the characters on the terminal */
};

CliProgress *
cli_progress_new(const char *unit, uint64_t n_total)
{
    CliProgress *p = g_new0(CliProgress, 1);
    p->unit = g_strdup(unit);
    p->n_total = n_total;
    p->active = isatty(STDERR_FILENO);
    p->stdout_tty = isatty(STDOUT_FILENO);
    p->t0_us = g_get_monotonic_time();
    return p;
}

void
cli_progress_free(CliProgress *p)
{
    if (p == NULL)
        return;
    cli_progress_hide(p);
    g_free(p->unit);
    g_free(p);
}

bool
cli_progress_active(const CliProgress *p)
{
    return p != NULL && p->active;
}

void
cli_progress_format_duration(char *buf, size_t size, double s)
{
    unsigned long t = (unsigned long)(s + 0.5);
    if (t >= 3600)
        g_snprintf(buf, size, "%luh%02lum", t / 3600, t / 60 % 60);
    else if (t >= 60)
        g_snprintf(buf, size, "%lum%02lus", t / 60, t % 60);
    else
        g_snprintf(buf, size, "%lus", t);
}

/* The line: done of the total, then the rate and the time left once they
 * mean something: a second has passed, or SETTLED_COUNT are done (and a
 * quarter second). The first two points of a sweep taken for its rate
 * made an ETA 3x short. */
static void
make_text(CliProgress *p, uint64_t n_done, uint64_t n_run, double eta_s, gint64 now_us)
{
    gint64 elapsed_us = now_us - p->t0_us;
    double elapsed_s = (double)elapsed_us / G_USEC_PER_SEC;
    GString *t = g_string_new(NULL);
    g_string_printf(t, "%" G_GUINT64_FORMAT, n_done);
    if (p->n_total > 0)
        g_string_append_printf(t, "/%" G_GUINT64_FORMAT, p->n_total);
    g_string_append_printf(t, " %s", p->unit);
    if (n_run > 0 && elapsed_us >= REDRAW_US &&
        (elapsed_us >= G_USEC_PER_SEC || n_run >= SETTLED_COUNT)) {
        double rate = (double)n_run / elapsed_s;
        g_string_append_printf(t, ", %.*f %s/s", rate < 10 ? 2 : 1, rate, p->unit);
        if (p->n_total > 0 && n_done < p->n_total && eta_s < 0)
            eta_s = (double)(p->n_total - n_done) / rate;
        if (p->n_total > 0) {
            char eta[32];
            cli_progress_format_duration(eta, sizeof eta, n_done < p->n_total ? eta_s : 0);
            g_string_append_printf(t, ", ETA %s", eta);
        }
    }
    g_strlcpy(p->text, t->str, sizeof p->text);
    g_string_free(t, TRUE);
    p->made_us = now_us;
}

void
cli_progress_update(CliProgress *p, uint64_t n_done, uint64_t n_run, double eta_s)
{
    if (!cli_progress_active(p))
        return;
    gint64 now_us = g_get_monotonic_time();
    bool stale = p->made_us == 0 || now_us - p->made_us >= REDRAW_US;
    if (!stale && p->shown)
        return;
    if (stale)
        make_text(p, n_done, n_run, eta_s, now_us);
    size_t len = strlen(p->text);
    /* Blanks cover what a longer line before left. */
    int pad = p->shown && p->shown_len > len ? (int)(p->shown_len - len) : 0;
    fprintf(stderr, "\r%s%*s", p->text, pad, "");
    if (pad > 0)
        fprintf(stderr, "\r%s", p->text);
    fflush(stderr);
    p->shown = true;
    p->shown_len = len;
}

void
cli_progress_hide(CliProgress *p)
{
    if (!cli_progress_active(p) || !p->shown)
        return;
    fprintf(stderr, "\r%*s\r", (int)p->shown_len, "");
    fflush(stderr);
    p->shown = false;
}

void
cli_progress_before_output(CliProgress *p, FILE *stream)
{
    if (cli_progress_active(p) && (stream == stderr || (stream == stdout && p->stdout_tty)))
        cli_progress_hide(p);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Sweeps split into latency and bandwidth (judge-decompose.h). */
#include "judge/judge-decompose.h"

#include <math.h>
#include <string.h>

typedef struct Point {
    double bytes, measured, simulated;
    const char *ran; /* interned */
} Point;

typedef struct Sweep {
    JudgeSweep pub;
    GArray *points; /* Point */
} Sweep;

struct JudgeDecompose {
    GHashTable *by_key; /* key -> Sweep * (owned by sweeps) */
    GPtrArray *sweeps;  /* Sweep *, as first added */
    GPtrArray *ranked;  /* JudgeSweep *, the last judge_decompose_sweeps */
};

void
judge_line_fit(const double *bytes, const double *us, const double *weight, guint n,
               JudgeLine *line)
{
    double sw = 0, sb = 0, st = 0;
    for (guint i = 0; i < n; i++) {
        double w = weight != NULL ? weight[i] : 1.0;
        sw += w;
        sb += w * bytes[i];
        st += w * us[i];
    }
    *line = (JudgeLine){.alpha_us = sw > 0 ? st / sw : NAN, .beta_gbps = NAN};
    if (!(sw > 0))
        return;
    /* Centred on the weighted means, so that sizes of 2^34 bytes lose no
     * digits to their squares. */
    double mb = sb / sw, mt = st / sw, sbb = 0, sbt = 0;
    for (guint i = 0; i < n; i++) {
        double w = weight != NULL ? weight[i] : 1.0;
        sbb += w * (bytes[i] - mb) * (bytes[i] - mb);
        sbt += w * (bytes[i] - mb) * (us[i] - mt);
    }
    if (!(sbb > 0))
        return;
    double us_per_byte = sbt / sbb;
    line->fitted = true;
    line->alpha_us = mt - us_per_byte * mb;
    line->beta_gbps = us_per_byte > 0 ? 1.0 / (us_per_byte * 1e3) : INFINITY;
}

double
judge_line_time(const JudgeLine *line, double bytes)
{
    return line->alpha_us + (isfinite(line->beta_gbps) ? bytes / (line->beta_gbps * 1e3) : 0.0);
}

JudgeDecompose *
judge_decompose_new(void)
{
    JudgeDecompose *d = g_new0(JudgeDecompose, 1);
    d->by_key = g_hash_table_new(g_str_hash, g_str_equal);
    d->sweeps = g_ptr_array_new();
    return d;
}

static void
piece_free(gpointer data)
{
    JudgePiece *p = data;
    g_free(p->ran);
    g_free(p);
}

static void
sweep_free(Sweep *s)
{
    g_free(s->pub.key);
    g_free(s->pub.system);
    g_free(s->pub.collective);
    g_free(s->pub.source);
    g_free(s->pub.harness);
    if (s->pub.pieces != NULL)
        g_ptr_array_unref(s->pub.pieces);
    g_array_unref(s->points);
    g_free(s);
}

void
judge_decompose_free(JudgeDecompose *d)
{
    if (d == NULL)
        return;
    for (guint i = 0; i < d->sweeps->len; i++)
        sweep_free(g_ptr_array_index(d->sweeps, i));
    g_ptr_array_unref(d->sweeps);
    g_hash_table_unref(d->by_key);
    if (d->ranked != NULL)
        g_ptr_array_unref(d->ranked);
    g_free(d);
}

void
judge_decompose_add(JudgeDecompose *d, const char *system, const char *collective, uint32_t n_ranks,
                    uint32_t n_hosts, uint32_t n_domains, const char *source, const char *harness,
                    const char *ran, double bytes, double measured_us, double simulated_us)
{
    g_return_if_fail(d != NULL);
    if (!(measured_us > 0) || !(simulated_us > 0) || !isfinite(measured_us) ||
        !isfinite(simulated_us))
        return;
    g_autofree char *key = g_strdup_printf("%s|%s|%u|%u|%u|%s|%s", system, collective, n_ranks,
                                           n_hosts, n_domains, source, harness);
    Sweep *s = g_hash_table_lookup(d->by_key, key);
    if (s == NULL) {
        s = g_new0(Sweep, 1);
        s->pub = (JudgeSweep){
            .key = g_steal_pointer(&key),
            .system = g_strdup(system),
            .collective = g_strdup(collective),
            .source = g_strdup(source),
            .harness = g_strdup(harness),
            .n_ranks = n_ranks,
            .n_hosts = n_hosts,
            .n_domains = n_domains,
        };
        s->points = g_array_new(FALSE, FALSE, sizeof(Point));
        g_hash_table_insert(d->by_key, s->pub.key, s);
        g_ptr_array_add(d->sweeps, s);
    }
    Point p = {bytes, measured_us, simulated_us, g_intern_string(ran)};
    g_array_append_val(s->points, p);
}

static gint
by_bytes(gconstpointer a, gconstpointer b)
{
    const Point *p = a, *q = b;
    return (p->bytes > q->bytes) - (p->bytes < q->bytes);
}

/* The piece of points [from, to): both lines on the measured weights, and
 * the share of the miss each explains. */
static JudgePiece *
piece_fit(const Point *pt, guint from, guint to)
{
    guint n = to - from;
    g_autofree double *b = g_new(double, n), *m = g_new(double, n), *s = g_new(double, n),
                      *w = g_new(double, n);
    for (guint i = 0; i < n; i++) {
        b[i] = pt[from + i].bytes;
        m[i] = pt[from + i].measured;
        s[i] = pt[from + i].simulated;
        w[i] = 1.0 / (m[i] * m[i]);
    }
    JudgePiece *p = g_new0(JudgePiece, 1);
    p->ran = g_strdup(pt[from].ran);
    p->n_rows = n;
    p->min_bytes = b[0];
    p->max_bytes = b[n - 1];
    judge_line_fit(b, m, w, n, &p->measured);
    judge_line_fit(b, s, w, n, &p->simulated);
    if (!p->measured.fitted || !p->simulated.fitted) {
        p->latency_pct = p->bandwidth_pct = NAN;
        return p;
    }
    double per_byte_m = isfinite(p->measured.beta_gbps) ? 1.0 / (p->measured.beta_gbps * 1e3) : 0;
    double per_byte_s = isfinite(p->simulated.beta_gbps) ? 1.0 / (p->simulated.beta_gbps * 1e3) : 0;
    double lat = 0, bw = 0;
    for (guint i = 0; i < n; i++) {
        lat += fabs(p->simulated.alpha_us - p->measured.alpha_us) / m[i];
        bw += fabs(b[i] * (per_byte_s - per_byte_m)) / m[i];
    }
    p->latency_pct = 100.0 * lat / n;
    p->bandwidth_pct = 100.0 * bw / n;
    return p;
}

static gint
by_share(gconstpointer a, gconstpointer b)
{
    const JudgeSweep *s = *(JudgeSweep *const *)a, *t = *(JudgeSweep *const *)b;
    if (s->share != t->share)
        return s->share < t->share ? 1 : -1;
    return strcmp(s->key, t->key);
}

GPtrArray *
judge_decompose_sweeps(JudgeDecompose *d)
{
    g_return_val_if_fail(d != NULL, NULL);
    if (d->ranked != NULL)
        g_ptr_array_unref(d->ranked);
    d->ranked = g_ptr_array_new();
    double total = 0;
    for (guint k = 0; k < d->sweeps->len; k++) {
        Sweep *s = g_ptr_array_index(d->sweeps, k);
        g_array_sort(s->points, by_bytes);
        if (s->pub.pieces != NULL)
            g_ptr_array_unref(s->pub.pieces);
        s->pub.pieces = g_ptr_array_new_with_free_func(piece_free);
        s->pub.sum_abs_pct = 0;
        const Point *pt = (const Point *)(void *)s->points->data;
        guint n = s->points->len, from = 0;
        for (guint i = 0; i < n; i++) {
            s->pub.sum_abs_pct += 100.0 * fabs(pt[i].simulated - pt[i].measured) / pt[i].measured;
            if (i + 1 == n || pt[i + 1].ran != pt[from].ran) {
                g_ptr_array_add(s->pub.pieces, piece_fit(pt, from, i + 1));
                from = i + 1;
            }
        }
        s->pub.n_rows = n;
        total += s->pub.sum_abs_pct;
        g_ptr_array_add(d->ranked, &s->pub);
    }
    for (guint k = 0; k < d->ranked->len; k++) {
        JudgeSweep *s = g_ptr_array_index(d->ranked, k);
        s->share = total > 0 ? s->sum_abs_pct / total : 0;
    }
    g_ptr_array_sort(d->ranked, by_share);
    return d->ranked;
}

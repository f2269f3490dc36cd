/* SPDX-License-Identifier: Apache-2.0 */
/* Link utilization summed for a plot: per link class and for the busiest
 * links (the series are described in report-links.h). One pass over the
 * load's bins of every link, then one pass per chosen link: a study of 864
 * links and 640 bins is summed in a few milliseconds, and its CSV is 641
 * rows of a dozen columns instead of half a million rows in long format.
 * Wire bytes (payload and headers) over the bundle's rate per direction.
 */
#include "report/report-links.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core-output.h"
#include "core/core-time.h"
#include "core/core-csv.h"

char *
report_link_class(const TopoGraph *graph, uint32_t link)
{
    const TopoLink *l = topo_graph_link(graph, link);
    TopoVertexKind a = topo_graph_vertex(graph, l->src)->kind;
    TopoVertexKind b = topo_graph_vertex(graph, l->dst)->kind;
    if (b < a) {
        TopoVertexKind t = a;
        a = b;
        b = t;
    }
    return g_strdup_printf("%s %s-%s", hw_link_kind_name(l->spec->kind), topo_vertex_kind_name(a),
                           topo_vertex_kind_name(b));
}

static void
series_free(gpointer data)
{
    ReportLinkSeries *s = data;
    g_free(s->name);
    g_free(s->utilization);
    g_free(s);
}

static ReportLinkSeries *
series_new(char *name, uint32_t n_bins)
{
    ReportLinkSeries *s = g_new0(ReportLinkSeries, 1);
    s->name = name;
    s->utilization = g_new0(double, n_bins);
    return s;
}

void
report_link_summary_free(ReportLinkSummary *summary)
{
    if (summary == NULL)
        return;
    g_ptr_array_free(summary->series, TRUE);
    g_free(summary);
}

/* A used link and how busy it was over the step. */
typedef struct Busy {
    uint32_t link;
    double mean; /* utilization over all bins */
} Busy;

static int
cmp_busiest(const void *pa, const void *pb)
{
    const Busy *a = pa, *b = pb;
    if (a->mean != b->mean)
        return a->mean > b->mean ? -1 : 1;
    return a->link < b->link ? -1 : a->link > b->link;
}

/* The bytes link l can carry in one bin. */
static double
bin_capacity_bytes(const TopoGraph *graph, const NetLinkLoad *load, uint32_t l)
{
    return (double)topo_graph_link(graph, l)->bytes_per_s * (double)load->bin_ps /
           (double)SIM_PS_PER_S;
}

/* Adds link l's capped bytes to its class's series (made on first use)
 * and the capacity to the class's, and returns its mean utilization. */
static double
add_to_class(ReportLinkSummary *summary, GHashTable *classes, GPtrArray *capacity,
             const TopoGraph *graph, const NetLinkLoad *load, uint32_t l)
{
    g_autofree char *name = report_link_class(graph, l);
    gpointer found = g_hash_table_lookup(classes, name);
    guint c = GPOINTER_TO_UINT(found);
    if (found == NULL) {
        g_ptr_array_add(summary->series,
                        series_new(g_strconcat("class ", name, NULL), summary->n_bins));
        g_ptr_array_add(capacity, g_new0(double, 1));
        c = summary->series->len;
        g_hash_table_insert(classes, g_steal_pointer(&name), GUINT_TO_POINTER(c));
    }
    ReportLinkSeries *s = summary->series->pdata[c - 1];
    double cap = bin_capacity_bytes(graph, load, l);
    const double *bytes = &load->wire_bytes[(size_t)l * load->max_bins];
    double sum = 0;
    for (uint32_t k = 0; k < summary->n_bins; k++) {
        double b = MIN(bytes[k], cap);
        s->utilization[k] += b;
        sum += b;
    }
    s->n_links++;
    *(double *)capacity->pdata[c - 1] += cap;
    return cap > 0 && summary->n_bins > 0 ? sum / (cap * summary->n_bins) : 0;
}

/* Busiest links: their own utilization, in order. */
static void
add_busiest(ReportLinkSummary *summary, Busy *busy, uint32_t n_busy, uint32_t n_top,
            const TopoGraph *graph, const NetLinkLoad *load)
{
    qsort(busy, n_busy, sizeof *busy, cmp_busiest);
    for (uint32_t i = 0; i < MIN(n_top, n_busy); i++) {
        uint32_t l = busy[i].link;
        g_autofree char *name = topo_graph_link_name(graph, l);
        ReportLinkSeries *s = series_new(g_strconcat("link ", name, NULL), summary->n_bins);
        s->n_links = 1;
        double cap = bin_capacity_bytes(graph, load, l);
        const double *bytes = &load->wire_bytes[(size_t)l * load->max_bins];
        for (uint32_t k = 0; k < summary->n_bins; k++)
            s->utilization[k] = cap > 0 ? MIN(bytes[k] / cap, 1.0) : 0;
        g_ptr_array_add(summary->series, s);
    }
}

ReportLinkSummary *
report_link_summary_new(const TopoGraph *graph, const NetLinkLoad *load, uint64_t end_ps,
                        uint32_t n_top)
{
    g_return_val_if_fail(load->n_links == topo_graph_n_links(graph), NULL);
    ReportLinkSummary *summary = g_new0(ReportLinkSummary, 1);
    summary->bin_ps = load->bin_ps;
    summary->end_ps = MAX(end_ps, (uint64_t)load->n_bins * load->bin_ps);
    summary->n_bins = load->n_bins;
    summary->series = g_ptr_array_new_with_free_func(series_free);
    /* Class name -> its series' index + 1; its capacity per bin, alike. */
    g_autoptr(GHashTable) classes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GPtrArray) capacity = g_ptr_array_new_with_free_func(g_free);
    Busy *busy = g_new(Busy, load->n_links);
    for (uint32_t l = 0; l < load->n_links; l++) {
        const double *bytes = &load->wire_bytes[(size_t)l * load->max_bins];
        bool used = false;
        for (uint32_t k = 0; k < load->n_bins && !used; k++)
            used = bytes[k] > 0;
        if (used)
            busy[summary->n_used++] =
                (Busy){l, add_to_class(summary, classes, capacity, graph, load, l)};
    }
    summary->n_classes = summary->series->len;
    for (uint32_t c = 0; c < summary->n_classes; c++) {
        ReportLinkSeries *s = summary->series->pdata[c];
        double cap = *(const double *)capacity->pdata[c];
        for (uint32_t k = 0; k < summary->n_bins; k++)
            s->utilization[k] = cap > 0 ? MIN(s->utilization[k] / cap, 1.0) : 0;
    }
    add_busiest(summary, busy, summary->n_used, n_top, graph, load);
    g_free(busy);
    return summary;
}

static double
seconds(uint64_t ps)
{
    return (double)ps / (double)SIM_PS_PER_S;
}

bool
report_link_summary_write(const ReportLinkSummary *summary, const char *path, GError **error)
{
    g_autoptr(GString) text = g_string_new(NULL);
    SimCsvWriter w = {.text = text};
    sim_csv_put_plain(&w, "time_s");
    for (guint i = 0; i < summary->series->len; i++) {
        const ReportLinkSeries *s = summary->series->pdata[i];
        sim_csv_put(&w, s->name);
    }
    sim_csv_end_row(&w);
    for (uint32_t k = 0; k <= summary->n_bins; k++) {
        uint64_t t_ps = k < summary->n_bins ? (uint64_t)k * summary->bin_ps : summary->end_ps;
        sim_csv_put_plain(&w, "%.9f", seconds(t_ps));
        for (guint i = 0; i < summary->series->len; i++) {
            const ReportLinkSeries *s = summary->series->pdata[i];
            sim_csv_put_plain(&w, "%.6f", k < summary->n_bins ? s->utilization[k] : 0.0);
        }
        sim_csv_end_row(&w);
    }
    char *tmp = NULL;
    FILE *out = sim_output_open(path, &tmp, error);
    if (out == NULL)
        return false;
    fwrite(text->str, 1, text->len, out);
    return sim_output_commit(out, tmp, path, error);
}

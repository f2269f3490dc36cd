/* SPDX-License-Identifier: Apache-2.0 */
/* Link utilization over a step, summed for a plot (nvlsim run
 * --links-plot): a few series instead of one per link, so that a study of
 * hundreds of links and hundreds of time bins plots in a moment.
 *
 * Series, in this order:
 *   classes  one per link class the step used: the link model's kind and
 *            the kinds of the two ends, the lesser first ("nvlink
 *            gpu-nvswitch", "pcie nic-pcie-switch", "network leaf-spine"),
 *            both directions alike; in the order of their first link id.
 *            Its value in a bin is the bytes its used links carried over
 *            what they could have carried (each link capped at its rate):
 *            the mean utilization of those links, weighted by their rate.
 *            A link is used when it carried a byte at any time in the step.
 *   links    the n_top busiest links, by their mean utilization over the
 *            step (ties: the lower link id first); each its own
 *            utilization, capped at 1.
 * Values are fractions in [0, 1].
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "net/net.h"
#include "topo/topo-graph.h"

typedef struct ReportLinkSeries {
    char *name;          /* a class ("nvlink gpu-nvswitch") or a link (topo_graph_link_name) */
    uint32_t n_links;    /* links it sums: 1 for a link */
    double *utilization; /* [bin], fractions */
} ReportLinkSeries;

typedef struct ReportLinkSummary {
    uint64_t bin_ps; /* each bin's width; bin k starts at k * bin_ps */
    uint64_t end_ps; /* the step's end: the time of the closing row */
    uint32_t n_bins;
    uint32_t n_used;    /* links that carried traffic */
    uint32_t n_classes; /* series[0 .. n_classes) are classes, the rest links */
    GPtrArray *series;  /* ReportLinkSeries, owned */
} ReportLinkSummary;

/* Sums load (the step's link bytes over graph's links; load->n_links ==
 * its link count) into classes and the n_top busiest links (fewer when
 * fewer were used). end_ps: the step's end. Never fails. */
ReportLinkSummary *report_link_summary_new(const TopoGraph *graph, const NetLinkLoad *load,
                                           uint64_t end_ps, uint32_t n_top);
void report_link_summary_free(ReportLinkSummary *summary);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ReportLinkSummary, report_link_summary_free)

/* The summary as CSV, one column per series and one row per bin:
 *   time_s,class nvlink gpu-nvswitch,...,link node0 gpu0 -> node0 nvswitch1,...
 * time_s the bin's start, then a closing row at the step's end with every
 * series 0 (as --links writes it). Classes are named "class NAME", links
 * "link NAME". Whole or not at all (core-output.h; "-" is standard output);
 * false and an error naming path otherwise. */
bool report_link_summary_write(const ReportLinkSummary *summary, const char *path, GError **error);

/* The class of graph's link (newly allocated): "KIND END-END". */
char *report_link_class(const TopoGraph *graph, uint32_t link);

/* SPDX-License-Identifier: Apache-2.0 */
/* The network interface: picking an engine and the small helpers both
 * engines share. */
#include "net/net.h"

#include <string.h>

#include "core/core-time.h"

#include "net/net-flow.h"
#include "net/net-packet.h"

NetModel *
net_new(NetFidelity fidelity, SimEngine *engine, const TopoGraph *graph, const TopoRouter *router,
        const NetOptions *options)
{
    static const NetOptions defaults = {.seed = 1};
    if (options == NULL)
        options = &defaults;
    switch (fidelity) {
    case NET_FIDELITY_PACKET:
        return net_packet_new(engine, graph, router, options);
    case NET_FIDELITY_FLOW:
        return net_flow_new(engine, graph, router, options);
    }
    g_return_val_if_reached(NULL);
}

void
net_free(NetModel *net)
{
    if (net != NULL)
        net->ops->free(net);
}

void
net_describe_stuck(const NetModel *net, GString *out, guint max_links)
{
    net->ops->describe_stuck(net, out, max_links);
}

void
net_describe_link(const TopoGraph *graph, uint32_t link, GString *out)
{
    const TopoLink *l = topo_graph_link(graph, link);
    const TopoVertex *a = topo_graph_vertex(graph, l->src), *b = topo_graph_vertex(graph, l->dst);
    g_string_append_printf(out, "%s %u -> %s %u", topo_vertex_kind_name(a->kind), a->index,
                           topo_vertex_kind_name(b->kind), b->index);
    if (a->node != TOPO_NONE && graph->n_nodes > 1)
        g_string_append_printf(out, " (node %u)", a->node);
}

bool
net_stuck_link(const TopoGraph *graph, uint32_t link, GString *out, guint *n, guint max_links)
{
    if ((*n)++ >= max_links)
        return false;
    g_string_append(out, "; ");
    net_describe_link(graph, link, out);
    g_string_append(out, ": ");
    return true;
}

void
net_stuck_end(GString *out, guint n, guint max_links)
{
    if (n > max_links)
        g_string_append_printf(out, "; and %u more links", n - max_links);
}

void
net_set_link_load(NetModel *net, NetLinkLoad *load)
{
    net->ops->set_link_load(net, load);
}

NetLinkLoad *
net_link_load_new(uint32_t n_links, uint64_t bin_ps, uint32_t max_bins)
{
    g_return_val_if_fail(bin_ps > 0 && max_bins >= 2, NULL);
    NetLinkLoad *load = g_new0(NetLinkLoad, 1);
    load->bin_ps = bin_ps;
    load->max_bins = max_bins;
    load->n_links = n_links;
    load->wire_bytes = g_new0(double, (size_t)MAX(n_links, 1) * max_bins);
    return load;
}

void
net_link_load_free(NetLinkLoad *load)
{
    if (load == NULL)
        return;
    g_free(load->wire_bytes);
    g_free(load);
}

/* Doubles the bin width: bin k of the new holds bins 2k and 2k + 1. */
static void
widen(NetLinkLoad *load)
{
    for (uint32_t l = 0; l < load->n_links; l++) {
        double *b = &load->wire_bytes[(size_t)l * load->max_bins];
        for (uint32_t k = 0; k < load->max_bins / 2; k++)
            b[k] = b[2 * k] + b[2 * k + 1];
        for (uint32_t k = load->max_bins / 2; k < load->max_bins; k++)
            b[k] = 0;
    }
    load->bin_ps *= 2;
    load->n_bins = (load->n_bins + 1) / 2;
}

void
net_link_load_add(NetLinkLoad *load, uint32_t link, double bytes, uint64_t t0_ps, uint64_t t1_ps)
{
    g_return_if_fail(link < load->n_links);
    uint64_t last = MAX(t0_ps, t1_ps > t0_ps ? t1_ps - 1 : t0_ps);
    while (last / load->bin_ps >= load->max_bins)
        widen(load);
    double *b = &load->wire_bytes[(size_t)link * load->max_bins];
    uint32_t first_bin = (uint32_t)(t0_ps / load->bin_ps),
             last_bin = (uint32_t)(last / load->bin_ps);
    load->n_bins = MAX(load->n_bins, last_bin + 1);
    if (first_bin == last_bin) {
        b[first_bin] += bytes;
        return;
    }
    double per_ps = bytes / (double)(t1_ps - t0_ps);
    for (uint32_t k = first_bin; k <= last_bin; k++) {
        uint64_t lo = MAX(t0_ps, (uint64_t)k * load->bin_ps);
        uint64_t hi = MIN(t1_ps, (uint64_t)(k + 1) * load->bin_ps);
        b[k] += per_ps * (double)(hi - lo);
    }
}

bool
net_fidelity_parse(const char *text, NetFidelity *fidelity)
{
    if (strcmp(text, "packet") == 0)
        *fidelity = NET_FIDELITY_PACKET;
    else if (strcmp(text, "flow") == 0)
        *fidelity = NET_FIDELITY_FLOW;
    else
        return false;
    return true;
}

const char *
net_fidelity_name(NetFidelity fidelity)
{
    return fidelity == NET_FIDELITY_PACKET ? "packet" : "flow";
}

uint64_t
net_header_share_bytes(const HwLink *link, NetIssuer issuer, uint64_t payload_bytes)
{
    uint64_t own = net_payload_bytes(link, issuer), header = net_header_bytes(link, issuer);
    return payload_bytes >= own ? header : (header * payload_bytes + own - 1) / own;
}

bool
net_link_holds_credits(const TopoGraph *graph, uint32_t link)
{
    TopoVertexKind far = topo_graph_vertex(graph, topo_graph_link(graph, link)->dst)->kind;
    return far == TOPO_NVSWITCH || far == TOPO_PCIE_SWITCH || far == TOPO_LEAF ||
           far == TOPO_SPINE || far == TOPO_CORE || far == TOPO_MEMORY;
}

double
net_credit_slowdown(const TopoGraph *graph, uint32_t link, uint64_t wire_bytes,
                    uint64_t *n_in_flight)
{
    const TopoLink *l = topo_graph_link(graph, link);
    uint64_t unit = l->spec->credit_bytes > 0 ? l->spec->credit_bytes : 1;
    uint64_t total = l->rx_buffer_bytes / unit;
    *n_in_flight = UINT64_MAX;
    if (l->rx_buffer_bytes == 0 || wire_bytes == 0)
        return 1.0;
    total = MAX(total, 1);
    /* As the packet engine counts them (net_credits_for): whole credits,
     * at most the whole buffer. */
    uint64_t per_packet = MIN((wire_bytes + unit - 1) / unit, total);
    uint64_t in_flight = total / per_packet;
    uint64_t ser = sim_serialization_ps(wire_bytes, l->bytes_per_s);
    uint64_t round_trip = ser + 2 * l->latency_ps;
    if (net_link_holds_credits(graph, link))
        round_trip += topo_graph_vertex(graph, l->dst)->latency_ps;
    if (in_flight * ser >= round_trip)
        return 1.0;
    *n_in_flight = in_flight;
    return (double)round_trip / ((double)in_flight * (double)ser);
}

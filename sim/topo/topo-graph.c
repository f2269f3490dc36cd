/* SPDX-License-Identifier: Apache-2.0 */
/* The topology graph: arrays of vertices and link bundles, built once and
 * read-only afterwards. Per-node replication and the id layout are the
 * builder's business; this file only stores and looks up.
 */
#include "topo/topo-graph.h"

#include <math.h>

TopoGraph *
topo_graph_new(void)
{
    TopoGraph *graph = g_new0(TopoGraph, 1);
    graph->vertices = g_array_new(FALSE, TRUE, sizeof(TopoVertex));
    graph->links = g_array_new(FALSE, TRUE, sizeof(TopoLink));
    graph->gpus = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    graph->cpus = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    graph->nics = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    graph->n_nodes = 1;
    return graph;
}

void
topo_graph_free(TopoGraph *graph)
{
    if (graph == NULL)
        return;
    g_array_unref(graph->vertices);
    g_array_unref(graph->links);
    g_array_unref(graph->gpus);
    g_array_unref(graph->cpus);
    g_array_unref(graph->nics);
    g_free(graph);
}

uint32_t
topo_graph_add_vertex(TopoGraph *graph, TopoVertexKind kind, uint64_t latency_ps,
                      const HwSwitch *sw)
{
    g_return_val_if_fail(kind < TOPO_N_VERTEX_KINDS, TOPO_NONE);
    uint32_t id = graph->vertices->len;
    bool fabric = graph->n_node_vertices > 0;
    TopoVertex v = {
        .kind = kind,
        .node = fabric ? TOPO_NONE : 0,
        .index = graph->n_of_kind[kind]++,
        .latency_ps = latency_ps,
        .sw = sw,
    };
    g_array_append_val(graph->vertices, v);
    if (fabric)
        return id;
    if (kind == TOPO_GPU)
        g_array_append_val(graph->gpus, id);
    else if (kind == TOPO_CPU)
        g_array_append_val(graph->cpus, id);
    else if (kind == TOPO_NIC)
        g_array_append_val(graph->nics, id);
    return id;
}

static uint64_t
rx_buffer_bytes(const TopoGraph *graph, uint32_t dst, const HwLink *spec, uint32_t n_links)
{
    const TopoVertex *v = topo_graph_vertex(graph, dst);
    if (v->sw != NULL && v->sw->port_buffer_bytes > 0)
        return v->sw->port_buffer_bytes * n_links;
    return spec->rx_buffer_bytes * n_links;
}

uint32_t
topo_graph_add_bundle(TopoGraph *graph, uint32_t a, uint32_t b, const HwLink *spec,
                      uint32_t n_links)
{
    g_return_val_if_fail(a < graph->vertices->len && b < graph->vertices->len && a != b, TOPO_NONE);
    g_return_val_if_fail(spec != NULL && n_links > 0, TOPO_NONE);
    uint32_t id = graph->links->len;
    TopoLink ab = {
        .src = a,
        .dst = b,
        .n_links = n_links,
        .spec = spec,
        .bytes_per_s = spec->bytes_per_s * n_links,
        .latency_ps = spec->latency_ps,
        .rx_buffer_bytes = rx_buffer_bytes(graph, b, spec, n_links),
        .packet_error_rate = spec->packet_error_rate,
    };
    TopoLink ba = ab;
    ba.src = b;
    ba.dst = a;
    ba.rx_buffer_bytes = rx_buffer_bytes(graph, a, spec, n_links);
    g_array_append_val(graph->links, ab);
    g_array_append_val(graph->links, ba);
    return id;
}

void
topo_graph_degrade_bundle(TopoGraph *graph, uint32_t link, double rate_factor,
                          double packet_error_rate)
{
    g_return_if_fail(link + 1 < graph->links->len && link % 2 == 0);
    g_return_if_fail(rate_factor > 0 && rate_factor <= 1);
    g_return_if_fail(packet_error_rate >= 0 && packet_error_rate < 1);
    for (uint32_t l = link; l <= link + 1; l++) {
        TopoLink *x = &g_array_index(graph->links, TopoLink, l);
        x->bytes_per_s = MAX(1, (uint64_t)llround((double)x->bytes_per_s * rate_factor));
        x->packet_error_rate = packet_error_rate;
    }
    graph->faulted = true;
}

void
topo_graph_scale_links(TopoGraph *graph, const HwLink *spec, double rate_factor)
{
    g_return_if_fail(rate_factor > 0 && rate_factor <= 1);
    if (rate_factor == 1)
        return;
    for (guint l = 0; l < graph->links->len; l++) {
        TopoLink *x = &g_array_index(graph->links, TopoLink, l);
        if (x->spec == spec)
            x->bytes_per_s = MAX(1, (uint64_t)llround((double)x->bytes_per_s * rate_factor));
    }
}

void
topo_graph_replicate(TopoGraph *graph, uint32_t n_nodes)
{
    g_return_if_fail(graph->n_node_vertices == 0 && n_nodes > 0);
    uint32_t nv = graph->vertices->len, nl = graph->links->len;
    graph->n_node_vertices = nv;
    graph->n_node_links = nl;
    graph->n_nodes = n_nodes;
    for (uint32_t node = 1; node < n_nodes; node++) {
        for (uint32_t i = 0; i < nv; i++) {
            TopoVertex v = g_array_index(graph->vertices, TopoVertex, i);
            v.node = node;
            g_array_append_val(graph->vertices, v);
        }
        for (uint32_t i = 0; i < nl; i++) {
            TopoLink l = g_array_index(graph->links, TopoLink, i);
            l.src += node * nv;
            l.dst += node * nv;
            g_array_append_val(graph->links, l);
        }
    }
    for (int k = 0; k < TOPO_N_VERTEX_KINDS; k++)
        graph->n_of_kind[k] = 0;
}

uint32_t
topo_graph_gpu_vertex(const TopoGraph *graph, uint32_t gpu)
{
    uint32_t per_node = graph->gpus->len;
    g_return_val_if_fail(per_node > 0 && gpu < per_node * graph->n_nodes, TOPO_NONE);
    uint32_t local = g_array_index(graph->gpus, uint32_t, gpu % per_node);
    return local + (gpu / per_node) * graph->n_node_vertices;
}

uint32_t
topo_graph_n_gpus(const TopoGraph *graph)
{
    return graph->gpus->len * graph->n_nodes;
}

const char *
topo_vertex_kind_name(TopoVertexKind kind)
{
    static const char *const names[TOPO_N_VERTEX_KINDS] = {
        "gpu", "cpu", "nvswitch", "pcie-switch", "nic", "leaf", "spine", "memory", "core",
    };
    return kind < TOPO_N_VERTEX_KINDS ? names[kind] : "?";
}

char *
topo_graph_vertex_name(const TopoGraph *graph, uint32_t vertex)
{
    const TopoVertex *x = topo_graph_vertex(graph, vertex);
    if (x->node == TOPO_NONE)
        return g_strdup_printf("fabric %s%u", topo_vertex_kind_name(x->kind), x->index);
    return g_strdup_printf("node%u %s%u", x->node, topo_vertex_kind_name(x->kind), x->index);
}

char *
topo_graph_link_name(const TopoGraph *graph, uint32_t link)
{
    const TopoLink *l = topo_graph_link(graph, link);
    g_autofree char *src = topo_graph_vertex_name(graph, l->src);
    g_autofree char *dst = topo_graph_vertex_name(graph, l->dst);
    return g_strdup_printf("%s -> %s", src, dst);
}

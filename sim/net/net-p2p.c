/* SPDX-License-Identifier: Apache-2.0 */
/* Peer copies on a fresh network each (see net-probe): a matrix is many
 * independent experiments, as in the CUDA sample. */
#include "net/net-p2p.h"

#include <stdlib.h>

#include "net/net-probe.h"

/* The CPU vertex nearest GPU g: where a staged copy lands in host memory. */
static uint32_t
host_of(const TopoGraph *graph, const TopoRouter *router, uint32_t gpu_vertex)
{
    uint32_t nv = topo_graph_node_vertices(graph);
    uint32_t node = topo_graph_vertex(graph, gpu_vertex)->node;
    uint32_t best = TOPO_NONE, best_hops = UINT32_MAX;
    for (uint32_t i = 0; i < graph->cpus->len; i++) {
        uint32_t cpu = g_array_index(graph->cpus, uint32_t, i) + node * nv;
        TopoRoute route;
        if (topo_router_route(router, gpu_vertex, cpu, &route) &&
            route.path[0].n_hops < best_hops) {
            best = cpu;
            best_hops = route.path[0].n_hops;
        }
    }
    return best;
}

struct NetP2pMemo {
    GHashTable *by_key; /* GBytes (key_of) -> uint64_t ps */
    uint64_t n_simulated, n_found;
};

NetP2pMemo *
net_p2p_memo_new(void)
{
    NetP2pMemo *memo = g_new0(NetP2pMemo, 1);
    memo->by_key =
        g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, g_free);
    return memo;
}

void
net_p2p_memo_free(NetP2pMemo *memo)
{
    if (memo == NULL)
        return;
    g_hash_table_unref(memo->by_key);
    g_free(memo);
}

void
net_p2p_memo_counts(const NetP2pMemo *memo, uint64_t *n_simulated, uint64_t *n_found)
{
    *n_simulated = memo->n_simulated;
    *n_found = memo->n_found;
}

static int
cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The sorted distinct values of ids[0 .. n), in place; how many. */
static guint
sort_unique(uint32_t *ids, guint n)
{
    qsort(ids, n, sizeof *ids, cmp_u32);
    guint m = 0;
    for (guint i = 0; i < n; i++)
        if (m == 0 || ids[m - 1] != ids[i])
            ids[m++] = ids[i];
    return m;
}

/* The place of id among the n sorted ids (TOPO_NONE stays). */
static uint32_t
label(const uint32_t *ids, guint n, uint32_t id)
{
    if (id == TOPO_NONE)
        return TOPO_NONE;
    const uint32_t *found = bsearch(&id, ids, n, sizeof *ids, cmp_u32);
    g_return_val_if_fail(found != NULL, TOPO_NONE);
    return (uint32_t)(found - ids);
}

static void
put(GByteArray *key, const void *data, size_t n)
{
    g_byte_array_append(key, data, (guint)n);
}

/* What the time of the n transfers alone on a fresh network depends on:
 * the settings, then their routes, the links they cross and those links'
 * reverses, the links' ends and the ends' nodes, each numbered by its
 * place among those touched (so that two keys are equal when the touched
 * parts are alike, their numbers in the same order), with every property
 * the engines read of a link and a vertex. NULL when a transfer has no
 * route. */
static GBytes *
key_of(const NetP2p *p2p, const NetProbeXfer *xfers, size_t n)
{
    const TopoGraph *graph = p2p->graph;
    TopoRoute routes[2];
    g_return_val_if_fail(n <= G_N_ELEMENTS(routes), NULL);
    g_autoptr(GArray) links = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (size_t i = 0; i < n; i++) {
        if (!topo_router_route(p2p->router, xfers[i].src, xfers[i].dst, &routes[i]))
            return NULL;
        for (uint32_t k = 0; k < routes[i].n_paths; k++)
            for (uint32_t h = 0; h < routes[i].path[k].n_hops; h++) {
                uint32_t l = routes[i].path[k].link[h], r = l ^ 1;
                g_array_append_val(links, l);
                g_array_append_val(links, r);
            }
    }
    guint n_links = sort_unique((uint32_t *)(void *)links->data, links->len);
    const uint32_t *link_ids = (const uint32_t *)(void *)links->data;
    g_autofree uint32_t *vertex_ids = g_new(uint32_t, 2 * (size_t)n_links + 2 * n);
    guint n_vertices = 0;
    for (guint k = 0; k < n_links; k++) {
        const TopoLink *link = topo_graph_link(graph, link_ids[k]);
        vertex_ids[n_vertices++] = link->src;
        vertex_ids[n_vertices++] = link->dst;
    }
    for (size_t i = 0; i < n; i++) {
        vertex_ids[n_vertices++] = xfers[i].src;
        vertex_ids[n_vertices++] = xfers[i].dst;
    }
    n_vertices = sort_unique(vertex_ids, n_vertices);
    g_autofree uint32_t *node_ids = g_new(uint32_t, MAX(n_vertices, 1));
    guint n_nodes = 0;
    for (guint k = 0; k < n_vertices; k++) {
        uint32_t node = topo_graph_vertex(graph, vertex_ids[k])->node;
        if (node != TOPO_NONE)
            node_ids[n_nodes++] = node;
    }
    n_nodes = sort_unique(node_ids, n_nodes);

    GByteArray *key = g_byte_array_new();
    put(key, &p2p->fidelity, sizeof p2p->fidelity);
    put(key, &p2p->issuer, sizeof p2p->issuer);
    put(key, &n, sizeof n);
    for (size_t i = 0; i < n; i++) {
        uint32_t ends[2] = {label(vertex_ids, n_vertices, xfers[i].src),
                            label(vertex_ids, n_vertices, xfers[i].dst)};
        put(key, ends, sizeof ends);
        put(key, &xfers[i].n_bytes, sizeof xfers[i].n_bytes);
        put(key, &routes[i].n_paths, sizeof routes[i].n_paths);
        put(key, &routes[i].total_weight, sizeof routes[i].total_weight);
        for (uint32_t k = 0; k < routes[i].n_paths; k++) {
            const TopoPath *path = &routes[i].path[k];
            put(key, &path->weight, sizeof path->weight);
            put(key, &path->n_hops, sizeof path->n_hops);
            for (uint32_t h = 0; h < path->n_hops; h++) {
                uint32_t l = label(link_ids, n_links, path->link[h]);
                put(key, &l, sizeof l);
            }
        }
    }
    for (guint k = 0; k < n_links; k++) {
        const TopoLink *link = topo_graph_link(graph, link_ids[k]);
        uint32_t ends[3] = {label(vertex_ids, n_vertices, link->src),
                            label(vertex_ids, n_vertices, link->dst), link->n_links};
        put(key, ends, sizeof ends);
        put(key, &link->spec, sizeof link->spec);
        put(key, &link->bytes_per_s, sizeof link->bytes_per_s);
        put(key, &link->latency_ps, sizeof link->latency_ps);
        put(key, &link->rx_buffer_bytes, sizeof link->rx_buffer_bytes);
        put(key, &link->packet_error_rate, sizeof link->packet_error_rate);
    }
    for (guint k = 0; k < n_vertices; k++) {
        const TopoVertex *v = topo_graph_vertex(graph, vertex_ids[k]);
        uint32_t node = label(node_ids, n_nodes, v->node);
        put(key, &v->kind, sizeof v->kind);
        put(key, &node, sizeof node);
        put(key, &v->latency_ps, sizeof v->latency_ps);
        put(key, &v->sw, sizeof v->sw);
    }
    return g_byte_array_free_to_bytes(key);
}

/* One copy's transfer time (without the copy overhead); from the memo
 * when a copy alike has run. */
static uint64_t
transfer_ps(const NetP2p *p2p, const NetProbeXfer *xfers, size_t n)
{
    g_autoptr(GBytes) key = p2p->memo != NULL ? key_of(p2p, xfers, n) : NULL;
    if (key != NULL) {
        const uint64_t *found = g_hash_table_lookup(p2p->memo->by_key, key);
        if (found != NULL) {
            p2p->memo->n_found++;
            return *found;
        }
    }
    NetProbeResult result;
    net_probe_run(p2p->fidelity, p2p->graph, p2p->router, xfers, n, p2p->issuer, NULL, &result);
    if (key != NULL) {
        p2p->memo->n_simulated++;
        g_hash_table_insert(p2p->memo->by_key, g_steal_pointer(&key),
                            g_memdup2(&result.last_done_ps, sizeof result.last_done_ps));
    }
    return result.last_done_ps;
}

/* The lowest-numbered GPU with an NVLink route to both a and b, or a when
 * there is none. */
static uint32_t
relay_gpu(const NetP2p *p2p, uint32_t a, uint32_t b)
{
    for (uint32_t m = 0; m < topo_graph_n_gpus(p2p->graph); m++)
        if (m != a && m != b && net_p2p_nvlink(p2p, a, m) && net_p2p_nvlink(p2p, m, b))
            return m;
    return a;
}

static uint64_t
relay_ps(const NetP2p *p2p, uint32_t a, uint32_t b, uint64_t n_bytes)
{
    uint32_t m = relay_gpu(p2p, a, b);
    if (m == a)
        return net_p2p_time_ps(p2p, NET_P2P_UNIDIRECTIONAL, a, b, n_bytes);
    return net_p2p_time_ps(p2p, NET_P2P_UNIDIRECTIONAL, a, m, n_bytes) +
           net_p2p_time_ps(p2p, NET_P2P_UNIDIRECTIONAL, m, b, n_bytes);
}

uint64_t
net_p2p_time_ps(const NetP2p *p2p, NetP2pKind kind, uint32_t a, uint32_t b, uint64_t n_bytes)
{
    g_return_val_if_fail(a != b, 0);
    uint32_t va = topo_graph_gpu_vertex(p2p->graph, a);
    uint32_t vb = topo_graph_gpu_vertex(p2p->graph, b);
    NetProbeXfer xfers[2] = {{va, vb, n_bytes}, {vb, va, n_bytes}};
    switch (kind) {
    case NET_P2P_UNIDIRECTIONAL:
        return p2p->copy_overhead_ps + transfer_ps(p2p, xfers, 1);
    case NET_P2P_BIDIRECTIONAL:
        return p2p->copy_overhead_ps + transfer_ps(p2p, xfers, 2);
    case NET_P2P_VIA_HOST: {
        uint32_t host = host_of(p2p->graph, p2p->router, va);
        g_return_val_if_fail(host != TOPO_NONE, 0);
        xfers[0] = (NetProbeXfer){va, host, n_bytes};
        xfers[1] = (NetProbeXfer){host, vb, n_bytes};
        return p2p->copy_overhead_ps + transfer_ps(p2p, xfers, 2);
    }
    case NET_P2P_RELAY:
        return relay_ps(p2p, a, b, n_bytes);
    case NET_P2P_RELAY_BIDIRECTIONAL:
        return relay_ps(p2p, a, b, n_bytes) + relay_ps(p2p, b, a, n_bytes);
    }
    g_return_val_if_reached(0);
}

double
net_p2p_bandwidth(const NetP2p *p2p, NetP2pKind kind, uint32_t a, uint32_t b, uint64_t n_bytes)
{
    uint64_t t = net_p2p_time_ps(p2p, kind, a, b, n_bytes);
    bool both = kind == NET_P2P_BIDIRECTIONAL || kind == NET_P2P_RELAY_BIDIRECTIONAL;
    double moved = (double)n_bytes * (both ? 2 : 1);
    return t > 0 ? moved / ((double)t / 1e12) : 0;
}

bool
net_p2p_via_host_routed(const NetP2p *p2p, uint32_t a, uint32_t b)
{
    uint32_t va = topo_graph_gpu_vertex(p2p->graph, a);
    uint32_t vb = topo_graph_gpu_vertex(p2p->graph, b);
    uint32_t host = host_of(p2p->graph, p2p->router, va);
    TopoRoute route;
    return host != TOPO_NONE && topo_router_route(p2p->router, host, vb, &route);
}

bool
net_p2p_nvlink(const NetP2p *p2p, uint32_t a, uint32_t b)
{
    TopoRoute route;
    if (!topo_router_route(p2p->router, topo_graph_gpu_vertex(p2p->graph, a),
                           topo_graph_gpu_vertex(p2p->graph, b), &route))
        return false;
    const TopoLink *first = topo_graph_link(p2p->graph, route.path[0].link[0]);
    return first->spec->kind == HW_LINK_NVLINK;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Peer copies on a fresh network each (see net-probe): a matrix is many
 * independent experiments, as in the CUDA sample. */
#include "net/net-p2p.h"

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

/* One copy's transfer time (without the copy overhead). */
static uint64_t
transfer_ps(const NetP2p *p2p, const NetProbeXfer *xfers, size_t n)
{
    NetProbeResult result;
    net_probe_run(p2p->fidelity, p2p->graph, p2p->router, xfers, n, p2p->issuer, NULL, &result);
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
net_p2p_nvlink(const NetP2p *p2p, uint32_t a, uint32_t b)
{
    TopoRoute route;
    if (!topo_router_route(p2p->router, topo_graph_gpu_vertex(p2p->graph, a),
                           topo_graph_gpu_vertex(p2p->graph, b), &route))
        return false;
    const TopoLink *first = topo_graph_link(p2p->graph, route.path[0].link[0]);
    return first->spec->kind == HW_LINK_NVLINK;
}

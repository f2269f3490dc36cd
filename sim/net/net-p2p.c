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

uint64_t
net_p2p_time_ps(const NetP2p *p2p, NetP2pKind kind, uint32_t a, uint32_t b, uint64_t n_bytes)
{
    g_return_val_if_fail(a != b, 0);
    uint32_t va = topo_graph_gpu_vertex(p2p->graph, a);
    uint32_t vb = topo_graph_gpu_vertex(p2p->graph, b);
    NetProbeXfer xfers[2] = {{va, vb, n_bytes}, {vb, va, n_bytes}};
    size_t n = kind == NET_P2P_BIDIRECTIONAL ? 2 : 1;
    if (kind == NET_P2P_VIA_HOST) {
        uint32_t host = host_of(p2p->graph, p2p->router, va);
        g_return_val_if_fail(host != TOPO_NONE, 0);
        xfers[0] = (NetProbeXfer){va, host, n_bytes};
        xfers[1] = (NetProbeXfer){host, vb, n_bytes};
        n = 2;
    }
    NetProbeResult result;
    net_probe_run(p2p->fidelity, p2p->graph, p2p->router, xfers, n, p2p->issuer, NULL, &result);
    return result.last_done_ps;
}

double
net_p2p_bandwidth(const NetP2p *p2p, NetP2pKind kind, uint32_t a, uint32_t b, uint64_t n_bytes)
{
    uint64_t t = net_p2p_time_ps(p2p, kind, a, b, n_bytes);
    double moved = (double)n_bytes * (kind == NET_P2P_BIDIRECTIONAL ? 2 : 1);
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

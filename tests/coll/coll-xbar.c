/* SPDX-License-Identifier: Apache-2.0 */
/* The ideal crossbar of the sim/coll suites (coll-xbar.h). */
#include "coll-xbar.h"

#include "topo/topo-graph.h"
#include "topo/topo-route.h"

static const HwLink xbar_link = {
    .name = "crossbar link",
    .kind = HW_LINK_NVLINK,
    .bytes_per_s = XBAR_RATE,
    .header_bytes = XBAR_HEADER,
    .sm_payload_bytes = 128,
    .ce_payload_bytes = 256,
    .latency_ps = XBAR_LAT,
    .rx_buffer_bytes = 1 << 20,
    .credit_bytes = 16,
};

static const HwSwitch xbar_switch = {
    .name = "crossbar",
    .kind = HW_SWITCH_NVSWITCH,
    .n_ports = 64,
    .latency_ps = XBAR_SW_LAT,
    .port_buffer_bytes = 1 << 20,
    .nvls = true,
};

static const HwSystem xbar_system = {.id = "crossbar", .name = "ideal crossbar"};

void
xbar_init(Xbar *x, uint32_t n)
{
    g_assert(n >= 1 && n <= XBAR_MAX_GPUS);
    x->graph = topo_graph_new();
    for (uint32_t g = 0; g < n; g++)
        x->vertex[g] = topo_graph_add_vertex(x->graph, TOPO_GPU, 0, NULL);
    uint32_t sw = topo_graph_add_vertex(x->graph, TOPO_NVSWITCH, XBAR_SW_LAT, &xbar_switch);
    for (uint32_t g = 0; g < n; g++)
        topo_graph_add_bundle(x->graph, x->vertex[g], sw, &xbar_link, 1);
    x->router = topo_router_new(x->graph);
    x->comm = (CollComm){
        .system = &xbar_system,
        .graph = x->graph,
        .router = x->router,
        .n_ranks = n,
        .n_nodes = 1,
        .ppn = n,
        .even = true,
        .node_first = x->node_first,
        .rank_vertex = x->vertex,
        .info = {.n_ranks = n,
                 .n_nodes = 1,
                 .ppn = n,
                 .node_ranks = n,
                 .max_node_ranks = n,
                 .arch_index = 2,
                 .nvswitch = true,
                 .nvls = true},
    };
    x->node_first[0] = 0;
    x->node_first[1] = n;
}

void
xbar_split(Xbar *x, const uint32_t *node_ranks, uint32_t n_nodes)
{
    g_assert(n_nodes >= 1 && n_nodes <= x->comm.n_ranks);
    uint32_t least = UINT32_MAX, most = 0;
    for (uint32_t k = 0; k < n_nodes; k++) {
        x->node_first[k + 1] = x->node_first[k] + node_ranks[k];
        least = MIN(least, node_ranks[k]);
        most = MAX(most, node_ranks[k]);
    }
    g_assert(x->node_first[n_nodes] == x->comm.n_ranks);
    x->comm.n_nodes = x->comm.info.n_nodes = n_nodes;
    x->comm.ppn = x->comm.info.max_node_ranks = most;
    x->comm.even = least == most;
    x->comm.info.node_ranks = least;
    x->comm.info.ppn = x->comm.n_ranks / n_nodes;
}

void
xbar_clear(Xbar *x)
{
    topo_router_free(x->router);
    topo_graph_free(x->graph);
}

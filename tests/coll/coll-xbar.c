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
        .rank_vertex = x->vertex,
        .info =
            {.n_ranks = n, .n_nodes = 1, .ppn = n, .arch_index = 2, .nvswitch = true, .nvls = true},
    };
}

void
xbar_clear(Xbar *x)
{
    topo_router_free(x->router);
    topo_graph_free(x->graph);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* The ideal two-level fabric of the sim/coll suites (coll-two-level.h). */
#include "coll-two-level.h"

#include "core/core-time.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

static const HwLink two_level_link = {
    .name = "ideal link",
    .kind = HW_LINK_NVLINK,
    .bytes_per_s = TWO_LEVEL_RATE,
    .header_bytes = 16,
    .sm_payload_bytes = 128,
    .ce_payload_bytes = 256,
    .latency_ps = TWO_LEVEL_LAT,
    .rx_buffer_bytes = 1 << 24,
    .credit_bytes = 16,
};

static const HwSwitch two_level_nvswitch = {
    .name = "ideal NVLS switch",
    .kind = HW_SWITCH_NVSWITCH,
    .n_ports = 64,
    .latency_ps = 200000,
    .port_buffer_bytes = 1 << 24,
    .nvls = true,
};

static HwSwitch two_level_leaf = {
    .name = "ideal SHARP leaf",
    .kind = HW_SWITCH_NETWORK,
    .n_ports = 64,
    .latency_ps = TWO_LEVEL_LEAF_LAT,
    .port_buffer_bytes = 1 << 24,
    .sharp_version = 3,
};

/* One GPU and its NIC a node: what the CollNet heads and the NVLS-tree
 * tuner read. */
static HwSystem two_level_system = {
    .id = "two-level",
    .name = "ideal two-level fabric",
    .n_gpus = 1,
    .n_nics = 1,
    .fabric_switch = &two_level_leaf,
    .collnet = true,
};

void
two_level_init(TwoLevel *t)
{
    TopoGraph *graph = topo_graph_new();
    uint32_t gpu = topo_graph_add_vertex(graph, TOPO_GPU, 0, NULL);
    uint32_t sw = topo_graph_add_vertex(graph, TOPO_NVSWITCH, two_level_nvswitch.latency_ps,
                                        &two_level_nvswitch);
    uint32_t nic = topo_graph_add_vertex(graph, TOPO_NIC, TWO_LEVEL_NIC_LAT, NULL);
    topo_graph_add_bundle(graph, gpu, sw, &two_level_link, 1);
    topo_graph_add_bundle(graph, gpu, nic, &two_level_link, 1);
    topo_graph_replicate(graph, 2);
    uint32_t leaf = topo_graph_add_vertex(graph, TOPO_LEAF, TWO_LEVEL_LEAF_LAT, &two_level_leaf);
    uint32_t nv = topo_graph_node_vertices(graph);
    for (uint32_t k = 0; k < 2; k++)
        topo_graph_add_bundle(graph, nic + k * nv, leaf, &two_level_link, 1);
    t->graph = graph;
    t->router = topo_router_new(graph);
    t->vertex[0] = gpu;
    t->vertex[1] = gpu + nv;
    t->comm = (CollComm){
        .system = &two_level_system,
        .graph = graph,
        .router = t->router,
        .n_ranks = 2,
        .n_nodes = 2,
        .ppn = 1,
        .even = true,
        .node_first = t->node_first,
        .rank_vertex = t->vertex,
        .info = {.n_ranks = 2,
                 .n_nodes = 2,
                 .ppn = 1,
                 .node_ranks = 1,
                 .max_node_ranks = 1,
                 .sm_version = 90,
                 .arch_index = 2,
                 .scale_index = 1,
                 .nvswitch = true,
                 .nvls = true,
                 .nvlink_bw = 100,
                 .nvlink_link_bw = 20,
                 .n_nics = 1,
                 .nic_bw = 25,
                 .net_path_bw = 25,
                 .net_bw = 25},
    };
    for (uint32_t k = 0; k <= 2; k++)
        t->node_first[k] = k;
}

void
two_level_clear(TwoLevel *t)
{
    topo_router_free(t->router);
    topo_graph_free(t->graph);
}

uint64_t
two_level_transfer_ps(uint64_t b, uint32_t h, uint64_t via)
{
    uint64_t packets = (b + 127) / 128, packet = MIN(b, 128);
    return sim_serialization_ps(b + packets * 16, TWO_LEVEL_RATE) +
           (h - 1) * sim_serialization_ps(packet + 16, TWO_LEVEL_RATE) + h * TWO_LEVEL_LAT + via;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Building a system's graph. Node 0 is laid out from the model (GPUs,
 * NVSwitch chips, NVLink pairs, planes and trunks, hosts with CPUs and PCIe
 * switches, NICs: each its adapter's latency and its transport's step
 * latency a side), replicated n_nodes times, and joined by a fat tree:
 * leaf switches (one group per rail when rail-optimized) with half their
 * ports down and half up (or oversubscription down ports to each up
 * port), and one spine tier standing for all spine chips (traffic spread
 * evenly over them, as adaptive routing aims to), or with three tiers a
 * spine vertex a pod of leaves and a super-spine above the pods; on a
 * rail-only fabric each rail's leaves have a spine of their own and
 * nothing joins two rails (Wang et al., "Rail-only", 2023).
 * Faults (topo-fault.h) are applied to node 0's NVLink bundles as they are
 * laid, so every node has them; a NIC down gets no link to its leaf.
 */
#include "topo/topo-build.h"

typedef struct NodeLayout {
    uint32_t gpu0;    /* vertex of GPU 0; GPUs are consecutive */
    uint32_t switch0; /* vertex of NVSwitch 0 of board 0; consecutive */
    uint32_t cpu0;
    uint32_t pcie0;
} NodeLayout;

/* Lays the NVLink bundle of n_links between vertices a and b (GPU gpu's,
 * to plane or peer) as the faults leave it: fewer links, or none; slower;
 * noisier. */
static void
add_faulted(TopoGraph *graph, const TopoFaults *faults, uint32_t a, uint32_t b, const HwLink *spec,
            uint32_t n_links, uint32_t gpu, uint32_t plane, uint32_t peer)
{
    TopoBundleFault bf;
    topo_faults_bundle(faults, gpu, plane, peer, n_links, &bf);
    if (bf.n_links != n_links)
        graph->faulted = true;
    if (bf.n_links == 0)
        return;
    uint32_t id = topo_graph_add_bundle(graph, a, b, spec, bf.n_links);
    if (bf.rate_factor < 1 || bf.packet_error_rate >= 0)
        topo_graph_degrade_bundle(graph, id, bf.rate_factor,
                                  bf.packet_error_rate >= 0 ? bf.packet_error_rate
                                                            : spec->packet_error_rate);
}

static void
add_nvlink(TopoGraph *graph, const HwSystem *sys, const NodeLayout *lay, const TopoFaults *faults)
{
    for (uint32_t i = 0; i < sys->n_pairs; i++) {
        const HwGpuPair *p = &sys->pairs[i];
        add_faulted(graph, faults, lay->gpu0 + p->a, lay->gpu0 + p->b, sys->nvlink, p->n_links,
                    p->a, TOPO_FAULT_NONE, p->b);
    }
    if (sys->nvswitch == NULL)
        return;
    uint32_t per_board = sys->n_board_gpus;
    uint32_t n_sw = sys->n_switches_per_board;
    for (uint32_t g = 0; g < sys->n_gpus; g++)
        for (uint32_t s = 0; s < n_sw; s++)
            if (sys->gpu_switch_links[s] > 0)
                add_faulted(graph, faults, lay->gpu0 + g, lay->switch0 + (g / per_board) * n_sw + s,
                            sys->nvlink, sys->gpu_switch_links[s], g, s, TOPO_FAULT_NONE);
    for (uint32_t b1 = 0; b1 < sys->n_boards; b1++)
        for (uint32_t b2 = b1 + 1; b2 < sys->n_boards; b2++)
            for (uint32_t s = 0; s < n_sw && sys->n_trunk_links > 0; s++)
                if (!topo_faults_plane_down(faults, s))
                    topo_graph_add_bundle(graph, lay->switch0 + b1 * n_sw + s,
                                          lay->switch0 + b2 * n_sw + s, sys->nvlink,
                                          sys->n_trunk_links);
    /* A two-tier domain: plane s's spine chips, one vertex standing for
     * them all (as the fabric's spine does), above switch s of every
     * board. */
    uint32_t spine0 = lay->switch0 + sys->n_boards * n_sw;
    for (uint32_t b = 0; b < sys->n_boards && sys->n_spine_links > 0; b++)
        for (uint32_t s = 0; s < n_sw; s++)
            if (!topo_faults_plane_down(faults, s))
                topo_graph_add_bundle(graph, lay->switch0 + b * n_sw + s, spine0 + s, sys->nvlink,
                                      sys->n_spine_links);
}

/* The vertex GPU g hangs from on the host side: its PCIe switch or its CPU. */
static uint32_t
gpu_parent(const HwSystem *sys, const NodeLayout *lay, uint32_t g)
{
    if (sys->gpus_per_pcie_switch > 0)
        return lay->pcie0 + g / sys->gpus_per_pcie_switch;
    uint32_t per_host = sys->n_gpus / sys->n_hosts;
    uint32_t host = g / per_host, i = g % per_host;
    return lay->cpu0 + host * sys->n_cpus_per_host + i * sys->n_cpus_per_host / per_host;
}

static void
add_hosts(TopoGraph *graph, const HwSystem *sys, NodeLayout *lay)
{
    uint32_t per_host = sys->n_gpus / sys->n_hosts;
    lay->cpu0 = topo_graph_n_vertices(graph);
    for (uint32_t c = 0; c < sys->n_hosts * sys->n_cpus_per_host; c++)
        topo_graph_add_vertex(graph, TOPO_CPU, 0, NULL);
    for (uint32_t h = 0; h < sys->n_hosts && sys->cpu_link != NULL; h++)
        for (uint32_t c1 = 0; c1 < sys->n_cpus_per_host; c1++)
            for (uint32_t c2 = c1 + 1; c2 < sys->n_cpus_per_host; c2++)
                topo_graph_add_bundle(graph, lay->cpu0 + h * sys->n_cpus_per_host + c1,
                                      lay->cpu0 + h * sys->n_cpus_per_host + c2, sys->cpu_link, 1);
    lay->pcie0 = topo_graph_n_vertices(graph);
    if (sys->gpus_per_pcie_switch > 0) {
        uint32_t per_sw = sys->gpus_per_pcie_switch;
        uint32_t n_sw = sys->n_gpus / per_sw;
        for (uint32_t p = 0; p < n_sw; p++) {
            uint32_t v = topo_graph_add_vertex(graph, TOPO_PCIE_SWITCH, 0, NULL);
            uint32_t g = p * per_sw, host = g / per_host, i = g % per_host;
            uint32_t cpu =
                lay->cpu0 + host * sys->n_cpus_per_host + i * sys->n_cpus_per_host / per_host;
            topo_graph_add_bundle(graph, v, cpu, sys->pcie, 1);
        }
    }
    for (uint32_t g = 0; g < sys->n_gpus; g++)
        topo_graph_add_bundle(graph, lay->gpu0 + g, gpu_parent(sys, lay, g), sys->gpu_host_link, 1);
}

static void
add_nics(TopoGraph *graph, const HwSystem *sys, const NodeLayout *lay)
{
    for (uint32_t k = 0; k < sys->n_nics && sys->nic != NULL; k++) {
        uint32_t g = sys->n_nics >= sys->n_gpus ? k / (sys->n_nics / sys->n_gpus)
                                                : k * sys->n_gpus / sys->n_nics;
        uint32_t v = topo_graph_add_vertex(
            graph, TOPO_NIC, sys->nic->latency_ps + sys->transport->step_latency_ps, NULL);
        topo_graph_add_bundle(graph, v, gpu_parent(sys, lay, g), sys->pcie, 1);
    }
}

static bool
add_fabric(TopoGraph *graph, const HwSystem *sys, uint32_t n_nodes, const TopoFaults *faults,
           GError **error)
{
    if (sys->nic == NULL || sys->n_nics == 0 || sys->fabric_switch == NULL) {
        g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "system %s: %u nodes need a NIC and a fabric switch ([network] nic, nics, "
                    "fabric_switch)",
                    sys->id, n_nodes);
        return false;
    }
    const HwSwitch *sw = sys->fabric_switch;
    uint32_t ports_per_nic = MAX(sys->n_nic_ports_per_nic, 1);
    /* Down ports to up ports as the system's oversubscription says (1:1
     * non-blocking). */
    uint32_t over = MAX(sys->oversubscription, 1);
    uint32_t down = (uint32_t)sw->n_ports * over / (over + 1);
    uint32_t rails = sys->rail_optimized ? sys->n_nics : 1;
    uint32_t ports_per_node = (sys->n_nics / rails) * ports_per_nic; /* on one leaf */
    if (down < ports_per_node) {
        g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "system %s: a %s leaf has %u down ports, fewer than the %u one node needs",
                    sys->id, sw->name, down, ports_per_node);
        return false;
    }
    uint32_t nodes_per_leaf = down / ports_per_node;
    uint32_t leaves_per_rail = (n_nodes + nodes_per_leaf - 1) / nodes_per_leaf;
    uint32_t n_leaves = rails * leaves_per_rail;
    uint32_t leaf0 = topo_graph_n_vertices(graph);
    for (uint32_t l = 0; l < n_leaves; l++)
        topo_graph_add_vertex(graph, TOPO_LEAF, sw->latency_ps, sw);
    if (n_leaves > 1) {
        /* Two tiers: one spine vertex for all spine chips. Three: pods of
         * as many leaves as a spine chip has down ports (half its ports),
         * leaves in order (a rail's consecutive), each pod's spine chips
         * one vertex, as many chips as a leaf has up ports, each with the
         * other half of its ports up to the super-spine. */
        uint32_t up = (uint32_t)sw->n_ports - down;
        uint32_t pod = sys->fabric_tiers > 2 ? (uint32_t)sw->n_ports / 2
                       : sys->rail_only      ? leaves_per_rail
                                             : n_leaves;
        uint32_t n_pods = (n_leaves + pod - 1) / pod;
        uint32_t spine0 = topo_graph_n_vertices(graph);
        for (uint32_t p = 0; p < n_pods && pod > 1; p++)
            topo_graph_add_vertex(graph, TOPO_SPINE, sw->latency_ps, sw);
        for (uint32_t l = 0; l < n_leaves && pod > 1; l++)
            topo_graph_add_bundle(graph, leaf0 + l, spine0 + l / pod, sw->link, up);
        if (n_pods > 1 && !sys->rail_only) {
            uint32_t core = topo_graph_add_vertex(graph, TOPO_CORE, sw->latency_ps, sw);
            for (uint32_t p = 0; p < n_pods; p++)
                topo_graph_add_bundle(graph, spine0 + p, core, sw->link,
                                      up * ((uint32_t)sw->n_ports - pod));
        }
    }
    graph->rail_only = sys->rail_only;
    uint32_t nv = topo_graph_node_vertices(graph);
    for (uint32_t node = 0; node < n_nodes; node++)
        for (uint32_t k = 0; k < sys->n_nics; k++) {
            if (topo_faults_nic_down(faults, k)) {
                graph->faulted = true;
                continue;
            }
            uint32_t rail = sys->rail_optimized ? k : 0;
            uint32_t leaf = leaf0 + rail * leaves_per_rail + node / nodes_per_leaf;
            uint32_t nic = g_array_index(graph->nics, uint32_t, k) + node * nv;
            uint32_t id =
                topo_graph_add_bundle(graph, nic, leaf, sys->nic->port_link, ports_per_nic);
            double rate = topo_faults_nic_rate(faults, k);
            if (rate < 1)
                topo_graph_degrade_bundle(graph, id, rate, sys->nic->port_link->packet_error_rate);
        }
    return true;
}

/* Virtual ranks on one GPU: each rank's CTA reaches the others through
 * the GPU's memory system. */
static TopoGraph *
build_loopback(const HwSystem *sys, uint32_t n_nodes, GError **error)
{
    if (n_nodes > 1) {
        g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "system %s: virtual ranks on one GPU make one node, not %u", sys->id, n_nodes);
        return NULL;
    }
    TopoGraph *graph = topo_graph_new();
    for (uint32_t g = 0; g < sys->n_gpus; g++)
        topo_graph_add_vertex(graph, TOPO_GPU, 0, NULL);
    uint32_t memory = topo_graph_add_vertex(graph, TOPO_MEMORY, 0, NULL);
    for (uint32_t g = 0; g < sys->n_gpus; g++)
        topo_graph_add_bundle(graph, g, memory, &sys->loopback->port, 1);
    return graph;
}

TopoGraph *
topo_build_system(const HwSystem *sys, uint32_t n_nodes, GError **error)
{
    return topo_build_system_faulted(sys, n_nodes, NULL, error);
}

TopoGraph *
topo_build_system_faulted(const HwSystem *sys, uint32_t n_nodes, const TopoFaults *faults,
                          GError **error)
{
    if (!topo_faults_check(faults, sys, error))
        return NULL;
    if (n_nodes == 0)
        n_nodes = MAX(sys->n_nodes, 1);
    if (sys->loopback != NULL)
        return build_loopback(sys, n_nodes, error);
    g_autoptr(TopoGraph) graph = topo_graph_new();
    NodeLayout lay = {0};
    lay.gpu0 = topo_graph_n_vertices(graph);
    for (uint32_t g = 0; g < sys->n_gpus; g++)
        topo_graph_add_vertex(graph, TOPO_GPU, 0, NULL);
    lay.switch0 = topo_graph_n_vertices(graph);
    uint32_t n_switch_vertices =
        sys->nvswitch == NULL
            ? 0
            : (sys->n_boards + (sys->n_spine_links > 0 ? 1 : 0)) * sys->n_switches_per_board;
    for (uint32_t s = 0; s < n_switch_vertices; s++)
        topo_graph_add_vertex(graph, TOPO_NVSWITCH, sys->nvswitch->latency_ps, sys->nvswitch);
    add_nvlink(graph, sys, &lay, faults);
    add_hosts(graph, sys, &lay);
    add_nics(graph, sys, &lay);
    topo_graph_replicate(graph, n_nodes);
    if (n_nodes > 1 && !add_fabric(graph, sys, n_nodes, faults, error))
        return NULL;
    /* What the system's own runs measured its links to reach. */
    if (sys->nvlink != NULL)
        topo_graph_scale_links(graph, sys->nvlink, sys->nvlink_efficiency);
    if (sys->nic != NULL)
        topo_graph_scale_links(graph, sys->nic->port_link, sys->nic_efficiency);
    return g_steal_pointer(&graph);
}

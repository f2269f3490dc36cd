/* SPDX-License-Identifier: Apache-2.0 */
/* The system as a graph: vertices (GPUs, CPUs, NVSwitch chips, PCIe
 * switches, NICs, fabric leaf and spine tiers) joined by links.
 *
 * A TopoLink is one direction of a bundle of n_links identical physical
 * links between two vertices (a DGX-1V "NV2" pair is one bundle of 2; the
 * 5 links from an H100 to one NVSwitch are one bundle of 5). Traffic that
 * the hardware spreads evenly over a bundle is modelled as one wire of n×
 * the rate: bandwidth is exact, a lone packet's serialization is n× short.
 * Bundles are added in pairs, so the reverse of link i is i ^ 1.
 *
 * A loopback system (hw-loopback.h) is a star: its virtual ranks are GPU
 * vertices, each joined by one CTA's port to a memory vertex.
 *
 * The graph is built once (by topo-build from a system model and its
 * faults, topo-fault.h, or by hand in tests) and read-only afterwards.
 * Nodes: a system is n_nodes identical NVLink domains; vertex and link ids
 * of node k are those of node 0 plus k × the per-node counts, and fabric
 * vertices and links come after all nodes.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-link.h"
#include "hw/hw-switch.h"

typedef enum TopoVertexKind {
    TOPO_GPU,
    TOPO_CPU,
    TOPO_NVSWITCH,
    TOPO_PCIE_SWITCH,
    TOPO_NIC,
    TOPO_LEAF,   /* fabric leaf switch */
    TOPO_SPINE,  /* the spine tier of the fabric (of a pod with three tiers), its chips as one */
    TOPO_MEMORY, /* one GPU's L2 and HBM, joining virtual ranks (the loopback model) */
    TOPO_CORE,   /* the super-spine tier of a three-tier fabric, all its chips as one vertex */
    TOPO_N_VERTEX_KINDS,
} TopoVertexKind;

#define TOPO_NONE UINT32_MAX

typedef struct TopoVertex {
    TopoVertexKind kind;
    uint32_t node;       /* the NVLink domain it belongs to; TOPO_NONE for the fabric */
    uint32_t index;      /* its number among vertices of its kind in its node (or fabric) */
    uint64_t latency_ps; /* crossing it: switch port to port, NIC processing; 0 for endpoints */
    const HwSwitch *sw;  /* switches: their model (borrowed) */
} TopoVertex;

typedef struct TopoLink {
    uint32_t src, dst;        /* vertex ids */
    uint32_t n_links;         /* physical links in the bundle */
    const HwLink *spec;       /* borrowed from the system model */
    uint64_t bytes_per_s;     /* n_links × spec->bytes_per_s, per direction (less when degraded) */
    uint64_t latency_ps;      /* spec->latency_ps */
    uint64_t rx_buffer_bytes; /* receive buffer at dst for this bundle (credits the sender holds) */
    double packet_error_rate; /* a packet fails its CRC: spec->packet_error_rate unless faulted */
} TopoLink;

typedef struct TopoGraph {
    GArray *vertices; /* TopoVertex */
    GArray *links;    /* TopoLink, reverse of i is i ^ 1 */
    uint32_t n_nodes;
    uint32_t n_node_vertices;                /* per node; 0 until topo_graph_replicate */
    uint32_t n_node_links;                   /* per node; 0 until topo_graph_replicate */
    uint32_t n_of_kind[TOPO_N_VERTEX_KINDS]; /* numbering of the vertices being added */
    bool faulted;   /* built with faults: links fewer, slower or noisier than the model's */
    bool rail_only; /* the fabric's rails are apart: NIC k of a node reaches only NICs k */
    /* Per-node endpoint lists (node-local vertex ids of node 0), filled by
     * topo_graph_add_vertex. */
    GArray *gpus; /* uint32_t: vertex id of node 0's GPU i */
    GArray *cpus;
    GArray *nics;
} TopoGraph;

TopoGraph *topo_graph_new(void);
void topo_graph_free(TopoGraph *graph);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TopoGraph, topo_graph_free)

/* Building. Returns the new vertex id. */
uint32_t topo_graph_add_vertex(TopoGraph *graph, TopoVertexKind kind, uint64_t latency_ps,
                               const HwSwitch *sw);

/* Adds a bundle of n_links links of model spec between vertices a and b, both
 * directions; returns the id of the a→b direction (b→a is that ^ 1). The
 * receive buffer of each direction is n_links × spec->rx_buffer_bytes, or the
 * switch's port buffer × n_links when the receiving vertex is a switch. */
uint32_t topo_graph_add_bundle(TopoGraph *graph, uint32_t a, uint32_t b, const HwLink *spec,
                               uint32_t n_links);

/* Degrades both directions of the bundle whose a→b direction is link:
 * its rate becomes rate_factor (in (0, 1]) of what it was, rounded to the
 * nearest byte per second, and its packets fail their CRC with probability
 * packet_error_rate (in [0, 1)). Marks the graph faulted. For builders. */
void topo_graph_degrade_bundle(TopoGraph *graph, uint32_t link, double rate_factor,
                               double packet_error_rate);

/* Every link of spec runs at rate_factor (in (0, 1]) of its rate, rounded
 * to the nearest byte per second: what a system's links reach on its own
 * runs, not a fault (the graph is not marked faulted). For builders. */
void topo_graph_scale_links(TopoGraph *graph, const HwLink *spec, double rate_factor);

static inline const TopoVertex *
topo_graph_vertex(const TopoGraph *graph, uint32_t id)
{
    return &g_array_index(graph->vertices, TopoVertex, id);
}

static inline const TopoLink *
topo_graph_link(const TopoGraph *graph, uint32_t id)
{
    return &g_array_index(graph->links, TopoLink, id);
}

static inline uint32_t
topo_graph_n_vertices(const TopoGraph *graph)
{
    return graph->vertices->len;
}

static inline uint32_t
topo_graph_n_links(const TopoGraph *graph)
{
    return graph->links->len;
}

/* Ends the description of node 0 and makes n_nodes copies of it (node 0
 * included). Vertices added afterwards belong to the fabric (node
 * TOPO_NONE). A graph never replicated is one node. */
void topo_graph_replicate(TopoGraph *graph, uint32_t n_nodes);

/* Vertices and links of one node (the whole graph before replication). */
static inline uint32_t
topo_graph_node_vertices(const TopoGraph *graph)
{
    return graph->n_node_vertices ? graph->n_node_vertices : graph->vertices->len;
}

static inline uint32_t
topo_graph_node_links(const TopoGraph *graph)
{
    return graph->n_node_links ? graph->n_node_links : graph->links->len;
}

/* Global GPU number g (node g / gpus per node) to its vertex id. */
uint32_t topo_graph_gpu_vertex(const TopoGraph *graph, uint32_t gpu);

uint32_t topo_graph_n_gpus(const TopoGraph *graph); /* all nodes */

const char *topo_vertex_kind_name(TopoVertexKind kind);

/* A vertex as people read it: "node0 gpu3", "fabric leaf1" (newly
 * allocated). */
char *topo_graph_vertex_name(const TopoGraph *graph, uint32_t vertex);
/* One direction of a bundle: "node0 gpu3 -> node0 nvswitch1" (newly
 * allocated). */
char *topo_graph_link_name(const TopoGraph *graph, uint32_t link);

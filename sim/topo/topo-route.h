/* SPDX-License-Identifier: Apache-2.0 */
/* Routes: the paths a transfer between two endpoints (GPU or CPU vertices)
 * takes, and how its bytes split over them.
 *
 * Inside a node, a route is every shortest path (in hops) that does not pass
 * through another GPU (GPUs do not forward): the direct NVLink bundle when
 * there is one, else one path per NVSwitch plane both GPUs reach (the
 * hardware sprays over all planes), else the host path through PCIe
 * switches and CPUs. Each path's weight is the narrowest bundle on it, so
 * 5/5/4/4 links to 4 switches carry 5/18, 5/18, 4/18, 4/18 of the bytes.
 * Between nodes, a GPU's traffic leaves through its own NIC(s) (NIC k
 * serves GPUs k × gpus/nics ...), crosses the fabric (leaf, or leaf-spine-
 * leaf) to the destination GPU's own NIC (the i-th of its NICs for the
 * i-th of the source's), and climbs down to it. GPUs on different rails
 * therefore cross the spine; moving data first to the GPU on the peer's
 * rail over NVLink (NCCL's PXN) is the collectives layer's choice. On a
 * rail-only fabric no spine joins the rails: such traffic crosses NVLink
 * to the GPU of its node with the destination's index, and leaves through
 * that GPU's NIC (PXN, as NCCL does for peer-to-peer by default).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "topo/topo-graph.h"

#define TOPO_MAX_PATHS 32
#define TOPO_MAX_HOPS 16

typedef struct TopoPath {
    uint32_t n_hops;
    uint32_t weight; /* share of the bytes: weight / route total */
    uint32_t link[TOPO_MAX_HOPS];
} TopoPath;

typedef struct TopoRoute {
    uint32_t n_paths;
    uint32_t total_weight;
    TopoPath path[TOPO_MAX_PATHS];
} TopoRoute;

typedef struct TopoRouter TopoRouter;

/* Prepares routing over graph (borrowed; it must outlive the router):
 * node-local routes are computed once for node 0 and shared by all nodes. */
TopoRouter *topo_router_new(const TopoGraph *graph);
void topo_router_free(TopoRouter *router);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TopoRouter, topo_router_free)

/* Fills route with the paths from vertex src to vertex dst (distinct GPU,
 * CPU, NIC or NVSwitch vertices; NVSwitch ones only inside a node; or a
 * GPU and a fabric leaf or spine, or a leaf and the spine: in-network
 * reduction). Returns false when no path exists. */
bool topo_router_route(const TopoRouter *router, uint32_t src, uint32_t dst, TopoRoute *route);

/* Time one packet of payload_bytes takes along path: on every hop its
 * serialization (payload + that link's header, at the bundle's rate) and the
 * link latency, plus the latency of every vertex crossed between hops (store
 * and forward per packet). */
/* The first NIC (a node's index) that serves node-local GPU gpu: its
 * share of the node's NICs (NIC k serves GPUs k x gpus / nics, or GPU g
 * has NICs g x nics / gpus onwards), or, where those are down (no fabric
 * link), the next NIC in order that is up; TOPO_NONE without NICs. */
uint32_t topo_router_gpu_nic(const TopoRouter *router, uint32_t gpu);

uint64_t topo_path_latency_ps(const TopoGraph *graph, const TopoPath *path, uint64_t payload_bytes);

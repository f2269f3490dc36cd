/* SPDX-License-Identifier: Apache-2.0 */
/* Running one collective call on a communicator: NCCL's choices (from
 * coll-tune), the schedule NCCL would run (rings, trees, NVLS, direct
 * peers; built here), and its execution through net.h (coll-exec).
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "coll/coll-exec.h"
#include "coll/coll-harness.h"
#include "coll/coll-tune.h"
#include "coll/coll.h"
#include "hw/hw-system.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

/* n_ranks ranks on a system's graph, placed as NCCL's launcher would: rank
 * r on GPU r (node r / GPUs per node), one rank per GPU, unless the
 * constructor names the GPUs. A node's ranks are consecutive; nodes may
 * hold different numbers of them (a rack of 72 and one of 56), which NCCL
 * runs without a fallback: each node's ring and chain are its own, its
 * graphs the minimum over nodes (init.cc:1386-1459 of NCCL 2.30.7). */
typedef struct CollComm {
    const HwSystem *system;   /* borrowed */
    const TopoGraph *graph;   /* borrowed */
    const TopoRouter *router; /* borrowed */
    uint32_t n_ranks;
    uint32_t n_nodes;      /* NVLink domains: NCCL's nodes (topo-place.h) */
    uint32_t ppn;          /* the most ranks on a node (NCCL's maxLocalRanks) */
    bool even;             /* every node has ppn ranks */
    uint32_t *node_first;  /* [n_nodes + 1]: node k's ranks are node_first[k] .. [k + 1] - 1 */
    uint32_t n_hosts;      /* hosts (CPU complexes) the ranks are on, all nodes */
    uint32_t host_ranks;   /* the most ranks on one host */
    uint32_t *rank_vertex; /* [n_ranks] */
    CollTopoInfo info;
} CollComm;

/* NULL and error when the ranks do not fit: more than the graph's GPUs, or
 * several nodes not all full. */
CollComm *coll_comm_new(const HwSystem *system, const TopoGraph *graph, const TopoRouter *router,
                        uint32_t n_ranks, GError **error);
/* The same on the listed GPUs (ascending global indices): rank r on
 * gpus[r], the ranks of a node consecutive, as a sub-communicator of a
 * training job. Nodes touched by different counts are simulated on
 * NVSwitch systems (error elsewhere: a ring search per node is not). */
CollComm *coll_comm_new_gpus(const HwSystem *system, const TopoGraph *graph,
                             const TopoRouter *router, const uint32_t *gpus, uint32_t n_ranks,
                             GError **error);
/* The same with every node's ranks on its GPUs local[0 .. ppn) in that
 * order, as CUDA_VISIBLE_DEVICES=local on each of n_nodes nodes places
 * them: rank node * ppn + i on GPU local[i] of node (local indices). Where
 * node_ranks is not NULL, node k takes only the first node_ranks[k] of
 * them (1 to ppn; different counts as coll_comm_new_gpus allows). NULL
 * and error when a GPU is listed twice or is not one of a node's, or the
 * graph has fewer than n_nodes nodes. */
CollComm *coll_comm_new_local(const HwSystem *system, const TopoGraph *graph,
                              const TopoRouter *router, const uint32_t *local, uint32_t ppn,
                              uint32_t n_nodes, const uint32_t *node_ranks, GError **error);
void coll_comm_free(CollComm *comm);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CollComm, coll_comm_free)

/* The node rank r is on. */
uint32_t coll_comm_node(const CollComm *comm, uint32_t r);

/* The ranks of node k. */
static inline uint32_t
coll_comm_node_ranks(const CollComm *comm, uint32_t k)
{
    return comm->node_first[k + 1] - comm->node_first[k];
}

typedef struct CollCall {
    CollOp op;
    uint64_t n_bytes;    /* nccl-tests' size: for all_gather/reduce_scatter the whole buffer */
    uint32_t elem_bytes; /* 4 for float */
    CollAlgo algo;       /* AUTO: NCCL's choice */
    CollProto proto;     /* AUTO: NCCL's choice */
    uint32_t root;       /* broadcast, reduce */
    /* Flow fidelity: every ring channel its own programs, never folded
     * with the ones whose schedule is the same (the reference tests
     * compare the folded run with; coll-build.c). */
    bool channels_apart;
    /* Flow fidelity: every participant simulated, never folded by
     * symmetry (coll_exec_set_fold; the tests compare the folded run with). */
    bool nodes_apart;
} CollCall;

typedef struct CollResult {
    uint64_t time_ps;  /* the simulated kernel, its setup included */
    uint64_t start_ps; /* of which the setup (the runtime's kernel_setup) */
    CollAlgo algo;     /* what ran */
    CollProto proto;
    uint32_t n_channels;
    double nccl_model_us; /* NCCL's own prediction for the same choice */
    CollExecResult exec;
} CollResult;

/* How a call runs: the choices and costs coll_run lays its schedule out
 * with. */
typedef struct CollRunPlan {
    CollAlgo algo; /* NCCL's choice, or the call's */
    CollProto proto;
    CollTunePlan plan;
    uint64_t start_ps;             /* the kernel's setup (the loopback's launch) */
    uint64_t sync_ps;              /* a synchronisation before the first step (NVLS's) */
    double channel_bytes_per_s;    /* what one CTA pushes; 0: the links decide */
    uint32_t ctas_per_hbm;         /* programs sharing one HBM for reductions */
    uint64_t step_overhead_ps;     /* a step inside a node, beyond its wire */
    uint64_t net_step_overhead_ps; /* a step between nodes, beyond its wire */
    double nccl_model_us;          /* < 0: not NCCL */
} CollRunPlan;

/* The plan of call (its bytes as coll_run rounds them) on comm: NCCL's
 * choice unless forced, its channels and chunks, and the costs; false and
 * error where NCCL cannot run it (or the loopback kernel). */
bool coll_call_plan(const CollComm *comm, const CollCall *call, CollRunPlan *plan, GError **error);

/* Simulates call on comm at the given fidelity. Errors (bad input, not a
 * bug): a size that is not a whole number of elements or of ranks' parts,
 * an algorithm or protocol NCCL cannot run for this call or system. */
bool coll_run(const CollComm *comm, const CollCall *call, NetFidelity fidelity, CollResult *result,
              GError **error);

/* coll_run, and the traffic of the schedule it ran appended to flows (a
 * GArray of CollFlow, coll_exec_traffic): what a network shared with
 * other work carries for the call. */
bool coll_run_traffic(const CollComm *comm, const CollCall *call, NetFidelity fidelity,
                      CollResult *result, GArray *flows, GError **error);

/* The most ranks of comm on one host (a CPU complex: a DGX box, one of a
 * GB200 NVL72 rack's 18 trays; comm->host_ranks): what one process drives
 * when a benchmark runs a thread per host (nccl-tests -g). Ranks on GPU
 * local index i of a node sit on host i / (GPUs per node / hosts). */
uint32_t coll_comm_ranks_per_host(const CollComm *comm);

/* What harness h would report per call for result on comm (its runtime,
 * its ranks per host): coll_harness_time's time. */
uint64_t coll_reported_ps(const CollComm *comm, const CollResult *result, const CollHarness *h);

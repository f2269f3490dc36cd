/* SPDX-License-Identifier: Apache-2.0 */
/* One collective call: check it, let NCCL's model choose (unless forced),
 * plan channels and chunks as NCCL would, lay the schedule out and run it.
 * The call's kernel starts its first step after the runtime model's
 * kernel_setup (what the host spends to issue it and a benchmark reports
 * around it is coll-harness's). NCCL's tuner is given the GPUs of the
 * first node's ranks and the NVLinks the graph has among them (a link down
 * is seen at init; a slow or noisy one is not).
 * A loopback system (virtual ranks on one GPU) runs nvlsim-bench's ring
 * kernel instead, with the plan and costs its model file states. */
#include "coll/coll-run.h"

#include "coll/coll-build.h"
#include "core/core-time.h"

/* A communicator of n_ranks ranks on n_nodes nodes, node k holding
 * node_ranks[k] of them (NULL: n_ranks / n_nodes each). */
static CollComm *
comm_new(const HwSystem *system, const TopoGraph *graph, const TopoRouter *router, uint32_t n_ranks,
         uint32_t n_nodes, const uint32_t *node_ranks)
{
    CollComm *comm = g_new0(CollComm, 1);
    comm->system = system;
    comm->graph = graph;
    comm->router = router;
    comm->n_ranks = n_ranks;
    comm->n_nodes = n_nodes;
    comm->node_first = g_new(uint32_t, n_nodes + 1);
    comm->node_first[0] = 0;
    comm->even = true;
    for (uint32_t k = 0; k < n_nodes; k++) {
        uint32_t m = node_ranks != NULL ? node_ranks[k] : n_ranks / n_nodes;
        comm->node_first[k + 1] = comm->node_first[k] + m;
        comm->ppn = MAX(comm->ppn, m);
        comm->even = comm->even && m == comm->node_first[1];
    }
    g_assert(comm->node_first[n_nodes] == n_ranks);
    comm->rank_vertex = g_new(uint32_t, n_ranks);
    return comm;
}

uint32_t
coll_comm_node(const CollComm *comm, uint32_t r)
{
    if (comm->even)
        return r / comm->ppn;
    uint32_t lo = 0, hi = comm->n_nodes - 1; /* node_first[lo] <= r < node_first[hi + 1] */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (comm->node_first[mid] <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The node with the fewest ranks (the first of them). */
static uint32_t
smallest_node(const CollComm *comm)
{
    uint32_t best = 0;
    for (uint32_t k = 1; k < comm->n_nodes; k++)
        if (coll_comm_node_ranks(comm, k) < coll_comm_node_ranks(comm, best))
            best = k;
    return best;
}

/* The tuner's view of comm: the GPUs of the ranks of the node with the
 * fewest and the NVLink bundles the graph has among them (faults
 * included), as NCCL's topology holds only the communicator's GPUs and
 * its graphs are the minimum over nodes' searches (init.cc:1439-1445). */
static bool
comm_info(CollComm *comm, GError **error)
{
    const TopoGraph *graph = comm->graph;
    uint32_t k0 = smallest_node(comm), first = comm->node_first[k0];
    uint32_t n = coll_comm_node_ranks(comm, k0);
    g_autofree uint32_t *pair = g_new0(uint32_t, (size_t)n * n);
    g_autofree uint32_t *to_switch = g_new0(uint32_t, n);
    g_autofree uint32_t *gpu = g_new(uint32_t, n);
    const uint32_t *vertex = &comm->rank_vertex[first];
    for (uint32_t a = 0; a < n; a++)
        gpu[a] = topo_graph_vertex(graph, vertex[a])->index;
    for (uint32_t l = 0; l < topo_graph_n_links(graph); l++) {
        const TopoLink *link = topo_graph_link(graph, l);
        if (link->spec->kind != HW_LINK_NVLINK)
            continue;
        for (uint32_t a = 0; a < n; a++) {
            if (link->src != vertex[a])
                continue;
            if (topo_graph_vertex(graph, link->dst)->kind == TOPO_NVSWITCH)
                to_switch[a] += link->n_links;
            for (uint32_t b = 0; b < n; b++)
                if (link->dst == vertex[b])
                    pair[a * n + b] += link->n_links;
        }
    }
    /* Hosts: ranks on GPU local index i of a node sit on host i / (GPUs
     * per node / hosts). */
    uint32_t hosts = MAX(comm->system->n_hosts, 1);
    uint32_t per_host = MAX(comm->system->n_gpus / hosts, 1);
    g_autofree uint32_t *count = g_new0(uint32_t, hosts);
    comm->host_ranks = 0;
    comm->n_hosts = 0;
    for (uint32_t k = 0; k < comm->n_nodes; k++) {
        memset(count, 0, sizeof(uint32_t) * hosts);
        for (uint32_t r = comm->node_first[k]; r < comm->node_first[k + 1]; r++) {
            uint32_t g =
                topo_graph_vertex(graph, comm->rank_vertex[r])->index % comm->system->n_gpus;
            uint32_t host = MIN(g / per_host, hosts - 1);
            comm->n_hosts += count[host]++ == 0;
            comm->host_ranks = MAX(comm->host_ranks, count[host]);
        }
    }
    /* NICs of node 0 without a link to the fabric (down): NCCL does not
     * see them. */
    uint32_t nics_up = 0;
    for (uint32_t l = 0; l < topo_graph_n_links(graph) && graph->n_nodes > 1; l++) {
        const TopoLink *link = topo_graph_link(graph, l);
        const TopoVertex *a = topo_graph_vertex(graph, link->src);
        nics_up += a->kind == TOPO_NIC && a->node == 0 &&
                   topo_graph_vertex(graph, link->dst)->kind == TOPO_LEAF;
    }
    uint32_t n_nics = graph->nics->len;
    CollNvlinks links = {.n = n,
                         .gpu = gpu,
                         .pair = pair,
                         .to_switch = to_switch,
                         .nics_down = graph->n_nodes > 1 ? n_nics - MIN(nics_up, n_nics) : 0};
    coll_tune_info_links(comm->system, comm->n_ranks, comm->n_nodes, comm->ppn, &links,
                         &comm->info);
    if (comm->even || comm->info.nvswitch)
        return true;
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "nodes of %s holding different numbers of ranks (%u to %u) are simulated on "
                "NVSwitch systems only: each node's ring search is not",
                comm->system->id, n, comm->ppn);
    return false;
}

/* comm, its tuner's view filled, or NULL and error (comm freed). */
static CollComm *
comm_ready(CollComm *comm, GError **error)
{
    if (comm_info(comm, error))
        return comm;
    coll_comm_free(comm);
    return NULL;
}

CollComm *
coll_comm_new(const HwSystem *system, const TopoGraph *graph, const TopoRouter *router,
              uint32_t n_ranks, GError **error)
{
    uint32_t per_node = graph->gpus->len;
    uint32_t n_gpus = topo_graph_n_gpus(graph);
    if (n_ranks < 1 || n_ranks > n_gpus || (n_ranks > per_node && n_ranks % per_node != 0)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%u GPUs do not fit %s: expected 1 to %u, or a multiple of its %u GPUs per "
                    "node",
                    n_ranks, system->id, per_node, per_node);
        return NULL;
    }
    CollComm *comm =
        comm_new(system, graph, router, n_ranks, (n_ranks + per_node - 1) / per_node, NULL);
    for (uint32_t r = 0; r < n_ranks; r++)
        comm->rank_vertex[r] = topo_graph_gpu_vertex(graph, r);
    return comm_ready(comm, error);
}

CollComm *
coll_comm_new_gpus(const HwSystem *system, const TopoGraph *graph, const TopoRouter *router,
                   const uint32_t *gpus, uint32_t n_ranks, GError **error)
{
    uint32_t per_node = graph->gpus->len;
    uint32_t n_gpus = topo_graph_n_gpus(graph);
    bool ok = n_ranks >= 1;
    for (uint32_t r = 0; ok && r < n_ranks; r++)
        ok = gpus[r] < n_gpus && (r == 0 || gpus[r] > gpus[r - 1]);
    if (!ok) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "a communicator of %u GPUs of %s must list distinct GPUs in ascending order, "
                    "below %u",
                    n_ranks, system->id, n_gpus);
        return NULL;
    }
    /* Ascending GPUs: each node's ranks are consecutive; count them. */
    g_autofree uint32_t *node_ranks = g_new0(uint32_t, n_ranks);
    uint32_t n_nodes = 0;
    for (uint32_t r = 0; r < n_ranks; r++) {
        if (r == 0 || gpus[r] / per_node != gpus[r - 1] / per_node)
            n_nodes++;
        node_ranks[n_nodes - 1]++;
    }
    CollComm *comm = comm_new(system, graph, router, n_ranks, n_nodes, node_ranks);
    for (uint32_t r = 0; r < n_ranks; r++)
        comm->rank_vertex[r] = topo_graph_gpu_vertex(graph, gpus[r]);
    return comm_ready(comm, error);
}

CollComm *
coll_comm_new_local(const HwSystem *system, const TopoGraph *graph, const TopoRouter *router,
                    const uint32_t *local, uint32_t ppn, uint32_t n_nodes,
                    const uint32_t *node_ranks, GError **error)
{
    uint32_t per_node = graph->gpus->len;
    uint32_t n_graph_nodes = per_node > 0 ? topo_graph_n_gpus(graph) / per_node : 0;
    g_autofree bool *seen = g_new0(bool, MAX(per_node, 1));
    for (uint32_t i = 0; i < ppn; i++) {
        if (local[i] >= per_node || seen[local[i]]) {
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "GPU %u %s of %s's GPUs per node (0 to %u)", local[i],
                        local[i] >= per_node ? "is not one" : "is listed twice among", system->id,
                        per_node - 1);
            return NULL;
        }
        seen[local[i]] = true;
    }
    if (ppn < 1 || n_nodes < 1 || n_nodes > n_graph_nodes) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%u GPUs on each of %u nodes do not fit %s's graph of %u nodes", ppn, n_nodes,
                    system->id, n_graph_nodes);
        return NULL;
    }
    uint64_t n_ranks = 0;
    for (uint32_t k = 0; k < n_nodes; k++) {
        uint32_t m = node_ranks != NULL ? node_ranks[k] : ppn;
        if (m < 1 || m > ppn) {
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "node %u of %s is asked for %u ranks: expected 1 to the %u GPUs listed", k,
                        system->id, m, ppn);
            return NULL;
        }
        n_ranks += m;
    }
    CollComm *comm = comm_new(system, graph, router, (uint32_t)n_ranks, n_nodes, node_ranks);
    for (uint32_t k = 0; k < n_nodes; k++)
        for (uint32_t r = comm->node_first[k]; r < comm->node_first[k + 1]; r++)
            comm->rank_vertex[r] =
                topo_graph_gpu_vertex(graph, k * per_node + local[r - comm->node_first[k]]);
    return comm_ready(comm, error);
}

void
coll_comm_free(CollComm *comm)
{
    if (comm == NULL)
        return;
    g_free(comm->rank_vertex);
    g_free(comm->node_first);
    g_free(comm);
}

static bool
check_call(const CollCall *call, GError **error)
{
    uint32_t elem = MAX(call->elem_bytes, 1);
    if (call->n_bytes % elem != 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%" G_GUINT64_FORMAT " bytes is not a whole number of %u-byte elements",
                    call->n_bytes, elem);
        return false;
    }
    return true;
}

static bool
build(CollBuild *b, GError **error)
{
    switch (b->algo) {
    case COLL_ALGO_RING:
        return coll_build_ring(b, error);
    case COLL_ALGO_TREE:
        return coll_build_tree(b, error);
    case COLL_ALGO_NVLS:
        return coll_build_nvls(b, error);
    case COLL_ALGO_NVLS_TREE:
        return coll_build_nvls_tree(b, error);
    case COLL_ALGO_DIRECT:
        return coll_build_direct(b, error);
    case COLL_ALGO_PAT:
        return coll_build_pat(b, error);
    case COLL_ALGO_COLLNET_DIRECT:
        return coll_build_collnet_direct(b, error);
    case COLL_ALGO_COLLNET_CHAIN:
        return coll_build_collnet_chain(b, error);
    default:
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "the %s algorithm is not simulated", coll_algo_name(b->algo));
        return false;
    }
}

/* NCCL's per-step latency (step_us) is all a step between ranks a and b
 * of a node costs at zero size; what the wire does not explain (one small
 * write; two for Simple's data then flag) is the GPUs' synchronisation
 * (polling, fences), charged per step. */
static uint64_t
step_overhead_ps(const CollComm *comm, uint32_t a, uint32_t b, CollProto proto, double step_us)
{
    TopoRoute route;
    if (!topo_router_route(comm->router, comm->rank_vertex[a], comm->rank_vertex[b], &route))
        return 0;
    uint64_t wire = topo_path_latency_ps(comm->graph, &route.path[0], 8);
    if (proto == COLL_PROTO_SIMPLE)
        wire *= 2;
    uint64_t step = (uint64_t)(step_us * SIM_PS_PER_US);
    return step > wire ? step - wire : 0;
}

/* A step between nodes: the wire (NICs and switches, in the path) and the
 * network proxy's post on the runtime model; Simple's three times, as
 * NCCL counts it (the data, its flag and the receive's flush;
 * tuning.cc:404-410). */
static uint64_t
net_step_overhead_ps(const CollComm *comm, CollProto proto)
{
    uint64_t post = comm->system->runtime->proxy_post_ps;
    return proto == COLL_PROTO_SIMPLE ? 3 * post : post;
}

/* What one CTA pushes, bytes/s (coll-exec paces its sends at it; 0: the
 * links decide). NVLS moves data with the switch's engines, not with CTA
 * copies. A collective's channels share NCCL's bus bandwidth for the
 * call: NCCL's model gives a call the same bandwidth whatever number of
 * channels it runs on, so a call on fewer channels than the
 * communicator's has faster ones. A peer-to-peer program (one per peer
 * of a rank) moves its share of what the p2p model gives the rank
 * (coll-tune's p2p_time_us): the NVLinks (PCIe without them) shared by
 * all peers for alltoall, the neighbour pair's path for sendrecv. */
static double
cta_bytes_per_s(const CollComm *comm, CollOp op, CollAlgo algo, CollProto proto,
                const CollTunePlan *plan)
{
    const CollTopoInfo *info = &comm->info;
    if (algo == COLL_ALGO_NVLS || algo == COLL_ALGO_NVLS_TREE)
        return 0.0;
    if (algo == COLL_ALGO_DIRECT) {
        bool nvlink = info->path_gpu <= COLL_PATH_NVB && info->nvlink_bw > 0;
        double rank_bw =
            op == COLL_OP_ALLTOALL ? (nvlink ? info->nvlink_bw : info->pci_bw) : info->p2p_bw;
        uint32_t peers = op == COLL_OP_ALLTOALL ? MAX(comm->n_ranks, 2) - 1 : 1;
        return rank_bw * 1e9 / peers;
    }
    return coll_tune_channel_bw(info, op, algo, proto) * 1e9 * coll_tune_channels(info) /
           MAX(plan->n_channels, 1);
}

/* NCCL's choice (unless forced), its plan, and the kernel's setup. */
static bool
plan_nccl(const CollComm *comm, const CollCall *call, CollRunPlan *rp, GError **error)
{
    rp->algo = call->algo;
    rp->proto = call->proto;
    if (!coll_tune_select(&comm->info, call->op, call->n_bytes, &rp->algo, &rp->proto)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "NCCL cannot run %s with algorithm %s and protocol %s on %u GPUs of %s",
                    coll_op_name(call->op), coll_algo_name(call->algo),
                    coll_proto_name(call->proto), comm->n_ranks, comm->system->id);
        return false;
    }
    CollAlgo algo = rp->algo;
    CollProto proto = rp->proto;
    coll_tune_plan(&comm->info, call->op, algo, proto, call->n_bytes, &rp->plan);
    rp->start_ps = comm->system->runtime->kernel_setup_ps;
    rp->channel_bytes_per_s = cta_bytes_per_s(comm, call->op, algo, proto, &rp->plan);
    /* Programs sharing a GPU's HBM: a channel's, or one a tree for
     * NVLS-tree, which runs a tree's channels together. */
    rp->ctas_per_hbm = algo == COLL_ALGO_NVLS_TREE ? MIN(rp->plan.n_channels, COLL_NVLS_TREE_GROUPS)
                                                   : rp->plan.n_channels;
    /* NCCL models NVLS's synchronisation (the switch's reduction and
     * multicast, the ranks' flags) as one NVLink latency per call
     * (tuning.cc:424-428, NVLS-tree's too): what the wire through the
     * switch does not explain is charged once, before the first step. */
    bool nvls = algo == COLL_ALGO_NVLS || algo == COLL_ALGO_NVLS_TREE;
    if (comm->n_ranks > 1 && nvls)
        rp->sync_ps = step_overhead_ps(comm, 0, 1, proto,
                                       coll_tune_step_latency_us(&comm->info, algo, proto));
    if (comm->n_ranks > 1 && !nvls)
        rp->step_overhead_ps = step_overhead_ps(
            comm, 0, 1, proto, coll_tune_step_latency_us(&comm->info, algo, proto));
    if (comm->n_ranks > 1 && comm->n_nodes > 1)
        rp->net_step_overhead_ps = net_step_overhead_ps(comm, proto);
    rp->nccl_model_us = coll_tune_time_us(&comm->info, call->op, algo, proto, call->n_bytes);
    return true;
}

/* Virtual ranks on one GPU run nvlsim-bench's ring kernel, not NCCL: a
 * ring in the Simple protocol's manner, one CTA a rank, one slot a step,
 * all_reduce and all_gather only. All CTAs share the GPU's HBM. */
static bool
plan_loopback(const CollComm *comm, const CollCall *call, CollRunPlan *rp, GError **error)
{
    const HwLoopback *lb = comm->system->loopback;
    if ((call->op != COLL_OP_ALL_REDUCE && call->op != COLL_OP_ALL_GATHER) ||
        (call->algo != COLL_ALGO_AUTO && call->algo != COLL_ALGO_RING) ||
        (call->proto != COLL_PROTO_AUTO && call->proto != COLL_PROTO_SIMPLE)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%s runs nvlsim-bench's loopback kernel: all_reduce or all_gather, ring, "
                    "Simple; not %s with algorithm %s and protocol %s",
                    comm->system->id, coll_op_name(call->op), coll_algo_name(call->algo),
                    coll_proto_name(call->proto));
        return false;
    }
    *rp = (CollRunPlan){
        .algo = COLL_ALGO_RING,
        .proto = COLL_PROTO_SIMPLE,
        .plan = {.n_channels = 1,
                 .chunk_bytes = lb->slot_bytes,
                 .slice_bytes = lb->slot_bytes,
                 .slices_in_flight = (uint32_t)lb->n_slots},
        .start_ps = lb->launch_ps,
        .ctas_per_hbm = comm->n_ranks,
        .step_overhead_ps = lb->step_overhead_ps,
        .nccl_model_us = -1,
    };
    return true;
}

bool
coll_call_plan(const CollComm *comm, const CollCall *call, CollRunPlan *plan, GError **error)
{
    *plan = (CollRunPlan){0};
    return (comm->system->loopback ? plan_loopback : plan_nccl)(comm, call, plan, error);
}

/* coll_run, and the schedule's traffic appended to flows when not NULL. */
static bool
run_call(const CollComm *comm, const CollCall *call_in, NetFidelity fidelity, CollResult *result,
         GArray *flows, GError **error)
{
    if (!check_call(call_in, error))
        return false;
    /* nccl-tests sizes all_gather, reduce_scatter and alltoall by the whole
     * buffer and rounds it down to whole elements per rank (others are
     * whole elements already, check_call). */
    CollCall rounded = *call_in;
    const CollCall *call = &rounded;
    uint64_t unit = coll_op_unit_bytes(call->op, MAX(call->elem_bytes, 1), comm->n_ranks);
    rounded.n_bytes = call->n_bytes / unit * unit;
    CollRunPlan rp;
    if (!coll_call_plan(comm, call, &rp, error))
        return false;
    CollBuild b = {.comm = comm,
                   .call = call,
                   .algo = rp.algo,
                   .proto = rp.proto,
                   .plan = rp.plan,
                   .fold = fidelity == NET_FIDELITY_FLOW && !call->channels_apart};
    b.ex = coll_exec_new(comm->graph, comm->router, comm->system->gpu, rp.proto, rp.ctas_per_hbm,
                         rp.channel_bytes_per_s, rp.start_ps + rp.sync_ps);
    coll_exec_set_step_overhead(b.ex, rp.step_overhead_ps, rp.net_step_overhead_ps);
    coll_exec_set_fold(b.ex, fidelity == NET_FIDELITY_FLOW && !call->nodes_apart);
    b.rank_part = g_new(uint32_t, comm->n_ranks);
    for (uint32_t r = 0; r < comm->n_ranks; r++)
        b.rank_part[r] = coll_exec_participant(b.ex, comm->rank_vertex[r]);
    bool ok = (comm->n_ranks == 1 || build(&b, error)) &&
              coll_exec_run(b.ex, fidelity, &result->exec, error);
    if (ok && flows != NULL)
        coll_exec_traffic(b.ex, flows);
    if (ok) {
        result->time_ps = result->exec.time_ps;
        result->start_ps = rp.start_ps;
        result->algo = rp.algo;
        result->proto = rp.proto;
        result->n_channels = b.plan.n_channels;
        result->nccl_model_us = rp.nccl_model_us;
    }
    g_free(b.rank_part);
    coll_exec_free(b.ex);
    return ok;
}

bool
coll_run(const CollComm *comm, const CollCall *call, NetFidelity fidelity, CollResult *result,
         GError **error)
{
    return run_call(comm, call, fidelity, result, NULL, error);
}

bool
coll_run_traffic(const CollComm *comm, const CollCall *call, NetFidelity fidelity,
                 CollResult *result, GArray *flows, GError **error)
{
    return run_call(comm, call, fidelity, result, flows, error);
}

uint32_t
coll_comm_ranks_per_host(const CollComm *comm)
{
    return comm->host_ranks;
}

uint64_t
coll_reported_ps(const CollComm *comm, const CollResult *result, const CollHarness *h)
{
    CollHarnessTime t;
    coll_harness_time(comm->system->runtime, h, coll_comm_ranks_per_host(comm), result->time_ps,
                      &t);
    return t.time_ps;
}

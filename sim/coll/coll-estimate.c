/* SPDX-License-Identifier: Apache-2.0 */
/* A call's time in closed form, mechanism by mechanism (coll-estimate.h):
 * the steps, bytes and rates each algorithm's schedule has as
 * coll-build.c lays it out, with the costs coll-run.c and coll-exec.c
 * charge. One rank's view: its links, its CTAs, its critical path; no
 * events. Times in ps, rates in bytes per second. Where nodes hold
 * different numbers of ranks, the rank is rank 0 and its node's ranks are
 * the node's ranks here.
 */
#include "coll/coll-estimate.h"

#include <math.h>

#include "coll/coll-build.h"
#include "core/core-time.h"
#include "net/net.h"

const char *
coll_bound_name(CollBound bound)
{
    static const char *const names[] = {"CTAs", "node's links", "NICs", "switch planes"};
    return (unsigned)bound < G_N_ELEMENTS(names) ? names[bound] : "?";
}

/* ---- Rates and paths ---- */

/* What link carries of SM-issued data: its rate less packet headers. */
static double
data_rate(const TopoLink *link)
{
    double payload = (double)net_payload_bytes(link->spec, NET_ISSUER_SM);
    double header = (double)net_header_bytes(link->spec, NET_ISSUER_SM);
    return (double)link->bytes_per_s * payload / (payload + header);
}

/* The data rate of a route: its bytes split over paths by weight, each
 * path as fast as its slowest link. 0 without a route. */
static double
route_rate(const TopoGraph *graph, const TopoRoute *route)
{
    double rate = 0;
    for (uint32_t p = 0; p < route->n_paths; p++) {
        const TopoPath *path = &route->path[p];
        double slowest = INFINITY;
        for (uint32_t h = 0; h < path->n_hops; h++)
            slowest = MIN(slowest, data_rate(topo_graph_link(graph, path->link[h])));
        double r = slowest * route->total_weight / MAX(path->weight, 1);
        rate = p == 0 ? r : MIN(rate, r);
    }
    return rate;
}

/* A step from vertex a to vertex b: its path's links and one small write's
 * latency (the first path's, as coll-exec times flags). */
static bool
step_path(const CollComm *comm, uint32_t a, uint32_t b, CollEstimateStep *s, double *rate)
{
    TopoRoute route;
    if (!topo_router_route(comm->router, a, b, &route))
        return false;
    for (uint32_t r = 0; r < comm->n_ranks; r++) {
        if (comm->rank_vertex[r] == a)
            s->from = r;
        if (comm->rank_vertex[r] == b)
            s->to = r;
    }
    s->n_hops = route.path[0].n_hops;
    s->wire_ps = topo_path_latency_ps(comm->graph, &route.path[0], 8);
    if (rate)
        *rate = route_rate(comm->graph, &route);
    return true;
}

/* The GPU's NVLinks out of vertex v, less headers; their count. */
static double
nvlink_rate(const TopoGraph *graph, uint32_t v, uint32_t *n_links)
{
    double rate = 0;
    *n_links = 0;
    for (uint32_t l = 0; l < topo_graph_n_links(graph); l++) {
        const TopoLink *link = topo_graph_link(graph, l);
        if (link->src != v || link->spec->kind != HW_LINK_NVLINK)
            continue;
        rate += data_rate(link);
        *n_links += link->n_links;
    }
    return rate;
}

/* Steps inside a node: the path from rank 0 to rank 1, and what NCCL's
 * per-step latency leaves beyond its wire (the run plan's step overhead);
 * between nodes: rank 0 to rank ppn (the same rail) and the plan's network
 * step (the proxy's post, three times for Simple). The node's link rate:
 * the GPU's NVLinks, or its path to rank 1 without any. */
static void
estimate_paths(const CollComm *comm, const CollRunPlan *rp, CollEstimate *e)
{
    e->intra.n_writes = e->proto == COLL_PROTO_SIMPLE ? 2 : 1;
    e->intra.nccl_step_us = coll_tune_step_latency_us(&comm->info, e->algo, e->proto);
    double path_rate = 0;
    if (coll_comm_node_ranks(comm, 0) > 1 &&
        step_path(comm, comm->rank_vertex[0], comm->rank_vertex[1], &e->intra, &path_rate)) {
        e->intra.sync_ps = rp->step_overhead_ps;
        e->fence_wire_ps = e->intra.wire_ps;
    }
    e->nvlink_bytes_per_s = nvlink_rate(comm->graph, comm->rank_vertex[0], &e->n_nvlinks);
    if (e->nvlink_bytes_per_s <= 0)
        e->nvlink_bytes_per_s = path_rate;
    e->inter.n_writes = 1;
    if (comm->n_nodes > 1 &&
        step_path(comm, comm->rank_vertex[0], comm->rank_vertex[comm->node_first[1]], &e->inter,
                  &e->nic_bytes_per_s))
        e->inter.sync_ps = rp->net_step_overhead_ps;
}

/* ---- The algorithms: steps, bytes, CTAs ---- */

/* Hops of a ring's longest chain of w consecutive steps that cross nodes:
 * the ring enters and leaves each of N nodes once per turn. */
static uint32_t
ring_inter_steps(const CollComm *comm, uint32_t w)
{
    uint32_t N = comm->n_nodes, n = comm->n_ranks, ppn = coll_comm_node_ranks(comm, 0);
    if (N == 1)
        return 0;
    if (w >= n) /* a whole turn and w - n more: at most 2 of the n edges skipped */
        return MIN(w, 2 * N - (ppn >= 3 ? 0 : 3 - ppn));
    return MIN(w, N - (ppn == 1 ? 1 : 0));
}

/* Slices of seg bytes in chunks and slices (coll-build.c's ring pass). */
static uint64_t
n_slices(const CollTunePlan *plan, uint64_t seg)
{
    uint64_t chunk = MAX(plan->chunk_bytes, 1), slice = MAX(plan->slice_bytes, 1);
    uint64_t rest = seg % chunk;
    return MAX(seg / chunk * ((chunk + slice - 1) / slice) + (rest + slice - 1) / slice, 1);
}

static void
estimate_ring(const CollComm *comm, CollEstimate *e, uint64_t *op_bytes)
{
    uint32_t n = comm->n_ranks, nch = MAX(e->plan.n_channels, 1),
             ppn = coll_comm_node_ranks(comm, 0);
    bool chain = e->op == COLL_OP_BROADCAST || e->op == COLL_OP_REDUCE;
    uint32_t steps = e->op == COLL_OP_ALL_REDUCE ? 2 * (n - 1) : n - 1;
    e->inter.n_steps = ring_inter_steps(comm, chain ? n - 1 : steps);
    e->intra.n_steps = steps - e->inter.n_steps;
    e->n_ctas = nch;
    e->cta_bytes = e->moved_bytes / nch;
    /* Channels leave each node on rotating rails: a rank carries the
     * network part of ceil(nch / ppn) channels at most, its NVLinks the
     * rest of at least nch - floor(nch / ppn). */
    e->nic_bytes = comm->n_nodes > 1 ? e->moved_bytes * ((nch + ppn - 1) / ppn) / nch : 0;
    e->nvlink_bytes = comm->n_nodes > 1 ? e->moved_bytes * (nch - nch / ppn) / nch : e->moved_bytes;
    /* Each slice a step sends is a write the CTA waits for (Simple). */
    uint64_t seg = chain                         ? e->n_bytes / nch
                   : e->op == COLL_OP_ALL_REDUCE ? e->n_bytes / nch / n
                                                 : e->n_bytes / n / nch;
    uint64_t slices = n_slices(&e->plan, seg);
    e->n_loops = MAX((seg + MAX(e->plan.chunk_bytes, 1) - 1) / MAX(e->plan.chunk_bytes, 1), 1);
    uint64_t sending = chain ? 1 : steps;
    e->n_fenced = sending * slices * (ppn - 1) / ppn;
    e->n_fill_hops = chain ? n - 2 : 0;
    *op_bytes = seg / slices;
    e->reduce_bytes = e->op == COLL_OP_ALL_REDUCE || e->op == COLL_OP_REDUCE_SCATTER
                          ? e->n_bytes / n * (n - 1)
                      : e->op == COLL_OP_REDUCE ? e->n_bytes
                                                : 0;
}

/* Sends of node id in a binary tree over N nodes: up to its parent (but
 * the root) and down to each child. */
static uint32_t
tree_node_sends(uint32_t id, uint32_t N)
{
    return (id > 0) + (2 * id + 1 < N) + (2 * id + 2 < N);
}

/* The tree as coll-build.c lays it out: per channel a chain through each
 * node from head (ch / 2) mod ppn, the heads joined by a binary tree over
 * the nodes, odd channels mirrored; reduce up and broadcast down each on
 * its own CTA. The busiest rank's NVLink and NIC bytes, counted. */
static void
estimate_tree(const CollComm *comm, CollEstimate *e, uint64_t *op_bytes)
{
    uint32_t ppn = coll_comm_node_ranks(comm, 0), N = comm->n_nodes,
             nch = MAX(e->plan.n_channels, 1);
    e->intra.n_steps = 2 * (ppn - 1);
    e->inter.n_steps = 2 * (uint32_t)floor(log2((double)N));
    double share = (double)e->n_bytes / nch, most_intra = 0, most_inter = 0;
    for (uint32_t g = 0; g < ppn; g++) {
        double intra = 0;
        for (uint32_t ch = 0; ch < nch; ch++) {
            uint32_t head = (ch / 2) % ppn;
            uint32_t pos = ch % 2 ? (head + ppn - g) % ppn : (g + ppn - head) % ppn;
            intra += share * ((pos > 0) + (pos + 1 < ppn)); /* up, down the chain */
        }
        most_intra = MAX(most_intra, intra);
        for (uint32_t node = 0; node < N; node++) {
            double inter = 0;
            for (uint32_t ch = 0; ch < nch; ch++)
                if ((ch / 2) % ppn == g)
                    inter += share * tree_node_sends(ch % 2 ? N - 1 - node : node, N);
            most_inter = MAX(most_inter, inter);
        }
    }
    e->nvlink_bytes = (uint64_t)most_intra;
    e->nic_bytes = N > 1 ? (uint64_t)most_inter : 0;
    e->n_ctas = nch; /* up; as many again down */
    e->cta_bytes = e->n_bytes / nch;
    uint64_t chunk = MAX(e->plan.chunk_bytes, 1);
    e->n_fenced = ppn > 1 ? (e->cta_bytes + chunk - 1) / chunk : 0;
    *op_bytes = MIN(chunk, e->cta_bytes);
    e->n_fill_hops = e->intra.n_steps + e->inter.n_steps - 1;
    /* Every rank with children reduces: all but each chain's tail, or
     * with one rank a node the tree's leaves. */
    uint32_t leaves = ppn > 1 ? N : N - N / 2;
    e->reduce_bytes = e->n_bytes / comm->n_ranks * (comm->n_ranks - leaves);
}

/* CollNet (coll-build-collnet.c): per channel, Chain's chain from the
 * channel's head (the NIC GPUs in turn), reduced up and broadcast down,
 * and Direct's scatter to every head and gather back; each head's part
 * once up into the SHARP tree and once down. The busiest rank's NVLink and
 * NIC bytes, counted. Steps: the chain up and down (2 (ppn - 1)) or one
 * scatter and one gather, and the tree's way up and down (2). */
static void
estimate_collnet(const CollComm *comm, CollEstimate *e, uint64_t *op_bytes)
{
    uint32_t ppn = coll_comm_node_ranks(comm, 0), nch = MAX(e->plan.n_channels, 1),
             heads[COLL_COLLNET_MAX_PPN];
    uint32_t n_heads = MAX(coll_build_collnet_heads(comm, heads), 1);
    bool chain = e->algo == COLL_ALGO_COLLNET_CHAIN;
    if (!chain) {
        CollTuneGraph g;
        coll_tune_graph(&comm->info, COLL_ALGO_COLLNET_DIRECT, &g);
        n_heads = CLAMP(g.n_channels, 1, n_heads);
    }
    e->intra.n_steps = ppn > 1 ? (chain ? 2 * (ppn - 1) : 2) : 0;
    e->inter.n_steps = 2;
    double share = (double)e->n_bytes / nch, most_intra = 0, most_inter = 0;
    for (uint32_t g = 0; g < ppn; g++) {
        double intra = 0, inter = 0;
        for (uint32_t ch = 0; ch < nch; ch++) {
            if (chain) {
                uint32_t pos = (g + ppn - heads[ch % n_heads]) % ppn;
                intra += share * ((pos > 0) + (pos + 1 < ppn));
                inter += pos == 0 ? share : 0;
                continue;
            }
            for (uint32_t k = 0; k < n_heads; k++) {
                double part = share / n_heads;
                intra += heads[k] == g ? part * (ppn - 1) : part; /* gather : scatter */
                inter += heads[k] == g ? part : 0;
            }
        }
        most_intra = MAX(most_intra, intra);
        most_inter = MAX(most_inter, inter);
    }
    e->nvlink_bytes = (uint64_t)most_intra;
    e->nic_bytes = (uint64_t)most_inter;
    e->moved_bytes = e->nvlink_bytes + e->nic_bytes;
    e->factor = (double)e->moved_bytes / (double)MAX(e->n_bytes, 1);
    e->n_ctas = nch;
    e->cta_bytes = e->moved_bytes / nch;
    uint64_t chunk = MAX(e->plan.chunk_bytes, 1);
    e->n_fenced = ppn > 1 ? (e->cta_bytes + chunk - 1) / chunk : 0;
    *op_bytes = MIN(chunk, e->n_bytes / nch);
    e->n_fill_hops = e->intra.n_steps + e->inter.n_steps - 1;
    /* The chain's ranks but its tail, or the heads, reduce what comes to
     * them; the switches reduce across nodes. */
    e->reduce_bytes = ppn > 1 ? e->n_bytes / ppn * (chain ? ppn - 1 : 1) : 0;
}

/* The GPU's links to the NVLS switch planes of its node, less headers,
 * and the path of a step to the first plane's reducing switch (its spine
 * where the ranks span boards). */
static void
nvls_links(const CollComm *comm, CollEstimate *e)
{
    e->intra = (CollEstimateStep){.n_writes = 1, .nccl_step_us = e->intra.nccl_step_us};
    e->nvlink_bytes_per_s = 0;
    e->n_nvlinks = 0;
    const TopoGraph *g = comm->graph;
    for (uint32_t l = 0; l < topo_graph_node_links(g); l++) {
        const TopoLink *link = topo_graph_link(g, l);
        const TopoVertex *dst = topo_graph_vertex(g, link->dst);
        if (link->src != comm->rank_vertex[0] || dst->kind != TOPO_NVSWITCH || dst->sw == NULL ||
            !dst->sw->nvls)
            continue;
        if (e->n_nvlinks == 0)
            step_path(comm, comm->rank_vertex[0], coll_build_nvls_switch(comm, 0, link->dst),
                      &e->intra, NULL);
        e->nvlink_bytes_per_s += data_rate(link);
        e->n_nvlinks += link->n_links;
    }
    e->wire_factor = 1.0 / coll_tune_nvls_efficiency(&comm->info);
}

/* A channel's chunks go owner by owner, a chunk grown so that a channel
 * has at most COLL_NVLS_MAX_CHUNKS (of seg bytes an owner). Each stage's
 * connections hold slices_in_flight chunks, sent together and landing
 * together at the links' share of the channels: a stage sees its first
 * chunk a full window after the stage before. */
static void
nvls_fill(CollEstimate *e, uint64_t seg, uint64_t *op_bytes)
{
    uint64_t chunk =
        MAX(MAX(e->plan.chunk_bytes, 1), (seg + COLL_NVLS_MAX_CHUNKS - 1) / COLL_NVLS_MAX_CHUNKS);
    e->n_fill_hops = e->intra.n_steps + e->inter.n_steps - 1;
    e->n_slots = CLAMP(e->plan.slices_in_flight, 1, 64);
    *op_bytes = MIN(chunk, seg) * e->n_slots;
}

/* NVLS (coll-build.c): each rank writes its copy of every segment to the
 * switch planes, which reduce it to the segment's owner (2 hops), which
 * writes the sum back to be multicast to every rank (2 more): reduce_scatter
 * the first half, all_gather the second. The switch's engines move the
 * data at NCCL's NVLS efficiency of the GPU's links; no CTA cap, no GPU
 * reduction, no flags. */
static void
estimate_nvls(const CollComm *comm, CollEstimate *e, uint64_t *op_bytes)
{
    uint32_t n = comm->n_ranks, nch = MAX(e->plan.n_channels, 1);
    bool reduce = e->op != COLL_OP_ALL_GATHER, multicast = e->op != COLL_OP_REDUCE_SCATTER;
    uint64_t seg = e->n_bytes / n;
    nvls_links(comm, e);
    e->intra.n_steps = 2 * reduce + 2 * multicast;
    uint64_t up = (reduce ? e->n_bytes : 0) + (multicast ? seg : 0);
    uint64_t down = (reduce ? seg : 0) + (multicast ? e->n_bytes : 0);
    e->nvlink_bytes = MAX(up, down);
    e->n_ctas = nch;
    e->cta_bytes = e->nvlink_bytes / nch;
    nvls_fill(e, seg / nch, op_bytes);
}

/* NVLS-tree (coll-build.c): in each node NVLS for each head's chunks (to
 * the switch and reduced to the head, 2 hops; the total back to the
 * switch and multicast, 2 more), the heads' trees between the nodes up
 * and down (twice the deeper tree's depth, over the NICs). A rank's links
 * carry its copy of the buffer out and back and its head's share; a
 * head's NIC carries its share of a channel once for each send its
 * node's place in that channel's tree makes (up to the parent, down to
 * each child); a head with children reduces their sums. */
static void
estimate_nvls_tree(const CollComm *comm, CollEstimate *e, uint64_t *op_bytes)
{
    uint32_t N = comm->n_nodes, nch = MAX(e->plan.n_channels, 1);
    CollTuneGraph graph;
    coll_tune_graph(&comm->info, COLL_ALGO_NVLS, &graph);
    uint32_t heads = MAX(MIN(graph.n_channels, comm->info.node_ranks), 1);
    nvls_links(comm, e);
    e->intra.n_steps = 4;
    e->nic_wire_factor = 1.0;
    double share = (double)e->n_bytes / nch / heads; /* a head's part of a channel */
    g_autofree uint32_t *kids = g_new0(uint32_t, 2 * (size_t)N);
    uint32_t depth = 0;
    for (uint32_t t = 0; t < 2; t++)
        for (uint32_t k = 0; k < N; k++) {
            uint32_t p = coll_dtree_parent(N, t, k), d = 0;
            if (p < N)
                kids[t * N + p]++;
            for (uint32_t up = k; up < N; up = coll_dtree_parent(N, t, up))
                d++;
            depth = MAX(depth, d - 1);
        }
    double most_net = 0, most_reduce = 0;
    for (uint32_t k = 0; k < N; k++) {
        double net = 0, reduce = 0;
        for (uint32_t t = 0; t < 2; t++) {
            uint32_t ch = t == 0 ? (nch + 1) / 2 : nch / 2; /* channels on tree t */
            uint32_t sends = (coll_dtree_parent(N, t, k) < N) + kids[t * N + k];
            net += ch * share * sends;
            reduce += kids[t * N + k] > 0 ? ch * share : 0;
        }
        most_net = MAX(most_net, net);
        most_reduce = MAX(most_reduce, reduce);
    }
    e->inter.n_steps = 2 * depth;
    e->nvlink_bytes = e->n_bytes + (uint64_t)llround(e->n_bytes / (double)heads);
    e->nic_bytes = (uint64_t)llround(most_net);
    e->reduce_bytes = (uint64_t)llround(most_reduce);
    e->n_ctas = nch;
    e->cta_bytes = e->nvlink_bytes / nch;
    nvls_fill(e, (uint64_t)share, op_bytes);
}

/* Adds bytes from vertex a to vertex b to the links of its route (split
 * over its paths by weight); returns the wire of a small write along it. */
static uint64_t
route_load(const CollComm *comm, uint32_t a, uint32_t b, double bytes, double *load)
{
    TopoRoute route;
    if (!topo_router_route(comm->router, a, b, &route))
        return 0;
    for (uint32_t p = 0; p < route.n_paths; p++)
        for (uint32_t h = 0; h < route.path[p].n_hops; h++)
            load[route.path[p].link[h]] +=
                bytes * route.path[p].weight / MAX(route.total_weight, 1);
    return topo_path_latency_ps(comm->graph, &route.path[0], 8);
}

/* The link inside node 0 that its ranks' sends to their peers in the node
 * (every other rank, or the next one) load most for its rate: each
 * route's bytes split over its paths by weight, so that links ranks share
 * (a PCIe switch's uplink) are counted once for all of them; a pair NCCL
 * joins through a GPU (NVB, the rings' via) loads both of its hops, as
 * coll-build.c's relay sends them. Sets the node's rate so that a rank's
 * intra bytes take that link's time, and the wire a fenced write waits for
 * to the farthest of the peers (a relay's first hop: the relay does not
 * fence). */
static void
busiest_link(const CollComm *comm, CollEstimate *e, uint64_t peer_bytes, bool all_peers)
{
    const TopoGraph *g = comm->graph;
    const CollRings *rings = &comm->info.rings;
    g_autofree double *load = g_new0(double, topo_graph_n_links(g));
    uint32_t ppn = coll_comm_node_ranks(comm, 0);
    for (uint32_t r = 0; r < ppn; r++)
        for (uint32_t q = 0; q < ppn; q++) {
            if (q == r || (!all_peers && q != r + 1))
                continue;
            uint32_t via = comm->n_nodes == 1 && r < rings->n && q < rings->n ? rings->via[r][q]
                                                                              : COLL_RINGS_DIRECT;
            uint32_t first = via == COLL_RINGS_DIRECT ? q : via;
            uint64_t wire = route_load(comm, comm->rank_vertex[r], comm->rank_vertex[first],
                                       (double)peer_bytes, load);
            if (via != COLL_RINGS_DIRECT)
                route_load(comm, comm->rank_vertex[via], comm->rank_vertex[q], (double)peer_bytes,
                           load);
            e->fence_wire_ps = MAX(e->fence_wire_ps, wire);
        }
    double worst = 0;
    for (uint32_t l = 0; l < topo_graph_n_links(g); l++) {
        double t = load[l] > 0 ? load[l] / data_rate(topo_graph_link(g, l)) : 0;
        if (t > worst) {
            worst = t;
            e->node_link = topo_graph_link(g, l);
            e->node_link_share = load[l] / (double)e->nvlink_bytes;
        }
    }
    if (e->node_link != NULL)
        e->nvlink_bytes_per_s = data_rate(e->node_link) / e->node_link_share;
}

static uint64_t ps_of(double bytes, double bytes_per_s);

static bool
nvls_algo(CollAlgo algo)
{
    return algo == COLL_ALGO_NVLS || algo == COLL_ALGO_NVLS_TREE;
}

/* Direct peers: a program per peer sending its chunks (at most 512 KiB),
 * all peers at once, no CTA cap: alltoall (n-1)/n of the buffer to n-1
 * peers, sendrecv the buffer to the next rank. */
static void
estimate_direct(const CollComm *comm, CollEstimate *e, uint64_t *op_bytes)
{
    uint32_t n = comm->n_ranks, ppn = coll_comm_node_ranks(comm, 0);
    bool a2a = e->op == COLL_OP_ALLTOALL;
    uint64_t peer = a2a ? e->n_bytes / n : e->n_bytes;
    /* One round: the farthest peer's step; sendrecv's to another node
     * leaves the last rank of a node for the first of the next, on
     * another rail. */
    if (comm->n_nodes > 1)
        e->inter.n_steps = 1;
    else
        e->intra.n_steps = 1;
    if (!a2a && comm->n_nodes > 1)
        step_path(comm, comm->rank_vertex[ppn - 1], comm->rank_vertex[comm->node_first[1]],
                  &e->inter, &e->nic_bytes_per_s);
    e->nvlink_bytes = a2a ? peer * (ppn - 1) : (ppn > 1 ? peer : 0);
    if (e->nvlink_bytes > 0)
        busiest_link(comm, e, peer, a2a);
    e->nic_bytes = comm->n_nodes == 1 ? 0 : a2a ? peer * (n - ppn) : peer;
    e->n_ctas = a2a ? n - 1 : 1;
    e->cta_bytes = peer;
    e->channel_bytes_per_s = 0;
    uint64_t chunk = MIN(MAX(e->plan.chunk_bytes, 1), COLL_P2P_CHUNK_BYTES);
    uint64_t chunks = MAX((peer + chunk - 1) / chunk, 1);
    e->n_fenced = ppn > 1 ? chunks : 0;
    *op_bytes = MIN(chunk, peer);
    /* A connection's sends to another node leave in order on its queue
     * pair, a window of slots at a time: the NIC stays busy unless a
     * chunk's round trip (its wire at the connection's share of the NIC,
     * its landing, the proxy's post, the slot's way back) outlasts the
     * window's wire time, and each window but the last waits the
     * difference. */
    if (comm->n_nodes > 1) {
        e->n_slots = CLAMP(e->plan.slices_in_flight, 1, 64);
        e->n_windows = (chunks - 1) / e->n_slots; /* the last one's landing is the latency */
        uint32_t flows = a2a ? n - ppn : 1;
        uint64_t wire_ps = ps_of((double)*op_bytes * e->wire_factor * flows, e->nic_bytes_per_s);
        uint64_t round_trip = wire_ps + 2 * e->inter.wire_ps + e->inter.sync_ps;
        uint64_t window_ps = e->n_slots * wire_ps;
        e->window_dead_ps = round_trip > window_ps ? round_trip - window_ps : 0;
    }
}

/* PAT (one rank per node): the data of the rank 2^k away comes over dim
 * k, so the deepest piece crosses ceil(log2 n) hops between nodes, one
 * after the other; every rank sends (n-1)/n of the buffer, all of it
 * through its NICs, each piece once (coll-build-pat.c); reduce_scatter
 * reduces each partial it receives. */
static void
estimate_pat(const CollComm *comm, CollEstimate *e)
{
    CollPatParams pp;
    coll_pat_params(comm->n_ranks, MAX(e->plan.chunk_bytes, 1), 1, &pp);
    e->inter.n_steps = pp.n_dims;
    e->nvlink_bytes = 0;
    e->nic_bytes = e->moved_bytes;
    e->n_ctas = MAX(e->plan.n_channels, 1);
    e->cta_bytes = e->moved_bytes / e->n_ctas;
    e->reduce_bytes =
        e->op == COLL_OP_REDUCE_SCATTER ? e->n_bytes / comm->n_ranks * (comm->n_ranks - 1) : 0;
}

/* ---- The sum ---- */

static uint64_t
ps_of(double bytes, double bytes_per_s)
{
    return bytes_per_s > 0 ? (uint64_t)llround(bytes / bytes_per_s * (double)SIM_PS_PER_S) : 0;
}

/* Bandwidth: the slowest of CTAs, NVLinks, NICs. Fence: a fenced write
 * costs the CTA its wire latency after the longer of its copy and its
 * share of the link. Slots: a window's round trip beyond its wire time. Each is
 * exposed where it paces the call: the fence inside the node, the slots on
 * the NICs. Fill: hops - 1 slices, each its share of the bandwidth or its
 * CTA's copy, the longer. */
static void
estimate_bandwidth(CollEstimate *e, uint64_t op_bytes)
{
    e->channels_ps =
        e->channel_bytes_per_s > 0 ? ps_of((double)e->cta_bytes, e->channel_bytes_per_s) : 0;
    e->nvlink_ps = ps_of((double)e->nvlink_bytes * e->wire_factor, e->nvlink_bytes_per_s);
    e->nic_ps = ps_of((double)e->nic_bytes * e->nic_wire_factor, e->nic_bytes_per_s);
    e->bound = nvls_algo(e->algo) ? COLL_BOUND_SWITCH : COLL_BOUND_NVLINK;
    e->bandwidth_ps = e->nvlink_ps;
    if (e->channels_ps > e->bandwidth_ps) {
        e->bound = COLL_BOUND_CHANNELS;
        e->bandwidth_ps = e->channels_ps;
    }
    if (e->nic_ps > e->bandwidth_ps) {
        e->bound = COLL_BOUND_NIC;
        e->bandwidth_ps = e->nic_ps;
    }
    if (e->cta_bytes == 0)
        return;
    /* The CTA's writes leave as it makes them (coll-exec paces them), so
     * the last one lands its wire latency after the longer of the copy and
     * the transfer: the fence waits that latency in full. */
    if (e->proto == COLL_PROTO_SIMPLE && e->n_fenced > 0)
        e->fence_op_ps = e->fence_wire_ps;
    uint64_t node = MAX(e->channels_ps, e->nvlink_ps) + e->n_fenced * e->fence_op_ps;
    uint64_t net = e->nic_ps + e->n_windows * e->window_dead_ps;
    if (node >= net && node > e->bandwidth_ps)
        e->fence_ps = node - e->bandwidth_ps;
    else if (net > node && net > e->bandwidth_ps)
        e->slots_ps = net - e->bandwidth_ps;
    /* A chain's slice crosses each hop at the links' share of the CTAs
     * filling through it side by side: every channel on one node's ring
     * (they share its order), the channels a rank position holds where the
     * order rotates by channel (rings across nodes, the tree's heads). */
    uint32_t inter = MIN(e->inter.n_steps, e->n_fill_hops);
    bool same_order = (e->algo == COLL_ALGO_RING && e->n_nodes == 1) || nvls_algo(e->algo);
    e->n_fill_ctas = same_order ? e->n_ctas : (e->n_ctas + e->ppn - 1) / e->ppn;
    e->fill_bytes = op_bytes;
    e->slice_ps = ps_of((double)op_bytes * e->wire_factor * e->n_fill_ctas, e->nvlink_bytes_per_s);
    /* NVLS-tree's heads forward each chunk over the NICs as it comes,
     * not a window of them */
    uint64_t net_bytes = nvls_algo(e->algo) ? op_bytes / MAX(e->n_slots, 1) : op_bytes;
    e->net_slice_ps =
        ps_of((double)net_bytes * e->nic_wire_factor * e->n_fill_ctas, e->nic_bytes_per_s);
    /* and no faster than its CTA writes it (coll-exec paces the sends) */
    uint64_t copy_ps = ps_of((double)op_bytes, e->channel_bytes_per_s);
    e->slice_ps = MAX(e->slice_ps, copy_ps);
    e->net_slice_ps = MAX(e->net_slice_ps, copy_ps);
    e->fill_ps = (e->n_fill_hops - inter) * e->slice_ps + inter * e->net_slice_ps;
}

/* A ring's ranks run in step, each from its own segment: a step waits for
 * its neighbour's slice (its transfer at the CTA's share of the link, and
 * the step's latency) only beyond the step's own copies, once per chunk of
 * a segment. A chain (the tree, broadcast, NVLS) and a direct round wait
 * for it in full. */
static void
estimate_exposed_latency(CollEstimate *e, uint64_t op_bytes)
{
    bool chain = e->op == COLL_OP_BROADCAST || e->op == COLL_OP_REDUCE;
    uint32_t steps = e->intra.n_steps + e->inter.n_steps;
    if (e->algo != COLL_ALGO_RING || chain || steps == 0 || e->cta_bytes == 0) {
        e->latency_exposed_ps = e->latency_ps;
        return;
    }
    e->step_copy_ps = (e->bandwidth_ps + e->fence_ps + e->slots_ps) / (e->n_loops * steps);
    e->intra.transfer_ps =
        (uint64_t)llround((double)op_bytes * (double)e->nvlink_ps / (double)e->cta_bytes);
    uint32_t nic_flows = (e->n_ctas + e->ppn - 1) / e->ppn;
    e->inter.transfer_ps =
        ps_of((double)op_bytes * e->nic_wire_factor * nic_flows, e->nic_bytes_per_s);
    const CollEstimateStep *kinds[] = {&e->intra, &e->inter};
    for (int k = 0; k < 2; k++) {
        const CollEstimateStep *st = kinds[k];
        uint64_t wait = st->transfer_ps + st->step_ps;
        if (wait > e->step_copy_ps)
            e->latency_exposed_ps += e->n_loops * st->n_steps * (wait - e->step_copy_ps);
    }
}

/* Reduction: hidden behind the copies of the steps that reduce (the same
 * bytes' share of the bandwidth and fence), exposed beyond them; a
 * reduce_scatter's last step reduces the rank's own segment with nothing
 * to send, in full. */
static void
estimate_reduction(const CollComm *comm, CollEstimate *e)
{
    if (e->reduce_bytes == 0)
        return;
    e->stream_bytes_per_s = hw_gpu_stream_bytes_per_s(comm->system->gpu);
    e->reduce_ps = sim_serialization_ps(2 * e->reduce_bytes, e->stream_bytes_per_s);
    if (e->algo == COLL_ALGO_RING && e->op == COLL_OP_REDUCE_SCATTER)
        e->reduce_last_bytes = e->n_bytes / comm->n_ranks;
    uint64_t last_ps = sim_serialization_ps(2 * e->reduce_last_bytes, e->stream_bytes_per_s);
    uint64_t pass = (uint64_t)e->n_ctas * e->cta_bytes;
    double hidden = pass > 0 ? (double)(e->bandwidth_ps + e->fence_ps + e->slots_ps) *
                                   (double)(e->reduce_bytes - e->reduce_last_bytes) / (double)pass
                             : 0;
    double sent = (double)(e->reduce_ps - last_ps);
    e->reduce_exposed_ps = (sent > hidden ? (uint64_t)(sent - hidden) : 0) + last_ps;
}

/* nccl-tests' bytes a rank sends per byte of the call (its bus factor);
 * alltoall sends (n-1)/n of it, sendrecv all of it. */
static double
moved_factor(CollOp op, uint32_t n)
{
    return op == COLL_OP_SENDRECV ? 1.0 : coll_busbw_factor(op, n);
}

/* coll_run's plan of the call (e->n_bytes rounded as it rounds them):
 * NCCL's choice, its channels and chunks, the costs the executor charges. */
static bool
choose(const CollComm *comm, const CollCall *call, CollEstimate *e, CollRunPlan *rp, GError **error)
{
    CollCall rounded = *call;
    rounded.n_bytes = e->n_bytes;
    if (!coll_call_plan(comm, &rounded, rp, error))
        return false;
    e->algo = rp->algo;
    e->proto = rp->proto;
    bool laid_out =
        (e->algo == COLL_ALGO_RING && call->op != COLL_OP_ALLTOALL &&
         call->op != COLL_OP_SENDRECV) ||
        (e->algo == COLL_ALGO_TREE && call->op == COLL_OP_ALL_REDUCE) ||
        (e->algo == COLL_ALGO_NVLS && comm->n_nodes == 1) ||
        (e->algo == COLL_ALGO_NVLS_TREE && call->op == COLL_OP_ALL_REDUCE && comm->n_nodes > 1) ||
        (e->algo == COLL_ALGO_PAT && coll_comm_node_ranks(comm, 0) == 1 &&
         (call->op == COLL_OP_ALL_GATHER || call->op == COLL_OP_REDUCE_SCATTER)) ||
        ((e->algo == COLL_ALGO_COLLNET_DIRECT || e->algo == COLL_ALGO_COLLNET_CHAIN) &&
         call->op == COLL_OP_ALL_REDUCE) ||
        (e->algo == COLL_ALGO_DIRECT &&
         (call->op == COLL_OP_ALLTOALL || call->op == COLL_OP_SENDRECV));
    if (!laid_out || comm->n_ranks < 2) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "no estimate of %s with the %s algorithm on %u GPUs: the simulation does "
                    "not lay it out",
                    coll_op_name(call->op), coll_algo_name(e->algo), comm->n_ranks);
        return false;
    }
    e->plan = rp->plan;
    return true;
}

bool
coll_estimate(const CollComm *comm, const CollCall *call, CollEstimate *e, GError **error)
{
    g_return_val_if_fail(comm != NULL && call != NULL && e != NULL, false);
    *e = (CollEstimate){.op = call->op, .n_bytes = call->n_bytes};
    if (comm->system->loopback != NULL) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%s runs nvlsim-bench's loopback kernel: its closed form is "
                    "coll_loopback_time_ps",
                    comm->system->id);
        return false;
    }
    if (call->op == COLL_OP_ALL_GATHER || call->op == COLL_OP_REDUCE_SCATTER ||
        call->op == COLL_OP_ALLTOALL) {
        uint64_t unit = (uint64_t)MAX(call->elem_bytes, 1) * comm->n_ranks;
        e->n_bytes = call->n_bytes / unit * unit;
    }
    e->n_ranks = comm->n_ranks;
    e->n_nodes = comm->n_nodes;
    e->ppn = coll_comm_node_ranks(comm, 0);
    CollRunPlan rp;
    if (!choose(comm, call, e, &rp, error))
        return false;
    e->setup_ps = rp.start_ps;
    e->sync_ps = rp.sync_ps;
    e->factor = moved_factor(call->op, comm->n_ranks);
    e->moved_bytes = (uint64_t)llround(e->factor * (double)e->n_bytes);
    e->wire_factor = coll_proto_wire_factor(e->proto);
    e->nic_wire_factor = e->wire_factor;
    e->channel_bytes_per_s = rp.channel_bytes_per_s;
    estimate_paths(comm, &rp, e);
    uint64_t op_bytes = 0;
    switch (e->algo) {
    case COLL_ALGO_RING:
        estimate_ring(comm, e, &op_bytes);
        break;
    case COLL_ALGO_TREE:
        estimate_tree(comm, e, &op_bytes);
        break;
    case COLL_ALGO_NVLS:
        estimate_nvls(comm, e, &op_bytes);
        e->channel_bytes_per_s = 0;
        break;
    case COLL_ALGO_NVLS_TREE:
        estimate_nvls_tree(comm, e, &op_bytes);
        e->channel_bytes_per_s = 0;
        break;
    case COLL_ALGO_PAT:
        estimate_pat(comm, e);
        break;
    case COLL_ALGO_COLLNET_DIRECT:
    case COLL_ALGO_COLLNET_CHAIN:
        estimate_collnet(comm, e, &op_bytes);
        break;
    default:
        estimate_direct(comm, e, &op_bytes);
        break;
    }
    e->intra.step_ps = e->intra.n_writes * e->intra.wire_ps + e->intra.sync_ps;
    e->inter.step_ps = e->inter.n_writes * e->inter.wire_ps + e->inter.sync_ps;
    e->latency_ps = e->intra.n_steps * e->intra.step_ps + e->inter.n_steps * e->inter.step_ps;
    estimate_bandwidth(e, op_bytes);
    estimate_exposed_latency(e, op_bytes);
    estimate_reduction(comm, e);
    e->kernel_ps = e->setup_ps + e->sync_ps + e->latency_exposed_ps + e->bandwidth_ps + e->fill_ps +
                   e->fence_ps + e->slots_ps + e->reduce_exposed_ps;
    return true;
}

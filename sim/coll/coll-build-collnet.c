/* SPDX-License-Identifier: Apache-2.0 */
/* CollNet schedules (NCCL's in-network reduction on SHARP switches), as
 * programs for the executor; all_reduce, Simple.
 *
 * Both reduce each node's data to heads, GPUs with their own NIC, and let
 * the fabric reduce across nodes: per channel a SHARP aggregation tree,
 * the leaf switch each head's NIC is on reducing its nodes' streams and,
 * when the heads sit on several leaves, the spine reducing the leaves'
 * (each switch a participant that costs no GPU time, at the switch's SHARP
 * rate). The sum comes back down the same tree. Each node sends its data
 * once up and receives it once down: S bytes each way per node.
 * Chain (all_reduce.h RunWorkColl<..., NCCL_ALGO_COLLNET_CHAIN, ...>): per
 * channel a chain through the node's ranks from its head, reduced up to the
 * head, the result broadcast back down it; the channel's head is the
 * channel's NIC GPU, in turn.
 * Direct (RunWorkColl<..., NCCL_ALGO_COLLNET_DIRECT, ...>): each channel's
 * data split over the heads; every rank scatters each head's part to it,
 * the head reduces it with its own and sends it up, receives the sum and
 * sends it to every other rank of its node (gather). Scatter and gather run
 * as one program per rank and head (NCCL's one thread group per direction
 * serves them in turn).
 * Simplification: the tree is the leaves the heads' NICs are on and one
 * spine vertex above them (topo-build's fabric); SHARP's own tree placement
 * and its limits on concurrent trees are not modelled.
 */
#include "coll/coll-build.h"

#include "topo/topo-route.h"

/* The leaf switch the NIC nearest vertex gpu (a GPU of comm) is on. */
static uint32_t
leaf_of(const CollComm *comm, uint32_t gpu)
{
    const TopoGraph *g = comm->graph;
    uint32_t best = TOPO_NONE, best_hops = UINT32_MAX;
    for (uint32_t l = 0; l < topo_graph_n_links(g); l++) {
        const TopoLink *link = topo_graph_link(g, l);
        if (topo_graph_vertex(g, link->src)->kind != TOPO_NIC ||
            topo_graph_vertex(g, link->dst)->kind != TOPO_LEAF ||
            topo_graph_vertex(g, link->src)->node != topo_graph_vertex(g, gpu)->node)
            continue;
        TopoRoute route;
        if (!topo_router_route(comm->router, gpu, link->src, &route))
            continue;
        if (route.path[0].n_hops < best_hops) {
            best_hops = route.path[0].n_hops;
            best = link->dst;
        }
    }
    g_assert(best != TOPO_NONE);
    return best;
}

uint32_t
coll_build_collnet_heads(const CollComm *comm, uint32_t *ranks)
{
    const HwSystem *sys = comm->system;
    uint32_t n = 0;
    for (uint32_t r = 0; r < comm->ppn; r++) {
        uint32_t gpu = topo_graph_vertex(comm->graph, comm->rank_vertex[r])->index;
        bool has = false;
        for (uint32_t k = 0; k < sys->n_nics && !has; k++)
            has = (sys->n_nics >= sys->n_gpus ? k / (sys->n_nics / sys->n_gpus)
                                              : k * sys->n_gpus / sys->n_nics) == gpu;
        if (has)
            ranks[n++] = r;
    }
    return n;
}

/* One channel's SHARP tree over the nodes' heads (head[node], ranks):
 * up[node] from the head into the tree, down[node] back. */
typedef struct Sharp {
    CollBuild *b;
    uint32_t n_nodes;
    uint32_t *up, *down;
    uint32_t n_leaves;
    uint32_t leaf_part[64], leaf_reduce[64], leaf_bcast[64];
    uint32_t leaf_up[64], leaf_down[64]; /* to and from the spine */
    uint32_t *node_leaf;                 /* [node]: index among the leaves */
    uint32_t spine_prog;
} Sharp;

static uint32_t
switch_part(CollBuild *b, uint32_t vertex)
{
    uint32_t part = coll_exec_participant(b->ex, vertex);
    const HwSwitch *sw = topo_graph_vertex(b->comm->graph, vertex)->sw;
    coll_exec_set_reduce_rate(b->ex, part, sw != NULL ? sw->sharp_bytes_per_s : 0);
    return part;
}

static void
sharp_clear(Sharp *t)
{
    g_free(t->up);
    g_free(t->down);
    g_free(t->node_leaf);
}

static bool
sharp_init(Sharp *t, CollBuild *b, const uint32_t *head, GError **error)
{
    const CollComm *comm = b->comm;
    *t = (Sharp){.b = b, .n_nodes = comm->n_nodes};
    t->up = g_new(uint32_t, t->n_nodes);
    t->down = g_new(uint32_t, t->n_nodes);
    t->node_leaf = g_new(uint32_t, t->n_nodes);
    uint32_t leaf_vertex[64];
    for (uint32_t node = 0; node < t->n_nodes; node++) {
        uint32_t v = leaf_of(comm, comm->rank_vertex[head[node]]), i = 0;
        while (i < t->n_leaves && leaf_vertex[i] != v)
            i++;
        if (i == t->n_leaves) {
            if (t->n_leaves == G_N_ELEMENTS(leaf_vertex)) {
                g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            "a SHARP tree over more than %zu leaf switches is not modelled",
                            G_N_ELEMENTS(leaf_vertex));
                sharp_clear(t);
                return false;
            }
            leaf_vertex[t->n_leaves] = v;
            t->leaf_part[t->n_leaves++] = switch_part(b, v);
        }
        t->node_leaf[node] = i;
        t->up[node] = coll_build_conn(b, b->rank_part[head[node]], t->leaf_part[i]);
        t->down[node] = coll_build_conn(b, t->leaf_part[i], b->rank_part[head[node]]);
    }
    uint32_t spine_part = UINT32_MAX;
    for (uint32_t l = 0; l < topo_graph_n_links(comm->graph) && t->n_leaves > 1; l++) {
        const TopoLink *link = topo_graph_link(comm->graph, l);
        if (link->src == leaf_vertex[0] &&
            topo_graph_vertex(comm->graph, link->dst)->kind == TOPO_SPINE)
            spine_part = switch_part(b, link->dst);
    }
    g_assert(t->n_leaves == 1 || spine_part != UINT32_MAX);
    for (uint32_t i = 0; i < t->n_leaves; i++) {
        t->leaf_reduce[i] = coll_build_unfenced_program(b, t->leaf_part[i]);
        t->leaf_bcast[i] =
            t->n_leaves > 1 ? coll_build_unfenced_program(b, t->leaf_part[i]) : UINT32_MAX;
        if (t->n_leaves > 1) {
            t->leaf_up[i] = coll_build_conn(b, t->leaf_part[i], spine_part);
            t->leaf_down[i] = coll_build_conn(b, spine_part, t->leaf_part[i]);
        }
    }
    t->spine_prog = t->n_leaves > 1 ? coll_build_unfenced_program(b, spine_part) : UINT32_MAX;
    return true;
}

/* The switches' part of one chunk of cb bytes every head sends up: each
 * leaf reduces its nodes' chunks; one leaf sends the sum back down, or the
 * spine reduces the leaves' and sends it down through them. */
static void
sharp_chunk(Sharp *t, uint64_t cb)
{
    CollExec *ex = t->b->ex;
    uint32_t in[256], out[256];
    for (uint32_t i = 0; i < t->n_leaves; i++) {
        uint32_t n = 0;
        for (uint32_t node = 0; node < t->n_nodes; node++)
            if (t->node_leaf[node] == i) {
                in[n] = t->up[node];
                out[n++] = t->down[node];
            }
        if (t->n_leaves == 1) {
            coll_exec_op(ex, t->leaf_reduce[i], in, n, out, n, cb, n > 1 ? cb : 0);
            return;
        }
        coll_exec_op(ex, t->leaf_reduce[i], in, n, &t->leaf_up[i], 1, cb, n > 1 ? cb : 0);
        coll_exec_op(ex, t->leaf_bcast[i], &t->leaf_down[i], 1, out, n, cb, 0);
    }
    coll_exec_op(ex, t->spine_prog, t->leaf_up, t->n_leaves, t->leaf_down, t->n_leaves, cb, cb);
}

static bool
collnet_check(CollBuild *b, const char *name, uint32_t *heads, uint32_t *n_heads, GError **error)
{
    const CollComm *comm = b->comm;
    *n_heads = coll_build_collnet_heads(comm, heads);
    if (b->call->op != COLL_OP_ALL_REDUCE || comm->n_nodes < 2 || !comm->even ||
        comm->ppn > COLL_COLLNET_MAX_PPN || *n_heads == 0 || comm->n_nodes > 256 ||
        !hw_system_sharp(comm->system)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%s runs all_reduce on 2 nodes or more of at most %d ranks each, as many "
                    "on every node (nvlsim does not simulate it on nodes of different sizes), "
                    "GPUs with their own NIC, on a fabric with SHARPv2 or later",
                    name, COLL_COLLNET_MAX_PPN);
        return false;
    }
    return true;
}

/* Whether n_trees SHARP trees over every node, each on n_chunks chunks
 * with per_node programs and connections a node besides its head's two
 * (and, at the switches, at most a reduce and a broadcast program a leaf,
 * one at the spine, two connections a leaf each way), fit
 * coll_build_fits; every program runs an operation a chunk, in at most
 * two runs (the last chunk's size), naming at most the node's ranks or
 * the leaves. */
static bool
collnet_fits(CollBuild *b, uint64_t n_trees, uint64_t n_chunks, uint32_t per_node, GError **error)
{
    uint64_t n_nodes = b->comm->n_nodes;
    uint64_t progs = n_trees * (n_nodes * (per_node + 2) + 2 * n_nodes + 1);
    uint64_t conns = n_trees * n_nodes * (per_node + 4);
    CollBuildSize size = {(double)progs * (double)n_chunks, progs, conns, 2 * progs,
                          2 * progs * (MAX(b->comm->ppn, n_nodes) + 1)};
    return coll_build_fits(b, &size, error,
                           "%" G_GUINT64_FORMAT " chunks, %" G_GUINT64_FORMAT " trees", n_chunks,
                           n_trees);
}

/* ---- Chain. ---- */

bool
coll_build_collnet_chain(CollBuild *b, GError **error)
{
    uint32_t heads[COLL_COLLNET_MAX_PPN], n_heads;
    if (!collnet_check(b, "collnet_chain", heads, &n_heads, error))
        return false;
    const CollComm *comm = b->comm;
    uint32_t ppn = comm->ppn, nch = MAX(b->plan.n_channels, 1);
    uint64_t chunk = MAX(b->plan.chunk_bytes, 1);
    uint64_t chunks = MAX((coll_build_share(b->call->n_bytes, nch, 0) + chunk - 1) / chunk, 1);
    if (!collnet_fits(b, nch, chunks, 2 * ppn, error))
        return false;
    g_autofree uint32_t *head = g_new(uint32_t, comm->n_nodes);
    g_autofree uint32_t *rank = g_new(uint32_t, (size_t)comm->n_nodes * ppn); /* by position */
    g_autofree uint32_t *up = g_new(uint32_t, (size_t)comm->n_nodes * ppn);
    g_autofree uint32_t *down = g_new(uint32_t, (size_t)comm->n_nodes * ppn);
    g_autofree uint32_t *reduce = g_new(uint32_t, (size_t)comm->n_nodes * ppn);
    g_autofree uint32_t *bcast = g_new(uint32_t, (size_t)comm->n_nodes * ppn);
    for (uint32_t ch = 0; ch < nch; ch++) {
        uint32_t h = heads[ch % n_heads];
        for (uint32_t node = 0; node < comm->n_nodes; node++) {
            head[node] = node * ppn + h;
            for (uint32_t pos = 0; pos < ppn; pos++) {
                uint32_t i = node * ppn + pos;
                rank[i] = node * ppn + (h + pos) % ppn;
                reduce[i] = coll_exec_program(b->ex, b->rank_part[rank[i]]);
                bcast[i] = coll_exec_program(b->ex, b->rank_part[rank[i]]);
                if (pos > 0) { /* up[i]: position pos to pos - 1 */
                    up[i] = coll_build_conn(b, b->rank_part[rank[i]], b->rank_part[rank[i - 1]]);
                    down[i] = coll_build_conn(b, b->rank_part[rank[i - 1]], b->rank_part[rank[i]]);
                }
            }
        }
        Sharp t;
        if (!sharp_init(&t, b, head, error))
            return false;
        uint64_t data = coll_build_share(b->call->n_bytes, nch, ch);
        for (uint64_t off = 0; off < data || off == 0; off += chunk) {
            uint64_t cb = MIN(chunk, data - off);
            for (uint32_t node = 0; node < comm->n_nodes; node++)
                for (uint32_t pos = 0; pos < ppn; pos++) {
                    uint32_t i = node * ppn + pos;
                    bool child = pos + 1 < ppn;
                    const uint32_t *to_parent = pos == 0 ? &t.up[node] : &up[i];
                    const uint32_t *from_parent = pos == 0 ? &t.down[node] : &down[i];
                    coll_exec_op(b->ex, reduce[i], child ? &up[i + 1] : NULL, child ? 1 : 0,
                                 to_parent, 1, cb, child ? cb : 0);
                    coll_exec_op(b->ex, bcast[i], from_parent, 1, child ? &down[i + 1] : NULL,
                                 child ? 1 : 0, cb, 0);
                }
            sharp_chunk(&t, cb);
            if (data == 0)
                break;
        }
        sharp_clear(&t);
    }
    return true;
}

/* ---- Direct. ---- */

bool
coll_build_collnet_direct(CollBuild *b, GError **error)
{
    uint32_t heads[COLL_COLLNET_MAX_PPN], n_heads;
    if (!collnet_check(b, "collnet_direct", heads, &n_heads, error))
        return false;
    const CollComm *comm = b->comm;
    uint32_t ppn = comm->ppn, nch = MAX(b->plan.n_channels, 1), n_nodes = comm->n_nodes;
    CollTuneGraph g;
    coll_tune_graph(&comm->info, COLL_ALGO_COLLNET_DIRECT, &g);
    n_heads = CLAMP(g.n_channels, 1, n_heads);
    uint64_t chunk = MAX(b->plan.chunk_bytes, 1);
    uint64_t largest = coll_build_share(coll_build_share(b->call->n_bytes, nch, 0), n_heads, 0);
    if (!collnet_fits(b, (uint64_t)nch * n_heads, MAX((largest + chunk - 1) / chunk, 1), 2 * ppn,
                      error))
        return false;
    g_autofree uint32_t *head = g_new(uint32_t, n_nodes);
    /* Per node, head k and local rank r (index (node * heads + k) * ppn + r):
     * the scatter and gather connections and programs (r not the head). */
    size_t n = (size_t)n_nodes * n_heads * ppn;
    g_autofree uint32_t *scat = g_new(uint32_t, n), *gath = g_new(uint32_t, n);
    g_autofree uint32_t *scat_prog = g_new(uint32_t, n), *gath_prog = g_new(uint32_t, n);
    g_autofree uint32_t *reduce = g_new(uint32_t, (size_t)n_nodes * n_heads);
    g_autofree uint32_t *bcast = g_new(uint32_t, (size_t)n_nodes * n_heads);
    uint32_t in[COLL_COLLNET_MAX_PPN], out[COLL_COLLNET_MAX_PPN];
    for (uint32_t ch = 0; ch < nch; ch++) {
        uint64_t data = coll_build_share(b->call->n_bytes, nch, ch);
        for (uint32_t k = 0; k < n_heads; k++) {
            for (uint32_t node = 0; node < n_nodes; node++) {
                uint32_t hr = node * ppn + heads[k], hk = node * n_heads + k;
                head[node] = hr;
                reduce[hk] = coll_exec_program(b->ex, b->rank_part[hr]);
                bcast[hk] = coll_exec_program(b->ex, b->rank_part[hr]);
                for (uint32_t r = 0; r < ppn; r++) {
                    size_t i = (size_t)hk * ppn + r;
                    uint32_t rr = node * ppn + r;
                    if (rr == hr)
                        continue;
                    scat[i] = coll_build_conn(b, b->rank_part[rr], b->rank_part[hr]);
                    gath[i] = coll_build_conn(b, b->rank_part[hr], b->rank_part[rr]);
                    scat_prog[i] = coll_exec_program(b->ex, b->rank_part[rr]);
                    gath_prog[i] = coll_exec_program(b->ex, b->rank_part[rr]);
                }
            }
            Sharp t;
            if (!sharp_init(&t, b, head, error))
                return false;
            uint64_t part = coll_build_share(data, n_heads, k);
            for (uint64_t off = 0; off < part || off == 0; off += chunk) {
                uint64_t cb = MIN(chunk, part - off);
                for (uint32_t node = 0; node < n_nodes; node++) {
                    uint32_t hk = node * n_heads + k, m = 0;
                    for (uint32_t r = 0; r < ppn; r++) {
                        size_t i = (size_t)hk * ppn + r;
                        if (r == heads[k])
                            continue;
                        coll_exec_op(b->ex, scat_prog[i], NULL, 0, &scat[i], 1, cb, 0);
                        coll_exec_op(b->ex, gath_prog[i], &gath[i], 1, NULL, 0, cb, 0);
                        in[m] = scat[i];
                        out[m++] = gath[i];
                    }
                    coll_exec_op(b->ex, reduce[hk], in, m, &t.up[node], 1, cb, m > 0 ? cb : 0);
                    coll_exec_op(b->ex, bcast[hk], &t.down[node], 1, out, m, cb, 0);
                }
                sharp_chunk(&t, cb);
                if (part == 0)
                    break;
            }
            sharp_clear(&t);
        }
    }
    return true;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* NVLS and NVLS-tree schedules, as programs for the executor (see
 * coll-build.h).
 *
 * NVLS (all_reduce, all_gather, reduce_scatter, one node): every NVSwitch
 * plane reduces each rank's segment from all ranks and multicasts results,
 * bytes split over planes by their links; NCCL's NVLS efficiency for the
 * generation scales the wire bytes (the switch's reduction and multicast
 * reach that fraction of the port rate). In a two-tier domain whose ranks
 * span boards, a plane's spine reduces and multicasts, every rank's bytes
 * crossing its board's switch of the plane on the way (a leaf with as
 * many links up as down carries them all, so reducing there first would
 * save no time).
 * NVLS-tree (all_reduce, several nodes): NVLS inside each node for the
 * chunks of each head GPU, and NCCL's double binary tree between the
 * nodes' heads over their NICs.
 */
#include "coll/coll-build.h"

typedef struct Plane {
    uint32_t vertex;
    uint32_t weight; /* links from each GPU */
    uint32_t copies; /* planes it stands for */
    const HwLink *spec;
} Plane;

/* The spine above switch vertex leaf (its plane's, in a two-tier domain),
 * or leaf itself. */
static uint32_t
spine_of(const TopoGraph *g, uint32_t leaf)
{
    for (uint32_t l = 0; l < topo_graph_n_links(g); l++) {
        const TopoLink *link = topo_graph_link(g, l);
        if (link->src == leaf && topo_graph_vertex(g, link->dst)->kind == TOPO_NVSWITCH)
            return link->dst;
    }
    return leaf;
}

/* Links from rank vertex r to the switch of plane (a leaf, or the spine
 * above r's leaf of that plane), 0 if none. */
static uint32_t
plane_links(const TopoGraph *g, uint32_t r, uint32_t plane, bool spines)
{
    for (uint32_t l = 0; l < topo_graph_n_links(g); l++) {
        const TopoLink *link = topo_graph_link(g, l);
        if (link->src == r && (link->dst == plane || (spines && spine_of(g, link->dst) == plane)))
            return link->n_links;
    }
    return 0;
}

/* Whether node's ranks sit on several boards of a two-tier domain (NVLS
 * then reduces at the spines). */
static bool
spans_boards(const CollComm *comm, uint32_t node)
{
    const TopoGraph *g = comm->graph;
    const HwSystem *sys = comm->system;
    uint32_t first = comm->node_first[node], last = comm->node_first[node + 1];
    uint32_t per_board = MAX(sys->n_board_gpus, 1);
    uint32_t board = topo_graph_vertex(g, comm->rank_vertex[first])->index / per_board;
    for (uint32_t r = first + 1; r < last && sys->n_spine_links > 0; r++)
        if (topo_graph_vertex(g, comm->rank_vertex[r])->index / per_board != board)
            return true;
    return false;
}

uint32_t
coll_build_nvls_switch(const CollComm *comm, uint32_t node, uint32_t leaf)
{
    return spans_boards(comm, node) ? spine_of(comm->graph, leaf) : leaf;
}

/* The NVLS-capable switch planes every rank of node reaches directly, or
 * through its board's switch where the ranks span boards of a two-tier
 * domain, each weighted by the fewest links a rank of the node has to it
 * (with links down, a plane some rank lost is left out). Without faults
 * every rank has the same links to a plane and planes of the same links
 * carry the same share in the same time: one of them stands for all. */
static uint32_t
nvls_planes(const CollComm *comm, uint32_t node, Plane *planes, uint32_t max)
{
    const TopoGraph *g = comm->graph;
    uint32_t first = comm->node_first[node], last = comm->node_first[node + 1], n = 0;
    bool spines = spans_boards(comm, node);
    for (uint32_t l = 0; l < topo_graph_n_links(g) && n < max; l++) {
        const TopoLink *link = topo_graph_link(g, l);
        const TopoVertex *dst = topo_graph_vertex(g, link->dst);
        if (link->src != comm->rank_vertex[first] || dst->kind != TOPO_NVSWITCH ||
            dst->sw == NULL || !dst->sw->nvls)
            continue;
        uint32_t plane = spines ? spine_of(g, link->dst) : link->dst;
        uint32_t weight = link->n_links;
        for (uint32_t r = first + 1; r < last && weight > 0 && g->faulted; r++)
            weight = MIN(weight, plane_links(g, comm->rank_vertex[r], plane, spines));
        if (weight == 0)
            continue;
        uint32_t alike = g->faulted ? n : 0;
        while (alike < n && (planes[alike].weight != weight || planes[alike].spec != link->spec))
            alike++;
        if (alike < n)
            planes[alike].copies++;
        else
            planes[n++] = (Plane){plane, weight, 1, link->spec};
    }
    return n;
}

/* One node's NVLS in one channel: its ranks first .. first + n - 1 and
 * their switch planes. Per rank and plane (index r * np + p): up (its copy
 * of a chunk, to reduce), down (the reduced chunk, to its owner), mc_up
 * (the owner's chunk, to multicast), mc_down (a multicast copy). Per
 * plane: the switch's reduce and multicast programs. Per rank: give (its
 * copies), own (the chunks it owns: the sum comes back and goes out to be
 * multicast), take (the multicast copies). */
typedef struct Nvls {
    CollBuild *b;
    Plane planes[64];
    uint32_t first, n, np, total_weight;
    bool reduce, multicast;
    uint32_t *up, *down, *mc_up, *mc_down, *sw_reduce, *sw_mc, *give, *own, *take, *list;
} Nvls;

/* The node's planes; false when some rank reaches none. */
static bool
nvls_init(Nvls *v, CollBuild *b, uint32_t node)
{
    uint32_t n = coll_comm_node_ranks(b->comm, node);
    *v = (Nvls){.b = b, .first = b->comm->node_first[node], .n = n};
    v->np = nvls_planes(b->comm, node, v->planes, G_N_ELEMENTS(v->planes));
    if (v->np == 0)
        return false;
    for (uint32_t p = 0; p < v->np; p++)
        v->total_weight += v->planes[p].weight * v->planes[p].copies;
    size_t nnp = (size_t)n * v->np;
    v->up = g_new(uint32_t, nnp);
    v->down = g_new(uint32_t, nnp);
    v->mc_up = g_new(uint32_t, nnp);
    v->mc_down = g_new(uint32_t, nnp);
    v->sw_reduce = g_new(uint32_t, v->np);
    v->sw_mc = g_new(uint32_t, v->np);
    v->give = g_new(uint32_t, n);
    v->own = g_new(uint32_t, n);
    v->take = g_new(uint32_t, n);
    v->list = g_new(uint32_t, n);
    return true;
}

static void
nvls_clear(Nvls *v)
{
    uint32_t *arrays[] = {v->up,    v->down, v->mc_up, v->mc_down, v->sw_reduce,
                          v->sw_mc, v->give, v->own,   v->take,    v->list};
    for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++)
        g_free(arrays[i]);
}

/* A channel's connections and programs; the switch's reduction and
 * multicast reach 1 / factor of the port rate. */
static void
nvls_connect(Nvls *v, double factor)
{
    CollBuild *b = v->b;
    uint32_t n = v->n, np = v->np;
    for (uint32_t p = 0; p < np; p++) {
        uint32_t sw = coll_exec_participant(b->ex, v->planes[p].vertex);
        v->sw_reduce[p] = coll_build_unfenced_program(b, sw);
        v->sw_mc[p] = coll_build_unfenced_program(b, sw);
        for (uint32_t r = 0; r < n; r++) {
            uint32_t part = b->rank_part[v->first + r];
            uint32_t *conns[] = {&v->up[r * np + p], &v->down[r * np + p], &v->mc_up[r * np + p],
                                 &v->mc_down[r * np + p]};
            for (int k = 0; k < 4; k++) {
                uint32_t from = k % 2 == 0 ? part : sw, to = k % 2 == 0 ? sw : part;
                *conns[k] = coll_exec_connection(b->ex, from, to, coll_build_depth(b), factor);
                coll_exec_set_share(b->ex, *conns[k], (double)v->planes[p].weight / v->total_weight,
                                    v->planes[p].copies);
            }
        }
    }
    for (uint32_t r = 0; r < n; r++) {
        uint32_t part = b->rank_part[v->first + r];
        v->give[r] = coll_build_unfenced_program(b, part);
        v->own[r] = coll_build_unfenced_program(b, part);
        v->take[r] = coll_build_unfenced_program(b, part);
    }
}

/* What one node's NVLS of n ranks over np planes adds to a schedule in a
 * channel of n_loops loops of owned chunks, each loop reducing and
 * multicasting (when both are set) n_owners chunks: nvls_connect's
 * programs and connections; a switch program's operation an owner, each
 * naming the n ranks' connections and the owner's (runs, as the owner
 * changes from one to the next); the ranks' operations at most one run
 * an owner. */
static void
nvls_size(CollBuildSize *size, uint32_t n, uint32_t np, uint64_t n_loops, uint32_t n_owners)
{
    double owners = (double)n_loops * n_owners;
    size->n_ops += owners * (2.0 * n + 2.0 * np + 1);
    size->n_progs += 2 * (uint64_t)np + 3 * (uint64_t)n;
    size->n_conns += 4 * (uint64_t)n * np;
    uint64_t runs = (uint64_t)owners * (2 * (uint64_t)np + 3);
    size->n_runs += runs;
    size->n_peers += runs * ((uint64_t)n + np + 1);
}

/* Every rank's copy of owner g's chunk of cb bytes, reduced in each plane
 * and sent to g (g's multimem load-reduce). */
static void
nvls_reduce_to(Nvls *v, uint32_t g, uint64_t cb)
{
    CollExec *ex = v->b->ex;
    uint32_t n = v->n, np = v->np;
    for (uint32_t r = 0; r < n; r++)
        coll_exec_op(ex, v->give[r], NULL, 0, &v->up[r * np], np, cb, 0);
    for (uint32_t p = 0; p < np; p++) {
        for (uint32_t r = 0; r < n; r++)
            v->list[r] = v->up[r * np + p];
        coll_exec_op(ex, v->sw_reduce[p], v->list, n, &v->down[g * np + p], 1, cb, 0);
    }
}

/* Owner g's chunk, stored to the multicast address (g's mc_up, sent by
 * g's program), copied to every rank by each plane. */
static void
nvls_multicast_from(Nvls *v, uint32_t g, uint64_t cb)
{
    CollExec *ex = v->b->ex;
    uint32_t n = v->n, np = v->np;
    for (uint32_t p = 0; p < np; p++) {
        for (uint32_t r = 0; r < n; r++)
            v->list[r] = v->mc_down[r * np + p];
        coll_exec_op(ex, v->sw_mc[p], &v->mc_up[g * np + p], 1, v->list, n, cb, 0);
    }
    for (uint32_t r = 0; r < n; r++)
        coll_exec_op(ex, v->take[r], &v->mc_down[r * np], np, NULL, 0, cb, 0);
}

/* Owner g's chunk of cb bytes through every plane, on one node. */
static void
nvls_chunk(Nvls *v, uint32_t g, uint64_t cb)
{
    CollExec *ex = v->b->ex;
    uint32_t np = v->np;
    if (v->reduce)
        nvls_reduce_to(v, g, cb);
    if (!v->multicast) {
        coll_exec_op(ex, v->own[g], &v->down[g * np], np, NULL, 0, cb, 0);
        return;
    }
    coll_exec_op(ex, v->own[g], v->reduce ? &v->down[g * np] : NULL, v->reduce ? np : 0,
                 &v->mc_up[g * np], np, cb, 0);
    nvls_multicast_from(v, g, cb);
}

/* Data bytes per chunk: the plan's, merged so that a channel has at most
 * COLL_NVLS_MAX_CHUNKS loops of its owners' chunks. */
static uint64_t
nvls_chunk_bytes(const CollBuild *b, uint64_t seg)
{
    return MAX(MAX(b->plan.chunk_bytes, 1),
               (seg + COLL_NVLS_MAX_CHUNKS - 1) / COLL_NVLS_MAX_CHUNKS);
}

bool
coll_build_nvls(CollBuild *b, GError **error)
{
    const CollComm *comm = b->comm;
    CollOp op = b->call->op;
    Nvls v;
    bool ok = comm->n_nodes == 1 && nvls_init(&v, b, 0);
    if (!ok ||
        (op != COLL_OP_ALL_REDUCE && op != COLL_OP_ALL_GATHER && op != COLL_OP_REDUCE_SCATTER)) {
        if (ok)
            nvls_clear(&v);
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "NVLS needs one node of NVLS-capable NVSwitches and all_reduce, all_gather "
                    "or reduce_scatter");
        return false;
    }
    v.reduce = op != COLL_OP_ALL_GATHER;
    v.multicast = op != COLL_OP_REDUCE_SCATTER;
    uint32_t n = comm->n_ranks, nch = MAX(b->plan.n_channels, 1);
    CollBuildSize size = {0};
    for (uint32_t ch = 0; ch < nch; ch++) {
        uint64_t seg = coll_build_share(b->call->n_bytes / n, nch, ch);
        uint64_t chunk = nvls_chunk_bytes(b, seg);
        nvls_size(&size, n, v.np, MAX((seg + chunk - 1) / chunk, 1), n);
    }
    if (!coll_build_fits(b, &size, error, "%u planes, %u channels", v.np, nch)) {
        nvls_clear(&v);
        return false;
    }
    for (uint32_t ch = 0; ch < nch; ch++) {
        nvls_connect(&v, 1.0 / coll_tune_nvls_efficiency(&comm->info));
        uint64_t seg = coll_build_share(b->call->n_bytes / n, nch, ch);
        uint64_t chunk = nvls_chunk_bytes(b, seg);
        for (uint64_t off = 0; off < seg || off == 0; off += chunk) {
            for (uint32_t g = 0; g < n; g++)
                nvls_chunk(&v, g, MIN(chunk, seg - off));
            if (seg == 0)
                break;
        }
    }
    nvls_clear(&v);
    return true;
}

/* ncclGetBtree (trees.cc): the parent of node in the binary tree over n
 * nodes rooted at 0 that alternates leaves and inner nodes, n for the
 * root. */
static uint32_t
btree_parent(uint32_t n, uint32_t node)
{
    if (node == 0)
        return n;
    uint32_t bit = 1;
    while (bit < n && !(bit & node))
        bit <<= 1;
    uint32_t up = (node ^ bit) | (bit << 1);
    return up >= n ? node ^ bit : up;
}

uint32_t
coll_dtree_parent(uint32_t n, uint32_t tree, uint32_t node)
{
    if (tree == 0)
        return btree_parent(n, node);
    uint32_t shifted = n % 2 == 1 ? (node + n - 1) % n : n - 1 - node;
    uint32_t up = btree_parent(n, shifted);
    if (up == n)
        return n;
    return n % 2 == 1 ? (up + 1) % n : n - 1 - up;
}

/* One head's place in its channel's tree between nodes: the hops to its
 * parent's head (none at the root) and from and to its children's. */
typedef struct NvlsTreeHead {
    bool root;
    uint32_t up, down;               /* connections to the parent, from the parent */
    uint32_t kid_up[2], kid_down[2]; /* from each child, to each child */
    uint32_t n_kids;
    uint32_t reduce, bcast; /* its programs */
} NvlsTreeHead;

/* Head g of node v's part of one chunk of cb bytes: its reduce program
 * takes its node's sum from the switch (down, every plane) and its
 * children's sums, and sends the total up to its parent or, at the root,
 * stores it to its node's multicast address and sends it down to its
 * children; the broadcast program takes the total from the parent and
 * does the same. */
static void
nvls_tree_head(CollBuild *b, const Nvls *v, const NvlsTreeHead *t, uint32_t g, uint64_t cb)
{
    uint32_t np = v->np, in[G_N_ELEMENTS(v->planes) + 2], out[G_N_ELEMENTS(v->planes) + 2];
    uint32_t n_in = 0, n_out = 0;
    for (uint32_t p = 0; p < np; p++) {
        in[n_in++] = v->down[g * np + p];
        out[n_out++] = v->mc_up[g * np + p];
    }
    for (uint32_t k = 0; k < t->n_kids; k++) {
        in[n_in++] = t->kid_up[k];
        out[n_out++] = t->kid_down[k];
    }
    uint64_t reduce = t->n_kids > 0 ? cb : 0;
    if (t->root) {
        coll_exec_op(b->ex, t->reduce, in, n_in, out, n_out, cb, reduce);
    } else {
        coll_exec_op(b->ex, t->reduce, in, n_in, &t->up, 1, cb, reduce);
        coll_exec_op(b->ex, t->bcast, &t->down, 1, out, n_out, cb, 0);
    }
}

/* NVLS-tree (all_reduce over several nodes; all_reduce.h's
 * RunWorkColl<..., NCCL_ALGO_NVLS_TREE, ...>, connect.cc:248-325): per
 * channel, data in loops of one chunk per head; inside each node every
 * rank's copy of head h's chunk is reduced by the switch for head h (as
 * one-node NVLS), head h of every node reduces the nodes' sums up a
 * binary tree over its NIC, and the result comes down the tree, each head
 * storing it to its node's multicast address; even channels take tree 0,
 * odd ones tree 1 of NCCL's double tree. Heads are the GPUs with a NIC of
 * their own, one per NVLS graph channel, spread over the node; nodes of
 * different sizes have as many heads as the smallest (NCCL keeps the
 * fewest heads of any node, connect.cc:433-441 of NCCL 2.30.7). */
bool
coll_build_nvls_tree(CollBuild *b, GError **error)
{
    const CollComm *comm = b->comm;
    uint32_t N = comm->n_nodes;
    CollTuneGraph graph;
    coll_tune_graph(&comm->info, COLL_ALGO_NVLS, &graph);
    uint32_t n_heads = MIN(graph.n_channels, comm->info.node_ranks);
    g_autofree Nvls *v = g_new0(Nvls, N);
    uint32_t ready = 0;
    while (ready < N && nvls_init(&v[ready], b, ready))
        ready++;
    if (b->call->op != COLL_OP_ALL_REDUCE || N < 2 || n_heads == 0 || ready < N) {
        for (uint32_t k = 0; k < ready; k++)
            nvls_clear(&v[k]);
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "NVLS-tree needs all_reduce on two or more nodes of NVLS-capable NVSwitches "
                    "with a NIC for a head GPU");
        return false;
    }
    /* Each channel group: every node's NVLS, a loop owning a chunk a head;
     * a head's two programs and two connections to its parent, and its
     * two operations a chunk (one run). */
    uint32_t nch = MAX(b->plan.n_channels, 1);
    uint32_t n_groups = MIN(nch, COLL_NVLS_TREE_GROUPS);
    CollBuildSize size = {0};
    for (uint32_t ch = 0; ch < n_groups; ch++) {
        uint64_t seg = 0, n_merged = 0;
        for (uint32_t c = ch; c < nch; c += n_groups, n_merged++)
            seg += coll_build_share(b->call->n_bytes, nch, c);
        uint64_t chunk = MAX(n_merged * MAX(b->plan.chunk_bytes, 1),
                             nvls_chunk_bytes(b, (seg + n_heads - 1) / n_heads));
        uint64_t loops = MAX((seg + chunk * n_heads - 1) / (chunk * n_heads), 1);
        for (uint32_t k = 0; k < N; k++)
            nvls_size(&size, v[k].n, v[k].np, loops, n_heads);
        uint64_t heads = (uint64_t)N * n_heads;
        size.n_ops += 2.0 * (double)heads * (double)loops;
        size.n_progs += 2 * heads;
        size.n_conns += 2 * heads;
        size.n_runs += 2 * heads;
        size.n_peers += 2 * heads * (v[0].np + 3);
    }
    if (!coll_build_fits(b, &size, error, "%u nodes, %u heads, %u channels", N, n_heads, nch)) {
        for (uint32_t k = 0; k < N; k++)
            nvls_clear(&v[k]);
        return false;
    }
    /* node k's head h: its local rank */
    g_autofree uint32_t *head = g_new(uint32_t, (size_t)N * n_heads);
    for (uint32_t k = 0; k < N; k++)
        for (uint32_t h = 0; h < n_heads; h++)
            head[k * n_heads + h] = h * v[k].n / n_heads;
    g_autofree NvlsTreeHead *th = g_new0(NvlsTreeHead, (size_t)N * n_heads);
    double factor = 1.0 / coll_tune_nvls_efficiency(&comm->info);
    uint32_t elem = MAX(b->call->elem_bytes, 1);
    /* Channel ch takes tree ch mod 2; the channels of one tree cross the
     * same links chunk for chunk, side by side, so one program a head runs
     * them all, its chunks theirs together. */
    for (uint32_t ch = 0; ch < n_groups; ch++) {
        uint32_t n_merged = 0;
        uint64_t seg = 0;
        for (uint32_t c = ch; c < nch; c += n_groups) {
            n_merged++;
            seg += coll_build_share(b->call->n_bytes, nch, c);
        }
        for (uint32_t k = 0; k < N; k++) {
            v[k].reduce = v[k].multicast = true;
            nvls_connect(&v[k], factor);
        }
        for (uint32_t i = 0; i < N * n_heads; i++)
            th[i].n_kids = 0;
        for (uint32_t k = 0; k < N; k++) {
            uint32_t parent = coll_dtree_parent(N, ch % 2, k);
            for (uint32_t h = 0; h < n_heads; h++) {
                NvlsTreeHead *t = &th[k * n_heads + h];
                uint32_t me = v[k].first + head[k * n_heads + h];
                t->root = parent == N;
                t->reduce = coll_build_unfenced_program(b, b->rank_part[me]);
                if (t->root)
                    continue;
                uint32_t them = v[parent].first + head[parent * n_heads + h];
                t->bcast = coll_build_unfenced_program(b, b->rank_part[me]);
                /* between nodes NCCL's transport is direct (no NVB relay) */
                t->up = coll_build_conn(b, b->rank_part[me], b->rank_part[them]);
                t->down = coll_build_conn(b, b->rank_part[them], b->rank_part[me]);
                NvlsTreeHead *pt = &th[parent * n_heads + h];
                g_assert(pt->n_kids < 2);
                pt->kid_up[pt->n_kids] = t->up;
                pt->kid_down[pt->n_kids++] = t->down;
            }
        }
        uint64_t chunk = MAX(n_merged * MAX(b->plan.chunk_bytes, 1),
                             nvls_chunk_bytes(b, (seg + n_heads - 1) / n_heads));
        uint64_t loop = chunk * n_heads;
        for (uint64_t off = 0; off < seg || off == 0; off += loop) {
            uint64_t left = seg - off;
            /* The last loop splits what is left evenly over the heads
             * (lastChunkCount), in whole 16-byte packs. */
            uint64_t cb_all = left >= loop ? chunk : (left + n_heads - 1) / n_heads;
            uint64_t pack = MAX(16 / elem, 1) * elem;
            if (left < loop)
                cb_all = (cb_all + pack - 1) / pack * pack;
            for (uint32_t h = 0; h < n_heads; h++) {
                uint64_t at = (uint64_t)h * cb_all;
                uint64_t cb = at < left ? MIN(cb_all, left - at) : 0;
                for (uint32_t k = 0; k < N; k++)
                    nvls_reduce_to(&v[k], head[k * n_heads + h], cb);
                for (uint32_t k = 0; k < N; k++)
                    nvls_tree_head(b, &v[k], &th[k * n_heads + h], head[k * n_heads + h], cb);
                for (uint32_t k = 0; k < N; k++)
                    nvls_multicast_from(&v[k], head[k * n_heads + h], cb);
            }
            if (seg == 0)
                break;
        }
    }
    for (uint32_t k = 0; k < N; k++)
        nvls_clear(&v[k]);
    return true;
}

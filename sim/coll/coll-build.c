/* SPDX-License-Identifier: Apache-2.0 */
/* Schedules as NCCL runs them, as programs for the executor.
 *
 * Ring (all_reduce, all_gather, reduce_scatter, broadcast, reduce): per
 * channel a ring over all ranks; data split over channels, each channel's
 * part over the ranks' segments, processed loop by loop in chunks, each
 * step of a chunk in slices (NCCL's loop -> step -> slice order). On
 * NVSwitch systems the ring is the rank order (the switch sprays every
 * channel over all planes), across nodes every node's the same, leaving it
 * through the NIC it entered by (ring_hop); on one node of direct NVLink pairs (DGX-1, any subset
 * of its GPUs) the rings NCCL's search finds (coll-rings.h), channel c on ring c mod the graph's
 * channels as NCCL duplicates them; across such nodes directed Hamiltonian cycles over the NVLink
 * graph, the most the links carry together (a backtracking packing), channels taking them in turn.
 * A hop NCCL routes through a third GPU (NVB, P2P/indirect: the data lands in that GPU's memory and
 * the receiver reads it from there) is two connections and a relay program on that GPU forwarding
 * each message; a hop without NVLink path goes over PCIe and the CPUs (the router's host path).
 * Tree (all_reduce): per channel a chain through each node's ranks (on
 * one node of direct pairs, the chains of NCCL's tree search) and a
 * binary tree over the nodes (mirrored on odd channels, NCCL's double
 * tree); reduce up and broadcast down run as separate programs, as NCCL's
 * split tree threads do.
 * NVLS and NVLS-tree: coll-build-nvls.c; PAT: coll-build-pat.c; CollNet:
 * coll-build-collnet.c.
 * Direct (alltoall, sendrecv): a connection per peer pair (NVB ones
 * relayed as above), chunked.
 */
#include "coll/coll-build.h"

#include <stdarg.h>
#include <string.h>

#include "core/core-memory.h"

#define MAX_RINGS 64
#define MAX_PPN 256 /* ranks of one node a ring handles (a GPU's SMs as loopback ranks) */

double
coll_proto_wire_factor(CollProto proto)
{
    switch (proto) {
    case COLL_PROTO_LL:
        return 16.0 / 8.0;
    case COLL_PROTO_LL128:
        return 128.0 / 120.0;
    default:
        return 1.0;
    }
}

uint32_t
coll_build_depth(const CollBuild *b)
{
    return CLAMP(b->plan.slices_in_flight, 1, 64);
}

uint32_t
coll_build_unfenced_program(CollBuild *b, uint32_t part)
{
    uint32_t prog = coll_exec_program(b->ex, part);
    coll_exec_set_fenced(b->ex, prog, false);
    return prog;
}

uint32_t
coll_build_conn(CollBuild *b, uint32_t from_part, uint32_t to_part)
{
    return coll_exec_connection(b->ex, from_part, to_part, coll_build_depth(b),
                                coll_proto_wire_factor(b->proto));
}

/* A connection from rank a to rank b as NCCL's P2P transport makes it:
 * direct, or, on one node where NCCL's path is NVB, two connections and
 * the relay program on the GPU the path crosses (its memory holds the
 * buffer, paths.cc:323-341, p2p.cc:433-439). The relay does not wait for
 * its writes to land: the receiver reads the buffer itself. */
typedef struct Hop {
    uint32_t send;  /* the sender sends on it */
    uint32_t recv;  /* the receiver receives from it */
    uint32_t relay; /* forwards send to recv; UINT32_MAX when direct */
} Hop;

static Hop
hop_relayed(CollBuild *b, uint32_t a, uint32_t via, uint32_t c)
{
    Hop h = {coll_build_conn(b, b->rank_part[a], b->rank_part[via]),
             coll_build_conn(b, b->rank_part[via], b->rank_part[c]),
             coll_exec_program(b->ex, b->rank_part[via])};
    coll_exec_set_fenced(b->ex, h.relay, false);
    return h;
}

static Hop
hop_new(CollBuild *b, uint32_t a, uint32_t c)
{
    const CollRings *rings = &b->comm->info.rings;
    uint32_t via = COLL_RINGS_DIRECT;
    if (b->comm->n_nodes == 1 && a < rings->n && c < rings->n)
        via = rings->via[a][c];
    if (via == COLL_RINGS_DIRECT) {
        uint32_t k = coll_build_conn(b, b->rank_part[a], b->rank_part[c]);
        return (Hop){k, k, UINT32_MAX};
    }
    return hop_relayed(b, a, via, c);
}

/* The relay's part of one message of bytes sent on h. */
static void
hop_forward(CollBuild *b, const Hop *h, uint64_t bytes)
{
    if (h->relay != UINT32_MAX)
        coll_exec_op(b->ex, h->relay, &h->send, 1, &h->recv, 1, bytes, 0);
}

/* ---- Ring orders. ---- */

/* Links of the direct NVLink bundle from rank a to rank b, 0 if none. */
static uint32_t
direct_links(const CollComm *comm, uint32_t a, uint32_t b)
{
    TopoRoute route;
    if (!topo_router_route(comm->router, comm->rank_vertex[a], comm->rank_vertex[b], &route) ||
        route.n_paths != 1 || route.path[0].n_hops != 1)
        return 0;
    const TopoLink *l = topo_graph_link(comm->graph, route.path[0].link[0]);
    return l->spec->kind == HW_LINK_NVLINK ? l->n_links : 0;
}

#define MAX_CYCLES 1024        /* directed Hamiltonian cycles considered */
#define MAX_PACK_STEPS 1000000 /* backtracking budget of the packing */

typedef struct RingSearch {
    uint32_t n;           /* ranks of one node */
    uint32_t *cap, *used; /* [n * n] directed link capacity and use */
    uint32_t path[MAX_PPN];
    bool on_path[MAX_PPN];
    uint32_t (*cycles)[MAX_PPN]; /* found directed cycles */
    uint32_t n_cycles;
    uint32_t chosen[MAX_RINGS], n_chosen;
    uint32_t best[MAX_RINGS], n_best;
    uint32_t bound; /* no packing has more rings than a rank has links out */
    uint64_t steps;
} RingSearch;

/* Every directed Hamiltonian cycle from rank 0 over NVLink pairs. */
static void
ring_enumerate(RingSearch *s, uint32_t depth_now)
{
    uint32_t last = s->path[depth_now - 1];
    if (s->n_cycles >= MAX_CYCLES)
        return;
    if (depth_now == s->n) {
        if (s->cap[last * s->n + s->path[0]] > 0)
            memcpy(s->cycles[s->n_cycles++], s->path, sizeof(uint32_t) * s->n);
        return;
    }
    for (uint32_t v = 1; v < s->n; v++) {
        if (s->on_path[v] || s->cap[last * s->n + v] == 0)
            continue;
        s->on_path[v] = true;
        s->path[depth_now] = v;
        ring_enumerate(s, depth_now + 1);
        s->on_path[v] = false;
    }
}

static bool
ring_fits(const RingSearch *s, const uint32_t *order)
{
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t a = order[i], b = order[(i + 1) % s->n];
        if (s->used[a * s->n + b] >= s->cap[a * s->n + b])
            return false;
    }
    return true;
}

static void
ring_use(RingSearch *s, const uint32_t *order, int delta)
{
    for (uint32_t i = 0; i < s->n; i++)
        s->used[order[i] * s->n + order[(i + 1) % s->n]] += (uint32_t)delta;
}

/* The largest set of cycles (a cycle may repeat) the links carry together:
 * backtracking from cycle `from` on, within a step budget. */
static void
ring_pack(RingSearch *s, uint32_t from)
{
    if (s->n_chosen > s->n_best) {
        memcpy(s->best, s->chosen, sizeof(uint32_t) * s->n_chosen);
        s->n_best = s->n_chosen;
    }
    for (uint32_t c = from; c < s->n_cycles && s->n_best < s->bound && s->n_chosen < MAX_RINGS &&
                            s->steps++ < MAX_PACK_STEPS;
         c++) {
        if (!ring_fits(s, s->cycles[c]))
            continue;
        ring_use(s, s->cycles[c], 1);
        s->chosen[s->n_chosen++] = c;
        ring_pack(s, c);
        s->n_chosen--;
        ring_use(s, s->cycles[c], -1);
    }
}

/* Rings over one node's ranks 0..n-1: NCCL's where its search ran (one
 * node of direct pairs), NVLink Hamiltonian cycles where nodes of direct
 * pairs are joined, else the rank order. */
static uint32_t
node_rings(const CollComm *comm, uint32_t n, uint32_t rings[][MAX_PPN])
{
    g_assert(n <= MAX_PPN);
    const CollRings *found = &comm->info.rings;
    if (found->searched && found->n == n) {
        for (uint32_t c = 0; c < found->ring.n_channels; c++)
            for (uint32_t i = 0; i < n; i++)
                rings[c][i] = found->ring.order[c][i];
        return found->ring.n_channels;
    }
    RingSearch s = {.n = n, .bound = UINT32_MAX};
    s.cap = g_new0(uint32_t, (size_t)n * n);
    s.used = g_new0(uint32_t, (size_t)n * n);
    bool all_direct = true;
    for (uint32_t a = 0; a < n; a++) {
        uint32_t out = 0;
        for (uint32_t b = 0; b < n; b++)
            if (a != b) {
                s.cap[a * n + b] = direct_links(comm, a, b);
                all_direct = all_direct && s.cap[a * n + b] > 0;
                out += s.cap[a * n + b];
            }
        s.bound = MIN(s.bound, out);
    }
    uint32_t n_rings = 0;
    if (!comm->info.nvswitch && !all_direct && n > 2 && n <= 64) {
        s.cycles = g_malloc(sizeof(uint32_t[MAX_PPN]) * MAX_CYCLES);
        s.path[0] = 0;
        s.on_path[0] = true;
        ring_enumerate(&s, 1);
        ring_pack(&s, 0);
        for (uint32_t k = 0; k < s.n_best; k++)
            memcpy(rings[n_rings++], s.cycles[s.best[k]], sizeof(uint32_t) * n);
        g_free(s.cycles);
    }
    if (n_rings == 0) {
        for (uint32_t i = 0; i < n; i++)
            rings[0][i] = i;
        n_rings = 1;
    }
    g_free(s.cap);
    g_free(s.used);
    return n_rings;
}

/* The ring of channel ch over all ranks: node by node, every node's
 * local ring the same, started at position ch (mod the ranks of a node)
 * on several nodes, as NCCL's search gives every node one graph and tries
 * crossNic = 0 first (search.cc): a channel enters and leaves each node
 * through the same NIC, the entry GPU's (ring_hop carries the exit). A
 * node's last ring rank sends to the next node's first whatever their
 * sizes (connect.cc:104-109); nodes of different sizes are on NVSwitch
 * systems (coll-run.c), where a node's ring is its rank order. */
static void
ring_order(const CollComm *comm, uint32_t rings[][MAX_PPN], uint32_t n_rings, uint32_t ch,
           uint32_t *order)
{
    const uint32_t *local = rings[ch % n_rings];
    for (uint32_t node = 0; node < comm->n_nodes; node++) {
        uint32_t first = comm->node_first[node], m = coll_comm_node_ranks(comm, node);
        uint32_t start = comm->n_nodes == 1 ? 0 : ch % m;
        for (uint32_t i = 0; i < m; i++)
            order[first + i] = first + (comm->even ? local[(start + i) % m] : (start + i) % m);
    }
}

/* The NIC rank r's GPU reaches the network through (topo-route.h: its own,
 * or the next one up when its own is down). */
static uint64_t
rank_rail(const CollComm *comm, uint32_t r)
{
    return topo_router_gpu_nic(comm->router,
                               topo_graph_vertex(comm->graph, comm->rank_vertex[r])->index);
}

/* A ring's hop from rank a to rank c: hop_new within a node; from one node
 * to the next on another rail, first over NVLink to the GPU of a's node
 * on c's rail, whose NIC sends (NCCL's PXN: the proxy on that GPU posts
 * what a wrote into its memory, so the channel stays on one NIC). */
static Hop
ring_hop(CollBuild *b, uint32_t a, uint32_t c)
{
    const CollComm *comm = b->comm;
    uint32_t node_a = coll_comm_node(comm, a), node_c = coll_comm_node(comm, c);
    uint32_t c_local = c - comm->node_first[node_c];
    uint32_t via = comm->node_first[node_a] + c_local;
    if (node_a == node_c || c_local >= coll_comm_node_ranks(comm, node_a) || via == a ||
        rank_rail(comm, a) == rank_rail(comm, c))
        return hop_new(b, a, c);
    return hop_relayed(b, a, via, c);
}

/* ---- Ring schedules. ---- */

uint64_t
coll_build_share(uint64_t total, uint32_t n, uint32_t i)
{
    return total / n + (i < total % n ? 1 : 0);
}

/* Appends the ops of one ring pass of n_steps steps over data of seg bytes
 * per segment to the program of ring position pos, which receives from
 * hop in and sends on hop out (whose relay forwards each message). */
static void
ring_pass(CollBuild *b, uint32_t prog, const Hop *in_hop, const Hop *out, uint64_t seg,
          uint32_t n_steps, uint32_t pos, uint32_t n_ranks)
{
    uint32_t in = in_hop->recv;
    CollOp op = b->call->op;
    uint64_t chunk = MAX(b->plan.chunk_bytes, 1), slice = MAX(b->plan.slice_bytes, 1);
    for (uint64_t off = 0; off < seg || (seg == 0 && off == 0); off += chunk) {
        uint64_t cb = MIN(chunk, seg - off);
        for (uint32_t s = 0; s < n_steps; s++) {
            bool recv, send, reduce;
            if (op == COLL_OP_BROADCAST || op == COLL_OP_REDUCE) {
                recv = pos > 0;
                send = pos + 1 < n_ranks;
                reduce = op == COLL_OP_REDUCE && recv;
            } else {
                recv = s > 0;
                send = s + 1 < n_steps;
                reduce = (op == COLL_OP_ALL_REDUCE && s >= 1 && s <= n_ranks - 1) ||
                         (op == COLL_OP_REDUCE_SCATTER && s >= 1);
            }
            for (uint64_t so = 0; so < cb || (cb == 0 && so == 0); so += slice) {
                uint64_t sb = MIN(slice, cb - so);
                coll_exec_op(b->ex, prog, &in, recv ? 1 : 0, &out->send, send ? 1 : 0, sb,
                             reduce ? sb : 0);
                if (send)
                    hop_forward(b, out, sb);
                if (cb == 0)
                    break;
            }
        }
        if (seg == 0)
            break;
    }
}

/* Channel ch's segment (of nch) of call on n ranks, and *n_steps, the
 * steps of a ring pass. */
static uint64_t
ring_segment(const CollCall *call, uint32_t n, uint32_t nch, uint32_t ch, uint32_t *n_steps)
{
    switch (call->op) {
    case COLL_OP_ALL_REDUCE:
        *n_steps = 2 * n - 1;
        return coll_build_share(call->n_bytes, nch, ch) / n;
    case COLL_OP_ALL_GATHER:
    case COLL_OP_REDUCE_SCATTER:
        *n_steps = n;
        return coll_build_share(call->n_bytes / n, nch, ch);
    default:
        *n_steps = 1;
        return coll_build_share(call->n_bytes, nch, ch);
    }
}

bool
coll_build_fits(const CollBuild *b, const CollBuildSize *size, GError **error,
                const char *what_format, ...)
{
    const char *op = coll_op_name(b->call->op);
    uint32_t n = b->comm->n_ranks;
    if (size->n_ops > (double)COLL_BUILD_MAX_OPS) {
        va_list args;
        va_start(args, what_format);
        g_autofree char *what = g_strdup_vprintf(what_format, args);
        va_end(args);
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%s on %u ranks lays out %.3g operations (%s), more than the %" G_GUINT64_FORMAT
                    " nvlsim simulates in a call (hours of simulation): fewer GPUs or a smaller "
                    "size",
                    op, n, size->n_ops, what, COLL_BUILD_MAX_OPS);
        return false;
    }
    uint64_t need =
        coll_exec_schedule_bytes(size->n_progs, size->n_conns, size->n_runs, size->n_peers);
    if (sim_memory_fits(need))
        return true;
    g_autofree char *what = g_strdup_printf("laying out %s on %u ranks", op, n);
    g_autofree char *detail =
        g_strdup_printf("%" G_GUINT64_FORMAT " programs, %" G_GUINT64_FORMAT " connections",
                        size->n_progs, size->n_conns);
    sim_memory_need_error(error, need, what, detail, "fewer GPUs shrink it");
    return false;
}

/* Operations a ring pass lays out on each rank for a segment (ring_pass):
 * one a slice of each chunk, at least one a chunk, at each step. */
static double
ring_pass_ops(const CollBuild *b, uint64_t seg, uint32_t n_steps)
{
    uint64_t chunk = MAX(b->plan.chunk_bytes, 1), slice = MAX(b->plan.slice_bytes, 1);
    uint64_t full = seg / chunk, rest = seg % chunk;
    double slices =
        (double)full * (double)((chunk + slice - 1) / slice) + (double)((rest + slice - 1) / slice);
    return MAX(slices, 1.0) * n_steps;
}

bool
coll_build_ring(CollBuild *b, GError **error)
{
    const CollComm *comm = b->comm;
    uint32_t n = comm->n_ranks;
    CollOp op = b->call->op;
    if (op == COLL_OP_ALLTOALL || op == COLL_OP_SENDRECV) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%s runs as peer-to-peer sends, not on a ring (use --algo direct)",
                    coll_op_name(op));
        return false;
    }
    if (comm->ppn > MAX_PPN) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "rings over more than %d ranks per node are not modelled", MAX_PPN);
        return false;
    }
    uint32_t(*rings)[MAX_PPN] = g_malloc(sizeof(uint32_t[MAX_PPN]) * MAX_RINGS);
    uint32_t n_rings = node_rings(comm, comm->ppn, rings);
    uint32_t nch = MAX(b->plan.n_channels, 1);
    g_autofree uint32_t *orders = g_new(uint32_t, (size_t)nch * n);
    g_autofree uint64_t *segs = g_new(uint64_t, nch);
    uint32_t n_steps = 1;
    for (uint32_t ch = 0; ch < nch; ch++) {
        uint32_t *order = &orders[(size_t)ch * n];
        ring_order(comm, rings, n_rings, ch, order);
        if (op == COLL_OP_BROADCAST || op == COLL_OP_REDUCE) {
            /* The root first (broadcast) or last (reduce). */
            uint32_t at = 0;
            while (order[at] != b->call->root % n)
                at++;
            g_autofree uint32_t *rot = g_new(uint32_t, n);
            for (uint32_t i = 0; i < n; i++)
                rot[i] = order[(at + i + (op == COLL_OP_REDUCE ? 1 : 0)) % n];
            memcpy(order, rot, sizeof(uint32_t) * n);
        }
        segs[ch] = ring_segment(b->call, n, nch, ch, &n_steps);
    }
    /* Folded (flow fidelity): a channel with the order and segment of an
     * earlier one is that one again, the same messages at the same times
     * over the same links; the first of each kind runs for all of them,
     * its connections multiple (coll_exec_set_multiple). */
    g_autofree uint32_t *same_as = g_new(uint32_t, nch);
    g_autofree uint32_t *multiple = g_new0(uint32_t, nch);
    for (uint32_t ch = 0; ch < nch; ch++) {
        same_as[ch] = ch;
        for (uint32_t first = 0; b->fold && first < ch; first++)
            if (same_as[first] == first && segs[first] == segs[ch] &&
                memcmp(&orders[(size_t)first * n], &orders[(size_t)ch * n], sizeof(uint32_t) * n) ==
                    0) {
                same_as[ch] = first;
                break;
            }
        multiple[same_as[ch]]++;
    }
    double n_ops = 0;
    uint32_t n_built = 0;
    for (uint32_t ch = 0; ch < nch; ch++)
        if (same_as[ch] == ch) {
            n_ops += (double)n * ring_pass_ops(b, segs[ch], n_steps);
            n_built++;
        }
    /* A program a rank and channel, two connections (a hop may relay),
     * and runs of a few kinds of step each. */
    uint64_t rings_built = (uint64_t)n * n_built;
    CollBuildSize size = {n_ops, rings_built, 2 * rings_built, 4 * rings_built, 8 * rings_built};
    if (!coll_build_fits(b, &size, error, "%u steps a rank and slice, %u channels", n_steps, nch)) {
        g_free(rings);
        return false;
    }
    g_autofree Hop *link = g_new(Hop, n); /* link[i]: order[i] -> order[i+1] */
    for (uint32_t ch = 0; ch < nch; ch++) {
        if (same_as[ch] != ch)
            continue;
        const uint32_t *order = &orders[(size_t)ch * n];
        for (uint32_t i = 0; i < n; i++) {
            link[i] = ring_hop(b, order[i], order[(i + 1) % n]);
            coll_exec_set_multiple(b->ex, link[i].send, multiple[ch]);
            coll_exec_set_multiple(b->ex, link[i].recv, multiple[ch]);
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t prog = coll_exec_program(b->ex, b->rank_part[order[i]]);
            ring_pass(b, prog, &link[(i + n - 1) % n], &link[i], segs[ch], n_steps, i, n);
        }
    }
    g_free(rings);
    return true;
}

/* ---- Tree. ---- */

/* A rank's children in a tree: two nodes' heads and the next of its
 * node's chain, or one in a chain of NCCL's search. */
#define TREE_MAX_KIDS 3

/* Parent of rank r in channel ch's tree, or n_ranks for the root. The tree
 * is a chain through each node's ranks whose head joins a binary tree over
 * the nodes; odd channels mirror both (NCCL's double binary tree). The
 * chain starts at local rank (ch / 2) mod the node's ranks, so that
 * channels use every GPU's NICs for the node-to-node edges, as NCCL's
 * trees spread over NICs; a node's head is its chain's first whatever its
 * size (connect.cc:58). */
static uint32_t
tree_parent(const CollComm *comm, uint32_t ch, uint32_t r)
{
    const CollRings *found = &comm->info.rings;
    if (found->searched && found->n == comm->n_ranks && found->tree.n_channels > 0) {
        /* NCCL's chain on one node (connect.cc:58-59): up is the one before. */
        const uint8_t *chain = found->tree.order[ch % found->tree.n_channels];
        for (uint32_t i = 1; i < comm->n_ranks; i++)
            if (chain[i] == r)
                return chain[i - 1];
        return comm->n_ranks;
    }
    uint32_t node = coll_comm_node(comm, r), first = comm->node_first[node];
    uint32_t ppn = coll_comm_node_ranks(comm, node), local = r - first;
    bool odd = ch % 2 == 1;
    uint32_t head = (ch / 2) % ppn;
    /* Position in the node's chain: 0 is the head. */
    uint32_t chain = odd ? (head + ppn - local) % ppn : (local + ppn - head) % ppn;
    if (chain > 0) {
        uint32_t up = chain - 1;
        return first + (odd ? (head + ppn - up) % ppn : (head + up) % ppn);
    }
    uint32_t N = comm->n_nodes;
    uint32_t id = odd ? N - 1 - node : node;
    if (id == 0)
        return comm->n_ranks;
    uint32_t parent_id = (id - 1) / 2;
    uint32_t parent_node = odd ? N - 1 - parent_id : parent_id;
    return comm->node_first[parent_node] + (ch / 2) % coll_comm_node_ranks(comm, parent_node);
}

/* Rank r's reduce and broadcast programs of one tree channel over data
 * bytes: up and down join it to its parent (NULL at the root), kids[0..nk)
 * are its children, whose hops are up_of and down_of. */
static void
tree_rank(CollBuild *b, uint32_t r, const Hop *up, const Hop *down, const uint32_t *kids,
          uint32_t nk, const Hop *up_of, const Hop *down_of, uint64_t data)
{
    uint32_t in_up[TREE_MAX_KIDS], out_down[TREE_MAX_KIDS];
    g_assert(nk <= TREE_MAX_KIDS);
    for (uint32_t k = 0; k < nk; k++) {
        in_up[k] = up_of[kids[k]].recv;
        out_down[k] = down_of[kids[k]].send;
    }
    uint64_t chunk = MAX(b->plan.chunk_bytes, 1);
    uint32_t reduce_prog = coll_exec_program(b->ex, b->rank_part[r]);
    uint32_t bcast_prog = up == NULL ? reduce_prog : coll_exec_program(b->ex, b->rank_part[r]);
    for (uint64_t off = 0; off < data || off == 0; off += chunk) {
        uint64_t cb = MIN(chunk, data - off);
        if (up == NULL) {
            coll_exec_op(b->ex, reduce_prog, in_up, nk, out_down, nk, cb, nk > 0 ? cb : 0);
        } else {
            coll_exec_op(b->ex, reduce_prog, in_up, nk, &up->send, 1, cb, nk > 0 ? cb : 0);
            hop_forward(b, up, cb);
            coll_exec_op(b->ex, bcast_prog, &down->recv, 1, out_down, nk, cb, 0);
        }
        for (uint32_t k = 0; k < nk; k++)
            hop_forward(b, &down_of[kids[k]], cb);
        if (data == 0)
            break;
    }
}

bool
coll_build_tree(CollBuild *b, GError **error)
{
    const CollComm *comm = b->comm;
    if (b->call->op != COLL_OP_ALL_REDUCE) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "the tree algorithm runs all_reduce only, not %s", coll_op_name(b->call->op));
        return false;
    }
    uint32_t n = comm->n_ranks, nch = MAX(b->plan.n_channels, 1);
    /* A channel: a reduce and a broadcast program a rank and two hops to
     * its parent, each at most two connections and a relay; an operation
     * a program and chunk, the last chunk another run; an operation names
     * its children (at most TREE_MAX_KIDS) and its parent. */
    uint64_t chunk = MAX(b->plan.chunk_bytes, 1);
    double chunks =
        (double)MAX((coll_build_share(b->call->n_bytes, nch, 0) + chunk - 1) / chunk, 1);
    uint64_t ranks = (uint64_t)n * nch;
    CollBuildSize size = {4.0 * (double)ranks * chunks, 4 * ranks, 4 * ranks, 8 * ranks,
                          8 * ranks * (TREE_MAX_KIDS + 1)};
    if (!coll_build_fits(b, &size, error, "a chunk a rank, tree and relay, %u channels", nch))
        return false;
    g_autofree Hop *up = g_new(Hop, n);   /* rank -> parent */
    g_autofree Hop *down = g_new(Hop, n); /* parent -> rank */
    g_autofree bool *has_parent = g_new(bool, n);
    g_autofree uint32_t *kids = g_new(uint32_t, (size_t)n * TREE_MAX_KIDS);
    g_autofree uint32_t *n_kids = g_new(uint32_t, n);
    for (uint32_t ch = 0; ch < nch; ch++) {
        memset(n_kids, 0, sizeof(uint32_t) * n);
        for (uint32_t r = 0; r < n; r++) {
            uint32_t p = tree_parent(comm, ch, r);
            has_parent[r] = p != n;
            if (p == n)
                continue;
            up[r] = hop_new(b, r, p);
            down[r] = hop_new(b, p, r);
            g_assert(n_kids[p] < TREE_MAX_KIDS);
            kids[(size_t)p * TREE_MAX_KIDS + n_kids[p]++] = r;
        }
        uint64_t data = coll_build_share(b->call->n_bytes, nch, ch);
        for (uint32_t r = 0; r < n; r++)
            tree_rank(b, r, has_parent[r] ? &up[r] : NULL, has_parent[r] ? &down[r] : NULL,
                      &kids[(size_t)r * TREE_MAX_KIDS], n_kids[r], up, down, data);
    }
    return true;
}

/* ---- Direct peers. ---- */

bool
coll_build_direct(CollBuild *b, GError **error)
{
    const CollComm *comm = b->comm;
    CollOp op = b->call->op;
    if (op != COLL_OP_ALLTOALL && op != COLL_OP_SENDRECV) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "direct peer sends run alltoall and sendrecv, not %s", coll_op_name(op));
        return false;
    }
    uint32_t n = comm->n_ranks;
    uint64_t chunk = MIN(MAX(b->plan.chunk_bytes, 1), COLL_P2P_CHUNK_BYTES);
    uint64_t per_peer = op == COLL_OP_ALLTOALL ? b->call->n_bytes / n : b->call->n_bytes;
    double peers = op == COLL_OP_ALLTOALL ? n - 1.0 : 1.0;
    double chunks = (double)MAX((per_peer + chunk - 1) / chunk, 1);
    /* Two programs and a connection (two where a hop relays) a pair. */
    uint64_t pairs = (uint64_t)n * (uint64_t)peers;
    CollBuildSize size = {2.0 * n * peers * chunks, 2 * pairs, 2 * pairs, 2 * pairs, 4 * pairs};
    if (!coll_build_fits(b, &size, error, "a send and a receive a peer and chunk"))
        return false;
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t d = 1; d < n; d++) {
            uint32_t q = (r + d) % n;
            if (op == COLL_OP_SENDRECV && d != 1)
                continue;
            Hop c = hop_new(b, r, q);
            uint32_t tx = coll_exec_program(b->ex, b->rank_part[r]);
            uint32_t rx = coll_exec_program(b->ex, b->rank_part[q]);
            for (uint64_t off = 0; off < per_peer || off == 0; off += chunk) {
                uint64_t cb = MIN(chunk, per_peer - off);
                coll_exec_op(b->ex, tx, NULL, 0, &c.send, 1, cb, 0);
                hop_forward(b, &c, cb);
                coll_exec_op(b->ex, rx, &c.recv, 1, NULL, 0, cb, 0);
                if (per_peer == 0)
                    break;
            }
        }
    return true;
}

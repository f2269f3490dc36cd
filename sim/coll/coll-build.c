/* Schedules as NCCL runs them, as programs for the executor.
 *
 * Ring (all_reduce, all_gather, reduce_scatter, broadcast, reduce): per
 * channel a ring over all ranks; data split over channels, each channel's
 * part over the ranks' segments, processed loop by loop in chunks, each
 * step of a chunk in slices (NCCL's loop -> step -> slice order). On
 * NVSwitch systems the ring is the rank order (the switch sprays every
 * channel over all planes), across nodes entering each node on the rail it
 * left the last; on one node of direct NVLink pairs (DGX-1, any subset of
 * its GPUs) the rings NCCL's search finds (coll-rings.h), channel c on
 * ring c mod the graph's channels as NCCL duplicates them; across such
 * nodes directed Hamiltonian cycles over the NVLink graph, the most the
 * links carry together (a backtracking packing), channels taking them in
 * turn. A hop NCCL routes through a third GPU (NVB, P2P/indirect: the data
 * lands in that GPU's memory and the receiver reads it from there) is two
 * connections and a relay program on that GPU forwarding each message; a
 * hop without NVLink path goes over PCIe and the CPUs (the router's host
 * path).
 * Tree (all_reduce): per channel a chain through each node's ranks (on
 * one node of direct pairs, the chains of NCCL's tree search) and a
 * binary tree over the nodes (mirrored on odd channels, NCCL's double
 * tree); reduce up and broadcast down run as separate programs, as NCCL's
 * split tree threads do.
 * NVLS (all_reduce, all_gather, reduce_scatter, one node): every NVSwitch
 * plane reduces each rank's segment from all ranks and multicasts results,
 * bytes split over planes by their links; NCCL's NVLS efficiency for the
 * generation scales the wire bytes (the switch's reduction and multicast
 * reach that fraction of the port rate).
 * NVLS-tree (all_reduce, several nodes): NVLS inside each node for the
 * chunks of each head GPU, and NCCL's double binary tree between the
 * nodes' heads over their NICs.
 * Direct (alltoall, sendrecv): a connection per peer pair (NVB ones
 * relayed as above), chunked.
 */
#include "coll/coll-build.h"

#include <string.h>

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

static uint32_t
depth(const CollBuild *b)
{
    return CLAMP(b->plan.slices_in_flight, 1, 64);
}

uint32_t
coll_build_conn(CollBuild *b, uint32_t from_part, uint32_t to_part)
{
    return coll_exec_connection(b->ex, from_part, to_part, depth(b),
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
    Hop h = {coll_build_conn(b, b->rank_part[a], b->rank_part[via]),
             coll_build_conn(b, b->rank_part[via], b->rank_part[c]),
             coll_exec_program(b->ex, b->rank_part[via])};
    coll_exec_set_fenced(b->ex, h.relay, false);
    return h;
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

/* The ring of channel ch over all ranks: node by node, each node's local
 * ring rotated so that it starts on the rail the previous node left on. */
static void
ring_order(const CollComm *comm, uint32_t rings[][MAX_PPN], uint32_t n_rings, uint32_t ch,
           uint32_t *order)
{
    const uint32_t *local = rings[ch % n_rings];
    uint32_t ppn = comm->ppn;
    for (uint32_t node = 0; node < comm->n_nodes; node++) {
        uint32_t start = comm->n_nodes == 1 ? 0 : (ch + ppn - node % ppn) % ppn;
        for (uint32_t i = 0; i < ppn; i++)
            order[node * ppn + i] = node * ppn + local[(start + i) % ppn];
    }
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
    g_autofree uint32_t *order = g_new(uint32_t, n);
    for (uint32_t ch = 0; ch < nch; ch++) {
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
        g_autofree Hop *link = g_new(Hop, n); /* link[i]: order[i] -> order[i+1] */
        for (uint32_t i = 0; i < n; i++)
            link[i] = hop_new(b, order[i], order[(i + 1) % n]);
        uint64_t seg;
        uint32_t n_steps;
        switch (op) {
        case COLL_OP_ALL_REDUCE:
            seg = coll_build_share(b->call->n_bytes, nch, ch) / n;
            n_steps = 2 * n - 1;
            break;
        case COLL_OP_ALL_GATHER:
        case COLL_OP_REDUCE_SCATTER:
            seg = coll_build_share(b->call->n_bytes / n, nch, ch);
            n_steps = n;
            break;
        default:
            seg = coll_build_share(b->call->n_bytes, nch, ch);
            n_steps = 1;
            break;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t prog = coll_exec_program(b->ex, b->rank_part[order[i]]);
            ring_pass(b, prog, &link[(i + n - 1) % n], &link[i], seg, n_steps, i, n);
        }
    }
    g_free(rings);
    return true;
}

/* ---- Tree. ---- */

/* Parent of rank r in channel ch's tree, or n_ranks for the root. The tree
 * is a chain through each node's ranks whose head joins a binary tree over
 * the nodes; odd channels mirror both (NCCL's double binary tree). The
 * chain starts at local rank (ch / 2) mod ppn, so that channels use every
 * GPU's NICs for the node-to-node edges, as NCCL's trees spread over NICs. */
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
    uint32_t ppn = comm->ppn, node = r / ppn, local = r % ppn;
    bool odd = ch % 2 == 1;
    uint32_t head = (ch / 2) % ppn;
    /* Position in the node's chain: 0 is the head. */
    uint32_t chain = odd ? (head + ppn - local) % ppn : (local + ppn - head) % ppn;
    if (chain > 0) {
        uint32_t up = chain - 1;
        return node * ppn + (odd ? (head + ppn - up) % ppn : (head + up) % ppn);
    }
    uint32_t N = comm->n_nodes;
    uint32_t id = odd ? N - 1 - node : node;
    if (id == 0)
        return comm->n_ranks;
    uint32_t parent_id = (id - 1) / 2;
    uint32_t parent_node = odd ? N - 1 - parent_id : parent_id;
    return parent_node * ppn + head;
}

/* Rank r's reduce and broadcast programs of one tree channel over data
 * bytes: up and down join it to its parent (NULL at the root), kids[0..nk)
 * are its children, whose hops are up_of and down_of. */
static void
tree_rank(CollBuild *b, uint32_t r, const Hop *up, const Hop *down, const uint32_t *kids,
          uint32_t nk, const Hop *up_of, const Hop *down_of, uint64_t data)
{
    uint32_t in_up[8], out_down[8];
    g_assert(nk <= 8);
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
    g_autofree Hop *up = g_new(Hop, n);   /* rank -> parent */
    g_autofree Hop *down = g_new(Hop, n); /* parent -> rank */
    g_autofree bool *has_parent = g_new(bool, n);
    g_autofree uint32_t *kids = g_new(uint32_t, (size_t)n * n);
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
            kids[p * n + n_kids[p]++] = r;
        }
        uint64_t data = coll_build_share(b->call->n_bytes, nch, ch);
        for (uint32_t r = 0; r < n; r++)
            tree_rank(b, r, has_parent[r] ? &up[r] : NULL, has_parent[r] ? &down[r] : NULL,
                      &kids[r * n], n_kids[r], up, down, data);
    }
    return true;
}

/* ---- NVLS and NVLS-tree. ---- */

typedef struct Plane {
    uint32_t vertex;
    uint32_t weight; /* links from each GPU */
    uint32_t copies; /* planes it stands for */
    const HwLink *spec;
} Plane;

/* Links of the bundle from vertex a to vertex b, 0 if none. */
static uint32_t
bundle_links(const TopoGraph *g, uint32_t a, uint32_t b)
{
    for (uint32_t l = 0; l < topo_graph_n_links(g); l++) {
        const TopoLink *link = topo_graph_link(g, l);
        if (link->src == a && link->dst == b)
            return link->n_links;
    }
    return 0;
}

/* The NVLS-capable switch planes every rank of node reaches directly,
 * each weighted by the fewest links a rank of the node has to it (with
 * links down, a plane some rank lost is left out). Without faults every
 * rank has the same links to a plane and planes of the same links carry
 * the same share in the same time: one of them stands for all. */
static uint32_t
nvls_planes(const CollComm *comm, uint32_t node, Plane *planes, uint32_t max)
{
    const TopoGraph *g = comm->graph;
    uint32_t first = node * comm->ppn, n = 0;
    for (uint32_t l = 0; l < topo_graph_n_links(g) && n < max; l++) {
        const TopoLink *link = topo_graph_link(g, l);
        const TopoVertex *dst = topo_graph_vertex(g, link->dst);
        if (link->src != comm->rank_vertex[first] || dst->kind != TOPO_NVSWITCH ||
            dst->sw == NULL || !dst->sw->nvls)
            continue;
        uint32_t weight = link->n_links;
        for (uint32_t r = first + 1; r < first + comm->ppn && weight > 0 && g->faulted; r++)
            weight = MIN(weight, bundle_links(g, comm->rank_vertex[r], link->dst));
        if (weight == 0)
            continue;
        uint32_t alike = g->faulted ? n : 0;
        while (alike < n && (planes[alike].weight != weight || planes[alike].spec != link->spec))
            alike++;
        if (alike < n)
            planes[alike].copies++;
        else
            planes[n++] = (Plane){link->dst, weight, 1, link->spec};
    }
    return n;
}

/* A program of participant part that needs no flags: multimem loads and
 * stores, and sends the network proxy carries. */
static uint32_t
nvls_program(CollBuild *b, uint32_t part)
{
    uint32_t prog = coll_exec_program(b->ex, part);
    coll_exec_set_fenced(b->ex, prog, false);
    return prog;
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
    uint32_t n = b->comm->ppn;
    *v = (Nvls){.b = b, .first = node * n, .n = n};
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
        v->sw_reduce[p] = nvls_program(b, sw);
        v->sw_mc[p] = nvls_program(b, sw);
        for (uint32_t r = 0; r < n; r++) {
            uint32_t part = b->rank_part[v->first + r];
            uint32_t *conns[] = {&v->up[r * np + p], &v->down[r * np + p], &v->mc_up[r * np + p],
                                 &v->mc_down[r * np + p]};
            for (int k = 0; k < 4; k++) {
                uint32_t from = k % 2 == 0 ? part : sw, to = k % 2 == 0 ? sw : part;
                *conns[k] = coll_exec_connection(b->ex, from, to, depth(b), factor);
                coll_exec_set_share(b->ex, *conns[k],
                                    (double)v->planes[p].weight / v->total_weight,
                                    v->planes[p].copies);
            }
        }
    }
    for (uint32_t r = 0; r < n; r++) {
        uint32_t part = b->rank_part[v->first + r];
        v->give[r] = nvls_program(b, part);
        v->own[r] = nvls_program(b, part);
        v->take[r] = nvls_program(b, part);
    }
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
    return MAX(MAX(b->plan.chunk_bytes, 1), (seg + COLL_NVLS_MAX_CHUNKS - 1) / COLL_NVLS_MAX_CHUNKS);
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
    Hop up, down;               /* to the parent, from the parent */
    Hop kid_up[2], kid_down[2]; /* from each child, to each child */
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
        in[n_in++] = t->kid_up[k].recv;
        out[n_out++] = t->kid_down[k].send;
    }
    uint64_t reduce = t->n_kids > 0 ? cb : 0;
    if (t->root) {
        coll_exec_op(b->ex, t->reduce, in, n_in, out, n_out, cb, reduce);
    } else {
        coll_exec_op(b->ex, t->reduce, in, n_in, &t->up.send, 1, cb, reduce);
        hop_forward(b, &t->up, cb);
        coll_exec_op(b->ex, t->bcast, &t->down.recv, 1, out, n_out, cb, 0);
    }
    for (uint32_t k = 0; k < t->n_kids; k++)
        hop_forward(b, &t->kid_down[k], cb);
}

/* NVLS-tree (all_reduce over several nodes; all_reduce.h's
 * RunWorkColl<..., NCCL_ALGO_NVLS_TREE, ...>, connect.cc:248-325): per
 * channel, data in loops of one chunk per head; inside each node every
 * rank's copy of head h's chunk is reduced by the switch for head h (as
 * one-node NVLS), head h of every node reduces the nodes' sums up a
 * binary tree over its NIC, and the result comes down the tree, each head
 * storing it to its node's multicast address; even channels take tree 0,
 * odd ones tree 1 of NCCL's double tree. Heads are the GPUs with a NIC of
 * their own, one per NVLS graph channel, spread over the node. */
bool
coll_build_nvls_tree(CollBuild *b, GError **error)
{
    const CollComm *comm = b->comm;
    uint32_t N = comm->n_nodes, ppn = comm->ppn;
    CollTuneGraph graph;
    coll_tune_graph(&comm->info, COLL_ALGO_NVLS, &graph);
    uint32_t n_heads = MIN(graph.n_channels, ppn);
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
    g_autofree uint32_t *head = g_new(uint32_t, n_heads); /* local rank of head h */
    for (uint32_t h = 0; h < n_heads; h++)
        head[h] = h * ppn / n_heads;
    g_autofree NvlsTreeHead *th = g_new0(NvlsTreeHead, (size_t)N * n_heads);
    double factor = 1.0 / coll_tune_nvls_efficiency(&comm->info);
    uint32_t nch = MAX(b->plan.n_channels, 1);
    uint32_t elem = MAX(b->call->elem_bytes, 1);
    /* Channel ch takes tree ch mod 2; the channels of one tree cross the
     * same links chunk for chunk, side by side, so one program a head runs
     * them all, its chunks theirs together. */
    uint32_t n_groups = MIN(nch, COLL_NVLS_TREE_GROUPS);
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
                uint32_t me = k * ppn + head[h];
                t->root = parent == N;
                t->reduce = nvls_program(b, b->rank_part[me]);
                if (t->root)
                    continue;
                uint32_t them = parent * ppn + head[h];
                t->bcast = nvls_program(b, b->rank_part[me]);
                t->up = hop_new(b, me, them);
                t->down = hop_new(b, them, me);
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
                    nvls_reduce_to(&v[k], head[h], cb);
                for (uint32_t k = 0; k < N; k++)
                    nvls_tree_head(b, &v[k], &th[k * n_heads + h], head[h], cb);
                for (uint32_t k = 0; k < N; k++)
                    nvls_multicast_from(&v[k], head[h], cb);
            }
            if (seg == 0)
                break;
        }
    }
    for (uint32_t k = 0; k < N; k++)
        nvls_clear(&v[k]);
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

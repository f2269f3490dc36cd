/* SPDX-License-Identifier: Apache-2.0 */
/* Folding a collective by symmetry (coll-exec-state.h).
 *
 * A step of the symmetry moves every vertex p nodes on (node k to node
 * k + p mod n) and, where r is not 0, a GPU r places on among its node's
 * GPUs (GPU g to GPU g + r mod the node's GPUs). It maps a participant to
 * the one at the image of its vertex (the same one of those made there,
 * in order), and a program to one of its participant's image's, found by
 * following the connections: each program's operations must equal its
 * image's and name the images of its connections, each connection alike
 * to its image and between the images of its ends. Then every orbit of
 * programs runs the same operations at the same times, if the network
 * treats them alike too: the routes of a connection's orbit must fall hop
 * by hop on classes of like links (the same rate, latency, buffer and
 * error rate), one of each class a member. Each class then carries the
 * same flows, orbit for orbit, on every member, so one member can stand
 * for all: the folded run keeps the first participant of each orbit,
 * sends what leaves them to the kept images of its receivers, over the
 * real route with each link replaced by its class's representative, and
 * its times are the whole call's (max-min fair rates are the same on
 * symmetric links). A ring of 20 racks of GB200 NVL72 on one rail leaf a
 * NIC folds to one rack by nodes. On DGX H100 nodes channel c enters and
 * leaves every node through GPU c's rail, so turning every node's GPUs
 * one place maps channel c onto channel c + 1 (its NIC's links onto the
 * next rail's): 64 nodes on two leaves a rail fold eightfold, where the
 * nodes alone fold them twofold. Schedules without the symmetry (trees, a
 * rotated root, sizes that differ by rank) run whole.
 */
#include <string.h>

#include "coll/coll-exec-state.h"
#include "topo/topo-route.h"

/* What the search looks up in ex, the same for every shift it tries. */
typedef struct Index {
    GHashTable *by_key; /* a participant's key (its vertex, occurrence) -> its index + 1 */
    gint64 *keys;       /* [parts] */
    uint32_t *part_occ; /* [parts]: participants made at its vertex before it */
    uint32_t *first;    /* [parts + 1]: participant i's programs are */
    uint32_t *of_part;  /* of_part[first[i] .. first[i + 1]), in order */
} Index;

typedef struct Shift {
    const Index *x;
    uint32_t n_nodes, p; /* nodes a step moves (0: none) */
    uint32_t n_gpus, r;  /* a node's GPUs, and places a step turns them (0: none) */
    uint32_t copies;     /* steps that return every participant to itself */
    uint32_t *part_img, *prog_img, *conn_img; /* [parts], [progs], [conns] */
    bool *part_kept; /* [parts]: the first of its orbit, which stands for it */
} Shift;

static bool
like_links(const TopoLink *a, const TopoLink *b)
{
    return a->spec == b->spec && a->n_links == b->n_links && a->bytes_per_s == b->bytes_per_s &&
           a->latency_ps == b->latency_ps && a->rx_buffer_bytes == b->rx_buffer_bytes &&
           a->packet_error_rate == b->packet_error_rate;
}

static bool
like_ops(const Op *a, const Op *b)
{
    return a->n_recv == b->n_recv && a->n_send == b->n_send && a->bytes == b->bytes &&
           a->reduce_bytes == b->reduce_bytes && a->repeat == b->repeat;
}

static bool
like_conns(const Conn *a, const Conn *b)
{
    return a->depth == b->depth && a->wire_factor == b->wire_factor &&
           a->max_bytes_per_s == b->max_bytes_per_s && a->share == b->share &&
           a->copies == b->copies && a->multiple == b->multiple &&
           a->crosses_nodes == b->crosses_nodes && a->flag_ps == b->flag_ps &&
           a->back_ps == b->back_ps;
}

/* The image of vertex v under the shift, or TOPO_NONE off the nodes (and,
 * where the shift turns GPUs, off them). */
static uint32_t
vertex_img(const TopoGraph *g, const Shift *s, uint32_t v)
{
    const TopoVertex *x = topo_graph_vertex(g, v);
    if (x->node == TOPO_NONE || x->node >= s->n_nodes)
        return TOPO_NONE;
    uint32_t to = (x->node + s->p) % s->n_nodes;
    if (s->r != 0)
        return x->kind == TOPO_GPU
                   ? topo_graph_gpu_vertex(g, to * s->n_gpus + (x->index + s->r) % s->n_gpus)
                   : TOPO_NONE;
    return v - x->node * g->n_node_vertices + to * g->n_node_vertices;
}

static void
index_init(Index *x, const CollExec *ex)
{
    uint32_t n_parts = ex->parts->len, n_progs = ex->progs->len;
    x->by_key = g_hash_table_new(g_int64_hash, g_int64_equal);
    x->keys = g_new(gint64, n_parts);
    x->part_occ = g_new(uint32_t, n_parts);
    /* A participant's key: its vertex and how many were made there before it. */
    g_autoptr(GHashTable) n_at = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (uint32_t i = 0; i < n_parts; i++) {
        uint32_t v = g_array_index(ex->parts, Part, i).vertex;
        x->part_occ[i] = GPOINTER_TO_UINT(g_hash_table_lookup(n_at, GUINT_TO_POINTER(v + 1)));
        g_hash_table_insert(n_at, GUINT_TO_POINTER(v + 1), GUINT_TO_POINTER(x->part_occ[i] + 1));
        x->keys[i] = (gint64)v << 32 | x->part_occ[i];
        g_hash_table_insert(x->by_key, &x->keys[i], GUINT_TO_POINTER(i + 1));
    }
    x->first = g_new0(uint32_t, n_parts + 1);
    x->of_part = g_new(uint32_t, MAX(n_progs, 1));
    for (uint32_t i = 0; i < n_progs; i++)
        x->first[PROG(ex, i)->participant + 1]++;
    for (uint32_t i = 0; i < n_parts; i++)
        x->first[i + 1] += x->first[i];
    g_autofree uint32_t *fill = g_memdup2(x->first, sizeof(uint32_t) * n_parts);
    for (uint32_t i = 0; i < n_progs; i++)
        x->of_part[fill[PROG(ex, i)->participant]++] = i;
}

static void
index_clear(Index *x)
{
    g_hash_table_unref(x->by_key);
    g_free(x->keys);
    g_free(x->part_occ);
    g_free(x->first);
    g_free(x->of_part);
}

/* The images of participants (by occurrence at their vertex); false when
 * some has none. */
static bool
map_owners(CollExec *ex, Shift *s)
{
    const TopoGraph *g = ex->graph;
    for (uint32_t i = 0; i < ex->parts->len; i++) {
        const Part *a = &g_array_index(ex->parts, Part, i);
        uint32_t v = vertex_img(g, s, a->vertex);
        if (v == TOPO_NONE)
            return false;
        gint64 key = (gint64)v << 32 | s->x->part_occ[i];
        uint32_t j = GPOINTER_TO_UINT(g_hash_table_lookup(s->x->by_key, &key));
        if (j == 0)
            return false;
        const Part *b = &g_array_index(ex->parts, Part, j - 1);
        if (a->gpu != b->gpu || a->reduce_bytes_per_s != b->reduce_bytes_per_s)
            return false;
        s->part_img[i] = j - 1;
    }
    return true;
}

/* Whether every participant's orbit has copies members (no step short of
 * copies returns one to itself), marking the first of each kept. */
static bool
map_orbits(const CollExec *ex, Shift *s)
{
    uint32_t n = ex->parts->len;
    memset(s->part_kept, 0, sizeof(bool) * n);
    g_autofree bool *seen = g_new0(bool, n);
    for (uint32_t i = 0; i < n; i++) {
        if (seen[i])
            continue;
        s->part_kept[i] = true;
        uint32_t x = i;
        for (uint32_t k = 0; k < s->copies; k++, x = s->part_img[x]) {
            if (seen[x])
                return false;
            seen[x] = true;
        }
        if (x != i)
            return false;
    }
    return true;
}

/* The search for the programs' and connections' images: what is
 * assigned (prog_img, conn_img and the images taken), what remains to
 * check, and a log of assignments to undo a failed guess. */
typedef struct Match {
    CollExec *ex;
    Shift *s;
    bool *prog_taken, *conn_taken;
    GArray *unchecked; /* uint32_t: programs assigned, their operations not yet compared */
    GArray *log_progs, *log_conns; /* uint32_t: assigned, in order */
} Match;

static bool
assign_prog(Match *m, uint32_t a, uint32_t b)
{
    if (a == NONE || b == NONE)
        return a == b;
    if (m->s->prog_img[a] != NONE)
        return m->s->prog_img[a] == b;
    if (m->prog_taken[b] ||
        m->s->part_img[PROG(m->ex, a)->participant] != PROG(m->ex, b)->participant)
        return false;
    m->s->prog_img[a] = b;
    m->prog_taken[b] = true;
    g_array_append_val(m->log_progs, a);
    g_array_append_val(m->unchecked, a);
    return true;
}

/* Connection c's image d: alike, between the images of c's ends, sent and
 * received by the images of c's programs. */
static bool
assign_conn(Match *m, uint32_t c, uint32_t d)
{
    if (m->s->conn_img[c] != NONE)
        return m->s->conn_img[c] == d;
    const Conn *x = CONN(m->ex, c), *y = CONN(m->ex, d);
    if (m->conn_taken[d] || !like_conns(x, y) || m->s->part_img[x->src] != y->src ||
        m->s->part_img[x->dst] != y->dst)
        return false;
    m->s->conn_img[c] = d;
    m->conn_taken[d] = true;
    g_array_append_val(m->log_conns, c);
    return assign_prog(m, x->sender, y->sender) && assign_prog(m, x->receiver, y->receiver);
}

/* Program a's image b and all that follows from it; false at the first
 * contradiction. */
static bool
follow(Match *m, uint32_t a, uint32_t b)
{
    CollExec *ex = m->ex;
    g_array_set_size(m->unchecked, 0);
    if (!assign_prog(m, a, b))
        return false;
    while (m->unchecked->len > 0) {
        uint32_t i = g_array_index(m->unchecked, uint32_t, m->unchecked->len - 1);
        g_array_set_size(m->unchecked, m->unchecked->len - 1);
        const Prog *x = PROG(ex, i), *y = PROG(ex, m->s->prog_img[i]);
        if (x->fenced != y->fenced || x->n_runs != y->n_runs)
            return false;
        for (uint32_t r = 0; r < x->n_runs; r++) {
            const Op *u = OP(ex, x->first_op + r), *v = OP(ex, y->first_op + r);
            if (!like_ops(u, v))
                return false;
            for (uint32_t k = 0; k < u->n_recv + u->n_send; k++)
                if (!assign_conn(m, PEER(ex, u->recv0 + k), PEER(ex, v->recv0 + k)))
                    return false;
        }
    }
    return true;
}

static void
undo(Match *m, uint32_t n_progs, uint32_t n_conns)
{
    for (uint32_t i = n_progs; i < m->log_progs->len; i++) {
        uint32_t a = g_array_index(m->log_progs, uint32_t, i);
        m->prog_taken[m->s->prog_img[a]] = false;
        m->s->prog_img[a] = NONE;
    }
    for (uint32_t i = n_conns; i < m->log_conns->len; i++) {
        uint32_t c = g_array_index(m->log_conns, uint32_t, i);
        m->conn_taken[m->s->conn_img[c]] = false;
        m->s->conn_img[c] = NONE;
    }
    g_array_set_size(m->log_progs, n_progs);
    g_array_set_size(m->log_conns, n_conns);
}

/* The images of programs and connections: each program not yet reached
 * from an earlier one tries the programs of its participant's image in
 * turn, following the connections from each guess; false when one has
 * none that holds. Connections no program names must have no image. */
static bool
map_schedule(CollExec *ex, Shift *s)
{
    uint32_t n_progs = ex->progs->len, n_conns = ex->conns->len;
    const uint32_t *first = s->x->first, *of_part = s->x->of_part;
    for (uint32_t i = 0; i < n_progs; i++)
        s->prog_img[i] = NONE;
    for (uint32_t i = 0; i < n_conns; i++)
        s->conn_img[i] = NONE;
    g_autofree bool *prog_taken = g_new0(bool, MAX(n_progs, 1));
    g_autofree bool *conn_taken = g_new0(bool, MAX(n_conns, 1));
    Match m = {ex,
               s,
               prog_taken,
               conn_taken,
               g_array_new(FALSE, FALSE, sizeof(uint32_t)),
               g_array_new(FALSE, FALSE, sizeof(uint32_t)),
               g_array_new(FALSE, FALSE, sizeof(uint32_t))};
    bool ok = true;
    for (uint32_t i = 0; i < n_progs && ok; i++) {
        if (s->prog_img[i] != NONE)
            continue;
        uint32_t img = s->part_img[PROG(ex, i)->participant];
        ok = false;
        for (uint32_t k = first[img]; k < first[img + 1] && !ok; k++) {
            uint32_t n_logged = m.log_progs->len, n_conns_logged = m.log_conns->len;
            ok = !prog_taken[of_part[k]] && follow(&m, i, of_part[k]);
            if (!ok)
                undo(&m, n_logged, n_conns_logged);
        }
    }
    for (uint32_t i = 0; i < n_conns && ok; i++)
        ok = s->conn_img[i] != NONE ||
             (CONN(ex, i)->sender == NONE && CONN(ex, i)->receiver == NONE);
    g_array_unref(m.unchecked);
    g_array_unref(m.log_progs);
    g_array_unref(m.log_conns);
    return ok;
}

static uint32_t
uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static void
route_of(const CollExec *ex, const Conn *c, TopoRoute *route)
{
    if (!topo_router_route(ex->router, c->src_vertex, c->dst_vertex, route))
        g_error("coll-exec: no route from vertex %u to vertex %u", c->src_vertex, c->dst_vertex);
}

/* The classes of like links the routes of each connection's orbit fall
 * on, hop by hop, into link_rep; false unless the orbit's routes have
 * one shape, its members cross distinct links at each hop, every class
 * used has exactly copies members, and no folded route crosses a class
 * twice. */
static bool
map_links(const CollExec *ex, const Shift *s, uint32_t *link_rep)
{
    const TopoGraph *g = ex->graph;
    uint32_t n_links = topo_graph_n_links(g);
    g_autofree uint64_t *stamp = g_new0(uint64_t, n_links);
    g_autofree uint32_t *size = g_new0(uint32_t, n_links);
    g_autofree bool *used = g_new0(bool, n_links);
    g_autofree TopoRoute *routes = g_new(TopoRoute, s->copies);
    for (uint32_t l = 0; l < n_links; l++)
        link_rep[l] = l;
    uint64_t n_stamps = 0;
    for (uint32_t i = 0; i < ex->conns->len; i++) {
        if (s->conn_img[i] == NONE || !s->part_kept[CONN(ex, i)->src])
            continue;
        uint32_t d = i;
        for (uint32_t k = 0; k < s->copies; k++, d = s->conn_img[d])
            route_of(ex, CONN(ex, d), &routes[k]);
        if (d != i)
            return false;
        const TopoRoute *r0 = &routes[0];
        for (uint32_t pth = 0; pth < r0->n_paths; pth++) {
            const TopoPath *a = &r0->path[pth];
            for (uint32_t h = 0; h < a->n_hops; h++) {
                n_stamps++;
                for (uint32_t k = 0; k < s->copies; k++) {
                    const TopoRoute *rk = &routes[k];
                    if (rk->n_paths != r0->n_paths || rk->path[pth].n_hops != a->n_hops ||
                        rk->path[pth].weight != a->weight)
                        return false;
                    uint32_t la = a->link[h], lb = rk->path[pth].link[h];
                    if (stamp[lb] == n_stamps ||
                        !like_links(topo_graph_link(g, la), topo_graph_link(g, lb)))
                        return false;
                    stamp[lb] = n_stamps;
                    used[lb] = true;
                    uint32_t ra = uf_find(link_rep, la), rb = uf_find(link_rep, lb);
                    if (ra != rb)
                        link_rep[MAX(ra, rb)] = MIN(ra, rb);
                }
            }
        }
    }
    for (uint32_t l = 0; l < n_links; l++)
        if (used[l])
            size[uf_find(link_rep, l)]++;
    for (uint32_t l = 0; l < n_links; l++) {
        link_rep[l] = uf_find(link_rep, l);
        if (used[l] && size[link_rep[l]] != s->copies)
            return false;
    }
    /* A folded route crossing one class twice would load its
     * representative twice over. */
    for (uint32_t i = 0; i < ex->conns->len; i++) {
        if (s->conn_img[i] == NONE || !s->part_kept[CONN(ex, i)->src])
            continue;
        route_of(ex, CONN(ex, i), &routes[0]);
        for (uint32_t pth = 0; pth < routes[0].n_paths; pth++) {
            const TopoPath *a = &routes[0].path[pth];
            for (uint32_t h = 0; h < a->n_hops; h++)
                for (uint32_t h2 = 0; h2 < h; h2++)
                    if (link_rep[a->link[h]] == link_rep[a->link[h2]])
                        return false;
        }
    }
    return true;
}

/* Whether ex's participants are all on nodes; *n_nodes is one more than
 * the last of them. */
static bool
nodes_of(const CollExec *ex, uint32_t *n_nodes)
{
    const TopoGraph *g = ex->graph;
    uint32_t n = 0;
    if (ex->parts->len == 0)
        return false;
    for (uint32_t i = 0; i < ex->parts->len; i++) {
        uint32_t node = topo_graph_vertex(g, g_array_index(ex->parts, Part, i).vertex)->node;
        if (node == TOPO_NONE)
            return false;
        n = MAX(n, node + 1);
    }
    *n_nodes = n;
    return true;
}

/* The representative of each item of an orbit: its kept member (img
 * applied copies times returns to it). */
static void
orbit_reps(const uint32_t *img, uint32_t n, uint32_t copies, const bool *kept, uint32_t *rep)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!kept[i])
            continue;
        uint32_t x = i;
        for (uint32_t k = 0; k < copies; k++, x = img[x])
            rep[x] = i;
    }
}

static void
apply(CollExec *ex, const Shift *s, CollExecFold *fold)
{
    uint32_t n_parts = ex->parts->len, n_progs = ex->progs->len, n_conns = ex->conns->len;
    g_autofree bool *kept = g_new(bool, MAX(MAX(n_parts, n_progs), n_conns));
    fold->part_rep = g_new(uint32_t, n_parts);
    fold->prog_rep = g_new(uint32_t, n_progs);
    g_autofree uint32_t *conn_rep = g_new(uint32_t, n_conns);
    orbit_reps(s->part_img, n_parts, s->copies, s->part_kept, fold->part_rep);
    for (uint32_t i = 0; i < n_progs; i++)
        kept[i] = s->part_kept[PROG(ex, i)->participant];
    orbit_reps(s->prog_img, n_progs, s->copies, kept, fold->prog_rep);
    for (uint32_t i = 0; i < n_conns; i++) {
        kept[i] = s->conn_img[i] != NONE && s->part_kept[CONN(ex, i)->src];
        conn_rep[i] = NONE;
    }
    orbit_reps(s->conn_img, n_conns, s->copies, kept, conn_rep);
    fold->saved_conns = g_array_copy(ex->conns);
    fold->saved_peers = g_array_copy(ex->peers);
    for (uint32_t i = 0; i < n_conns; i++) {
        Conn *c = CONN(ex, i);
        if (!kept[i])
            continue;
        c->dst = fold->part_rep[c->dst];
        c->receiver = fold->prog_rep[c->receiver];
    }
    for (uint32_t i = 0; i < n_progs; i++) {
        Prog *p = PROG(ex, i);
        if (fold->prog_rep[i] != i) {
            p->done_ps = ex->start_ps; /* stands aside; its representative runs */
            continue;
        }
        for (uint32_t r = 0; r < p->n_runs; r++) {
            const Op *op = OP(ex, p->first_op + r);
            for (uint32_t k = 0; k < op->n_recv + op->n_send; k++)
                PEER(ex, op->recv0 + k) = conn_rep[PEER(ex, op->recv0 + k)];
        }
    }
}

/* How many steps of a shift by k of n return everything to itself. */
static uint32_t
order_of(uint32_t k, uint32_t n)
{
    return k == 0 ? 1 : n / k;
}

static uint32_t
gcd(uint32_t a, uint32_t b)
{
    while (b != 0) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

typedef struct Candidate {
    uint32_t p, r, copies;
} Candidate;

/* The most copies first; of as many, turning the fewest GPUs, then
 * moving the fewest nodes. */
static int
by_copies(const void *a, const void *b)
{
    const Candidate *x = a, *y = b;
    if (x->copies != y->copies)
        return x->copies > y->copies ? -1 : 1;
    if (x->r != y->r)
        return x->r < y->r ? -1 : 1;
    return x->p < y->p ? -1 : x->p > y->p;
}

bool
coll_exec_fold(CollExec *ex, CollExecFold *fold)
{
    memset(fold, 0, sizeof *fold);
    uint32_t n;
    if (!nodes_of(ex, &n))
        return false;
    uint32_t n_gpus = ex->graph->gpus->len;
    /* Shifts by a divisor of the nodes and turns by a divisor of a node's
     * GPUs (0: none). */
    g_autoptr(GArray) cands = g_array_new(FALSE, FALSE, sizeof(Candidate));
    for (uint32_t p = 0; p < n; p++)
        for (uint32_t r = 0; r < n_gpus; r++) {
            if ((p != 0 && (n % p != 0 || ex->graph->n_node_vertices == 0)) ||
                (r != 0 && n_gpus % r != 0))
                continue;
            uint32_t a = order_of(p, n), b = order_of(r, n_gpus);
            Candidate c = {p, r, a / gcd(a, b) * b};
            if (c.copies > 1)
                g_array_append_val(cands, c);
        }
    g_array_sort(cands, by_copies);
    Index index;
    index_init(&index, ex);
    Shift s = {.x = &index,
               .n_nodes = n,
               .n_gpus = n_gpus,
               .part_img = g_new(uint32_t, ex->parts->len),
               .prog_img = g_new(uint32_t, MAX(ex->progs->len, 1)),
               .conn_img = g_new(uint32_t, MAX(ex->conns->len, 1)),
               .part_kept = g_new(bool, ex->parts->len)};
    uint32_t *link_rep = g_new(uint32_t, topo_graph_n_links(ex->graph));
    bool found = false;
    for (uint32_t i = 0; i < cands->len && !found; i++) {
        const Candidate *c = &g_array_index(cands, Candidate, i);
        s.p = c->p;
        s.r = c->r;
        s.copies = c->copies;
        found = map_owners(ex, &s) && map_orbits(ex, &s) && map_schedule(ex, &s) &&
                map_links(ex, &s, link_rep);
    }
    if (found) {
        fold->shift_nodes = s.p;
        fold->turn_gpus = s.r;
        fold->copies = s.copies;
        fold->link_rep = link_rep;
        apply(ex, &s, fold);
    } else {
        g_free(link_rep);
    }
    g_free(s.part_img);
    g_free(s.prog_img);
    g_free(s.conn_img);
    g_free(s.part_kept);
    index_clear(&index);
    return found;
}

void
coll_exec_unfold(CollExec *ex, CollExecFold *fold, CollExecResult *result)
{
    uint64_t k = fold->copies;
    for (uint32_t i = 0; i < ex->conns->len; i++) {
        Conn *c = CONN(ex, i);
        const Conn *saved = &g_array_index(fold->saved_conns, Conn, i);
        c->dst = saved->dst;
        c->receiver = saved->receiver;
    }
    memcpy(ex->peers->data, fold->saved_peers->data, sizeof(uint32_t) * ex->peers->len);
    for (uint32_t i = 0; i < ex->parts->len; i++) {
        Part *p = &g_array_index(ex->parts, Part, i);
        const Part *rep = &g_array_index(ex->parts, Part, fold->part_rep[i]);
        p->sent_bytes = rep->sent_bytes;
        p->received_bytes = rep->received_bytes;
    }
    for (uint32_t i = 0; i < ex->progs->len; i++)
        PROG(ex, i)->done_ps = PROG(ex, fold->prog_rep[i])->done_ps;
    result->n_messages *= k;
    result->payload_bytes *= k;
    result->net.n_sends *= k;
    result->net.n_sends_done *= k;
    result->net.payload_bytes_sent *= k;
    result->net.payload_bytes_delivered *= k;
    result->net.n_packets *= k;
    result->fold = fold->copies;
    result->fold_nodes = fold->shift_nodes;
    result->fold_gpus = fold->turn_gpus;
    g_free(fold->link_rep);
    g_free(fold->part_rep);
    g_free(fold->prog_rep);
    g_array_unref(fold->saved_conns);
    g_array_unref(fold->saved_peers);
    memset(fold, 0, sizeof *fold);
}

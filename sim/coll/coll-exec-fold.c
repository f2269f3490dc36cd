/* SPDX-License-Identifier: Apache-2.0 */
/* Folding a collective by node symmetry (coll-exec-state.h).
 *
 * A shift by p nodes maps vertex v of node k to the same vertex of node
 * k + p (mod n): a participant to the one at the image of its vertex (the
 * same one of those made there, in order), a program to the same one of
 * its image's, and it is a symmetry of the schedule when every program's
 * operations equal its image's and name the images of its connections,
 * each connection alike to its image. Then every orbit of programs runs
 * the same operations at the same times, if the network treats them
 * alike too: the routes of a connection's orbit must fall hop by hop on
 * classes of n / p like links (the same rate, latency, buffer and error
 * rate), one of each class a member. Each class then carries the same
 * flows, orbit for orbit, on every member, so one member can stand for
 * all: the folded run keeps nodes [0, p), sends what leaves them to the
 * kept images of its receivers, over the real route with each link
 * replaced by its class's representative, and its times are the whole
 * call's (max-min fair rates are the same on symmetric links). A ring of
 * 20 racks of GB200 NVL72 on one rail leaf a NIC folds to one rack; 64
 * DGX H100 nodes on two leaves a rail fold to 32 nodes. Schedules
 * without the symmetry (trees, a rotated root, sizes that differ by
 * rank) run whole.
 */
#include <string.h>

#include "coll/coll-exec-state.h"
#include "topo/topo-route.h"

typedef struct Shift {
    uint32_t n_nodes, p, copies;
    uint32_t *part_img, *prog_img, *conn_img; /* [parts], [progs], [conns] */
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

/* The image of vertex v under the shift, or TOPO_NONE off the nodes. */
static uint32_t
vertex_img(const TopoGraph *g, const Shift *s, uint32_t v)
{
    uint32_t node = topo_graph_vertex(g, v)->node;
    if (node == TOPO_NONE || node >= s->n_nodes)
        return TOPO_NONE;
    uint32_t to = (node + s->p) % s->n_nodes;
    return v - node * g->n_node_vertices + to * g->n_node_vertices;
}

/* The images of participants and programs (by occurrence at their
 * vertex and participant); false when some has none. */
static bool
map_owners(CollExec *ex, Shift *s)
{
    const TopoGraph *g = ex->graph;
    /* A participant's key: its vertex and how many were made there before it. */
    g_autoptr(GHashTable) by_key = g_hash_table_new(g_int64_hash, g_int64_equal);
    g_autoptr(GHashTable) n_at = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autofree gint64 *keys = g_new(gint64, ex->parts->len);
    g_autofree uint32_t *part_occ = g_new(uint32_t, ex->parts->len);
    for (uint32_t i = 0; i < ex->parts->len; i++) {
        uint32_t v = g_array_index(ex->parts, Part, i).vertex;
        part_occ[i] = GPOINTER_TO_UINT(g_hash_table_lookup(n_at, GUINT_TO_POINTER(v + 1)));
        g_hash_table_insert(n_at, GUINT_TO_POINTER(v + 1), GUINT_TO_POINTER(part_occ[i] + 1));
        keys[i] = (gint64)v << 32 | part_occ[i];
        g_hash_table_insert(by_key, &keys[i], GUINT_TO_POINTER(i + 1));
    }
    for (uint32_t i = 0; i < ex->parts->len; i++) {
        const Part *a = &g_array_index(ex->parts, Part, i);
        uint32_t v = vertex_img(g, s, a->vertex);
        if (v == TOPO_NONE)
            return false;
        gint64 key = (gint64)v << 32 | part_occ[i];
        uint32_t j = GPOINTER_TO_UINT(g_hash_table_lookup(by_key, &key));
        if (j == 0)
            return false;
        const Part *b = &g_array_index(ex->parts, Part, j - 1);
        if (a->gpu != b->gpu || a->reduce_bytes_per_s != b->reduce_bytes_per_s)
            return false;
        s->part_img[i] = j - 1;
    }
    g_autofree uint32_t *n_progs = g_new0(uint32_t, ex->parts->len);
    g_autofree uint32_t **progs_of = g_new0(uint32_t *, ex->parts->len);
    for (uint32_t i = 0; i < ex->progs->len; i++)
        n_progs[PROG(ex, i)->participant]++;
    for (uint32_t i = 0; i < ex->parts->len; i++)
        progs_of[i] = g_new(uint32_t, MAX(n_progs[i], 1));
    memset(n_progs, 0, sizeof(uint32_t) * ex->parts->len);
    g_autofree uint32_t *prog_occ = g_new(uint32_t, ex->progs->len);
    for (uint32_t i = 0; i < ex->progs->len; i++) {
        uint32_t part = PROG(ex, i)->participant;
        prog_occ[i] = n_progs[part];
        progs_of[part][n_progs[part]++] = i;
    }
    bool ok = true;
    for (uint32_t i = 0; i < ex->progs->len && ok; i++) {
        uint32_t img = s->part_img[PROG(ex, i)->participant];
        ok = prog_occ[i] < n_progs[img] && n_progs[img] == n_progs[PROG(ex, i)->participant];
        if (ok)
            s->prog_img[i] = progs_of[img][prog_occ[i]];
    }
    for (uint32_t i = 0; i < ex->parts->len; i++)
        g_free(progs_of[i]);
    return ok;
}

/* Whether every program's operations equal its image's, naming the
 * images of its connections (which it records), and the connections are
 * alike to their images between the images of their ends. */
static bool
map_schedule(CollExec *ex, Shift *s)
{
    for (uint32_t i = 0; i < ex->conns->len; i++)
        s->conn_img[i] = NONE;
    for (uint32_t i = 0; i < ex->progs->len; i++) {
        const Prog *a = PROG(ex, i), *b = PROG(ex, s->prog_img[i]);
        if (a->fenced != b->fenced || a->n_runs != b->n_runs)
            return false;
        for (uint32_t r = 0; r < a->n_runs; r++) {
            const Op *x = OP(ex, a->first_op + r), *y = OP(ex, b->first_op + r);
            if (!like_ops(x, y))
                return false;
            uint32_t n_peers = x->n_recv + x->n_send;
            for (uint32_t k = 0; k < n_peers; k++) {
                uint32_t c = PEER(ex, x->recv0 + k), d = PEER(ex, y->recv0 + k);
                if (s->conn_img[c] == NONE)
                    s->conn_img[c] = d;
                else if (s->conn_img[c] != d)
                    return false;
            }
        }
    }
    for (uint32_t i = 0; i < ex->conns->len; i++) {
        const Conn *c = CONN(ex, i);
        if (s->conn_img[i] == NONE) {
            if (c->sender != NONE || c->receiver != NONE)
                return false;
            continue;
        }
        const Conn *d = CONN(ex, s->conn_img[i]);
        if (!like_conns(c, d) || s->part_img[c->src] != d->src || s->part_img[c->dst] != d->dst)
            return false;
    }
    return true;
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

static bool
node_kept(const CollExec *ex, const Shift *s, uint32_t part)
{
    uint32_t v = g_array_index(ex->parts, Part, part).vertex;
    return topo_graph_vertex(ex->graph, v)->node < s->p;
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
        if (s->conn_img[i] == NONE || !node_kept(ex, s, CONN(ex, i)->src))
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
        if (s->conn_img[i] == NONE || !node_kept(ex, s, CONN(ex, i)->src))
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

/* Whether the nodes of ex's participants are 0 .. n-1, into *n_nodes. */
static bool
nodes_of(const CollExec *ex, uint32_t *n_nodes)
{
    const TopoGraph *g = ex->graph;
    uint32_t n = 0;
    if (g->n_node_vertices == 0 || ex->parts->len == 0)
        return false;
    for (uint32_t i = 0; i < ex->parts->len; i++) {
        uint32_t node = topo_graph_vertex(g, g_array_index(ex->parts, Part, i).vertex)->node;
        if (node == TOPO_NONE)
            return false;
        n = MAX(n, node + 1);
    }
    *n_nodes = n;
    return n > 1;
}

/* The representative of each item of an orbit: its member on the kept
 * nodes (img applied copies times returns to it). */
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
    for (uint32_t i = 0; i < n_parts; i++)
        kept[i] = node_kept(ex, s, i);
    orbit_reps(s->part_img, n_parts, s->copies, kept, fold->part_rep);
    for (uint32_t i = 0; i < n_progs; i++)
        kept[i] = node_kept(ex, s, PROG(ex, i)->participant);
    orbit_reps(s->prog_img, n_progs, s->copies, kept, fold->prog_rep);
    for (uint32_t i = 0; i < n_conns; i++) {
        kept[i] = s->conn_img[i] != NONE && node_kept(ex, s, CONN(ex, i)->src);
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

bool
coll_exec_fold(CollExec *ex, CollExecFold *fold)
{
    memset(fold, 0, sizeof *fold);
    uint32_t n;
    if (!nodes_of(ex, &n))
        return false;
    Shift s = {.n_nodes = n,
               .part_img = g_new(uint32_t, ex->parts->len),
               .prog_img = g_new(uint32_t, MAX(ex->progs->len, 1)),
               .conn_img = g_new(uint32_t, MAX(ex->conns->len, 1))};
    uint32_t *link_rep = g_new(uint32_t, topo_graph_n_links(ex->graph));
    bool found = false;
    for (uint32_t p = 1; p < n && !found; p++) {
        if (n % p != 0)
            continue;
        s.p = p;
        s.copies = n / p;
        found = map_owners(ex, &s) && map_schedule(ex, &s) && map_links(ex, &s, link_rep);
    }
    if (found) {
        fold->shift = s.p;
        fold->copies = s.copies;
        fold->link_rep = link_rep;
        apply(ex, &s, fold);
    } else {
        g_free(link_rep);
    }
    g_free(s.part_img);
    g_free(s.prog_img);
    g_free(s.conn_img);
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
    g_free(fold->link_rep);
    g_free(fold->part_rep);
    g_free(fold->prog_rep);
    g_array_unref(fold->saved_conns);
    g_array_unref(fold->saved_peers);
    memset(fold, 0, sizeof *fold);
}

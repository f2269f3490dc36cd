/* SPDX-License-Identifier: Apache-2.0 */
/* A schedule's traffic as flows (coll-exec.h, coll_exec_traffic): what
 * each connection carries in a whole run, for a network shared with other
 * work, where the call's messages are not run one by one. */
#include <math.h>
#include <stdlib.h>

#include "coll/coll-exec-state.h"

/* Flows by endpoints and pace (then bytes, for a stable order). */
static int
flow_cmp(const void *pa, const void *pb)
{
    const CollFlow *a = pa, *b = pb;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    if (a->max_bytes_per_s != b->max_bytes_per_s)
        return a->max_bytes_per_s < b->max_bytes_per_s ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    return 0;
}

static bool
same_pair(const CollFlow *a, const CollFlow *b)
{
    return a->src == b->src && a->dst == b->dst && a->max_bytes_per_s == b->max_bytes_per_s;
}

/* The link from vertex a to vertex b, or NULL. */
static const TopoLink *
link_between(const TopoGraph *g, uint32_t a, uint32_t b)
{
    for (uint32_t l = 0; l < topo_graph_n_links(g); l++) {
        const TopoLink *link = topo_graph_link(g, l);
        if (link->src == a && link->dst == b)
            return link;
    }
    return NULL;
}

/* Connection c's flow of bytes, and one to each switch plane alike to its
 * switch when it stands for several (coll_exec_set_share): the switches
 * its GPU reaches by a bundle of the same links. */
static void
add_conn(const CollExec *ex, const Conn *c, uint64_t bytes, GArray *out)
{
    CollFlow f = {c->src_vertex, c->dst_vertex, bytes, c->max_bytes_per_s, c->multiple};
    if (c->copies <= 1) {
        g_array_append_val(out, f);
        return;
    }
    bool up = g_array_index(ex->parts, Part, c->src).gpu;
    uint32_t gpu = up ? c->src_vertex : c->dst_vertex;
    uint32_t sw = up ? c->dst_vertex : c->src_vertex;
    const TopoLink *rep = link_between(ex->graph, gpu, sw);
    g_return_if_fail(rep != NULL);
    uint32_t found = 0;
    for (uint32_t l = 0; l < topo_graph_n_links(ex->graph) && found < c->copies; l++) {
        const TopoLink *link = topo_graph_link(ex->graph, l);
        if (link->src != gpu || link->spec != rep->spec || link->n_links != rep->n_links ||
            topo_graph_vertex(ex->graph, link->dst)->kind != TOPO_NVSWITCH)
            continue;
        f.src = up ? gpu : link->dst;
        f.dst = up ? link->dst : gpu;
        g_array_append_val(out, f);
        found++;
    }
}

void
coll_exec_traffic(const CollExec *ex, GArray *flows)
{
    g_autofree uint64_t *wire = g_new0(uint64_t, MAX(ex->conns->len, 1));
    for (uint32_t i = 0; i < ex->progs->len; i++) {
        const Prog *p = PROG(ex, i);
        for (uint32_t k = 0; k < p->n_runs; k++) {
            const Op *op = OP(ex, p->first_op + k);
            for (uint32_t s = 0; s < op->n_send; s++) {
                uint32_t ci = PEER(ex, op->send0 + s);
                const Conn *c = CONN(ex, ci);
                /* As issue_sends rounds a message. */
                uint64_t bytes = (uint64_t)ceil((double)op->bytes * c->share);
                wire[ci] += (uint64_t)ceil((double)bytes * c->wire_factor) * op->repeat;
            }
        }
    }
    g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(CollFlow));
    for (uint32_t ci = 0; ci < ex->conns->len; ci++)
        if (wire[ci] > 0)
            add_conn(ex, CONN(ex, ci), wire[ci], all);
    qsort(all->data, all->len, sizeof(CollFlow), flow_cmp);
    for (guint i = 0; i < all->len;) {
        /* One flow a pair of endpoints and pace, copies of the mean bytes. */
        CollFlow f = g_array_index(all, CollFlow, i);
        uint64_t bytes = 0;
        uint32_t copies = 0;
        for (; i < all->len && same_pair(&f, &g_array_index(all, CollFlow, i)); i++) {
            const CollFlow *x = &g_array_index(all, CollFlow, i);
            bytes += x->bytes * x->copies;
            copies += x->copies;
        }
        f.bytes = (bytes + copies - 1) / copies;
        f.copies = copies;
        g_array_append_val(flows, f);
    }
}

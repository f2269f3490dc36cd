/* SPDX-License-Identifier: Apache-2.0 */
/* Plane groups: a spray's paths lumped into one flow. A GPU sprays a
 * transfer over every NVSwitch plane both ends reach (topo-route.h), one
 * path per plane, each carrying the share of the bytes its bundles' width
 * gives it. When the paths are parallel (as many hops each; at every hop
 * either one link they all cross, or a distinct link per path, all alike
 * but for a width in proportion to the path's share) and every flow that
 * crosses one link of such a set crosses all of them in that proportion,
 * max-min gives each plane's part the same fraction of its bundle, and
 * the parts drain together: one flow over the set as one resource of
 * their capacity together moves the bytes in the same time, up to the
 * packet rounding of each plane's part (its wire bytes are the planes'
 * added up; its tail the longest plane's). A GB200 NVL72 rack sprays
 * over 18 planes: 18 times fewer flows for the solver to fill.
 *
 * The proportion is a promise about every flow to come, so each link
 * records how it is used: by a group, or by flows of its own (solo). A
 * flow that would use a grouped link on its own, or the other way round
 * (an NVLS send to one switch among lumped sprays, a fixed path), is a
 * conflict: net-flow.c then cuts every lumped flow into its planes and
 * lumps nothing more in this run. A pair's lumped route is kept (its
 * links' uses cannot change but by a conflict, which ends lumping), so
 * that a ring's millions of sends check their pair's paths once.
 */
#include <string.h>

#include "net/net-flow-state.h"

/* A pair's route lumped: its resources hop by hop. */
typedef struct Lumped {
    uint32_t n_hops;
    uint32_t res[TOPO_MAX_HOPS];
} Lumped;

void
net_flow_planes_init(NetFlow *nf)
{
    nf->lumped_routes = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    uint32_t n = MAX(nf->n_links, 1);
    nf->n_res_max = nf->n_links + nf->n_links / 2 + 1;
    nf->group_first = g_new(uint32_t, n / 2 + 1);
    nf->group_len = g_new(uint32_t, n / 2 + 1);
    nf->group_bytes_per_s = g_new(double, n / 2 + 1);
    nf->group_member = g_new(uint32_t, n);
    nf->link_mode = g_new(uint32_t, n);
    for (uint32_t l = 0; l < nf->n_links; l++)
        nf->link_mode[l] = LINK_UNUSED;
}

void
net_flow_planes_free(NetFlow *nf)
{
    g_hash_table_unref(nf->lumped_routes);
    g_free(nf->group_first);
    g_free(nf->group_len);
    g_free(nf->group_bytes_per_s);
    g_free(nf->group_member);
    g_free(nf->link_mode);
}

/* Whether links a (on a path of weight wa) and b (wb) are alike but for
 * their width, in proportion to the weights; last: the hop ends the path
 * (the vertex it reaches adds no latency then). */
static bool
alike(const TopoGraph *graph, uint32_t a, uint32_t wa, uint32_t b, uint32_t wb, bool last)
{
    const TopoLink *x = topo_graph_link(graph, a), *y = topo_graph_link(graph, b);
    if (x->spec != y->spec || x->latency_ps != y->latency_ps ||
        x->packet_error_rate != y->packet_error_rate ||
        (unsigned __int128)x->bytes_per_s * wb != (unsigned __int128)y->bytes_per_s * wa)
        return false;
    return last ||
           topo_graph_vertex(graph, x->dst)->latency_ps == topo_graph_vertex(graph, y->dst)->latency_ps;
}

/* The group whose members are exactly the links of paths first..last-1
 * at hop h: its index, LINK_UNUSED when none of them is used yet, or
 * LINK_SOLO when they are used otherwise (a conflict). */
static uint32_t
find_group(const NetFlow *nf, const TopoRoute *route, uint32_t first, uint32_t last, uint32_t h)
{
    uint32_t g = nf->link_mode[route->path[first].link[h]];
    for (uint32_t i = first; i < last; i++)
        if (nf->link_mode[route->path[i].link[h]] != g)
            return LINK_SOLO;
    if (g == LINK_UNUSED || g == LINK_SOLO)
        return g;
    return nf->group_len[g] == last - first ? g : LINK_SOLO;
}

static uint32_t
new_group(NetFlow *nf, const TopoRoute *route, uint32_t first, uint32_t last, uint32_t h)
{
    uint32_t g = nf->n_groups++;
    uint32_t m0 = g == 0 ? 0 : nf->group_first[g - 1] + nf->group_len[g - 1];
    nf->group_first[g] = m0;
    nf->group_len[g] = last - first;
    nf->group_bytes_per_s[g] = 0;
    for (uint32_t i = first; i < last; i++) {
        uint32_t l = route->path[i].link[h];
        nf->group_member[m0 + i - first] = l;
        nf->link_mode[l] = g;
        nf->group_bytes_per_s[g] += (double)topo_graph_link(nf->base.graph, l)->bytes_per_s;
    }
    return g;
}

bool
net_flow_lump_route(NetFlow *nf, uint32_t src, uint32_t dst, const TopoRoute *route,
                    uint32_t first, uint32_t last, uint32_t *res, bool *conflict)
{
    const TopoGraph *graph = nf->base.graph;
    const TopoPath *p0 = &route->path[first];
    *conflict = false;
    gint64 key = (gint64)src << 32 | dst;
    const Lumped *kept = g_hash_table_lookup(nf->lumped_routes, &key);
    if (kept != NULL) {
        memcpy(res, kept->res, kept->n_hops * sizeof *res);
        return true;
    }
    /* The shape: parallel paths of like links. */
    bool shared[TOPO_MAX_HOPS];
    for (uint32_t i = first + 1; i < last; i++)
        if (route->path[i].n_hops != p0->n_hops)
            return false;
    for (uint32_t h = 0; h < p0->n_hops; h++) {
        bool last_hop = h + 1 == p0->n_hops;
        shared[h] = true;
        for (uint32_t i = first + 1; i < last; i++)
            shared[h] &= route->path[i].link[h] == p0->link[h];
        if (shared[h])
            continue;
        for (uint32_t i = first; i < last; i++) {
            const TopoPath *pi = &route->path[i];
            if (!alike(graph, p0->link[h], p0->weight, pi->link[h], pi->weight, last_hop))
                return false;
            for (uint32_t j = first; j < i; j++)
                if (route->path[j].link[h] == pi->link[h])
                    return false;
        }
    }
    /* Each link used as before: solo where shared, by this group where not. */
    uint32_t groups[TOPO_MAX_HOPS];
    for (uint32_t h = 0; h < p0->n_hops; h++) {
        uint32_t mode = nf->link_mode[p0->link[h]];
        groups[h] = shared[h] ? mode : find_group(nf, route, first, last, h);
        if (shared[h] ? mode < LINK_SOLO : groups[h] == LINK_SOLO) {
            *conflict = true;
            return false;
        }
    }
    for (uint32_t h = 0; h < p0->n_hops; h++) {
        if (shared[h]) {
            nf->link_mode[p0->link[h]] = LINK_SOLO;
            res[h] = p0->link[h];
        } else {
            uint32_t g = groups[h] == LINK_UNUSED ? new_group(nf, route, first, last, h) : groups[h];
            res[h] = nf->n_links + g;
        }
    }
    Lumped *l = g_new(Lumped, 1);
    l->n_hops = p0->n_hops;
    memcpy(l->res, res, p0->n_hops * sizeof *res);
    gint64 *k = g_new(gint64, 1);
    *k = key;
    g_hash_table_insert(nf->lumped_routes, k, l);
    return true;
}

bool
net_flow_claim_solo(NetFlow *nf, const TopoRoute *route, uint32_t first, uint32_t last)
{
    for (uint32_t i = first; i < last; i++)
        for (uint32_t h = 0; h < route->path[i].n_hops; h++)
            if (nf->link_mode[route->path[i].link[h]] < LINK_SOLO)
                return false;
    for (uint32_t i = first; i < last; i++)
        for (uint32_t h = 0; h < route->path[i].n_hops; h++)
            nf->link_mode[route->path[i].link[h]] = LINK_SOLO;
    return true;
}

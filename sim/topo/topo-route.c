/* SPDX-License-Identifier: Apache-2.0 */
/* Routing. Inside a node: every shortest path (in hops) between two
 * endpoints that crosses only switches and CPUs, found by a breadth-first
 * search from each endpoint of node 0 when the router is made; all nodes
 * share node 0's table, offset by the node's link base. Between nodes: the
 * GPU's NIC(s), the fabric (leaf, leaf-spine-leaf, or with three tiers
 * leaf-spine-core-spine-leaf between pods), the destination
 * GPU's NIC(s). A fabric switch (one reducing in the network) is reached
 * from a GPU through the GPU's NIC(s) and its leaf, and the spine above
 * when it is another leaf or the spine; back the same links reversed.
 * Inside a node, paths over NVLink are preferred: PCIe and
 * the host carry peer traffic only where no NVLink path exists. Weights: the
 * narrowest bundle (in physical links) on a path.
 */
#include "topo/topo-route.h"

#include <string.h>

#include "core/core-time.h"

typedef struct LocalRoute {
    uint32_t first; /* into paths */
    uint32_t n_paths;
} LocalRoute;

struct TopoRouter {
    const TopoGraph *graph;
    uint32_t n_endpoints;
    uint32_t *endpoint_of; /* node-local vertex id -> endpoint index, or TOPO_NONE */
    LocalRoute *local;     /* [n_endpoints * n_endpoints] */
    GArray *paths;         /* TopoPath, node-local link ids */
    uint32_t *nic_uplink;  /* [n_nodes * nics per node]: NIC -> leaf link, or TOPO_NONE */
    uint32_t *leaf_up;     /* [n leaves]: leaf -> spine link, or TOPO_NONE */
    uint32_t *leaf_down;   /* [n leaves]: spine -> leaf link */
    uint32_t *spine_up;    /* [n spines]: spine -> super-spine link, or TOPO_NONE */
    uint32_t *spine_down;  /* [n spines]: super-spine -> spine link */
};

static bool
forwards(TopoVertexKind kind)
{
    return kind == TOPO_NVSWITCH || kind == TOPO_PCIE_SWITCH || kind == TOPO_CPU ||
           kind == TOPO_MEMORY;
}

/* Switch chips are endpoints too: in-switch reduction and multicast
 * (NVLS) send to and from them. */
static bool
is_endpoint(TopoVertexKind kind)
{
    return kind == TOPO_GPU || kind == TOPO_CPU || kind == TOPO_NIC || kind == TOPO_NVSWITCH;
}

/* Outgoing node-local links per vertex, as a CSR built once. */
typedef struct Adjacency {
    uint32_t *start; /* [n + 1] */
    uint32_t *link;
} Adjacency;

static void
adjacency_init(Adjacency *adj, const TopoGraph *graph, uint32_t nv, uint32_t nl)
{
    adj->start = g_new0(uint32_t, nv + 1);
    adj->link = g_new(uint32_t, nl);
    for (uint32_t l = 0; l < nl; l++)
        adj->start[topo_graph_link(graph, l)->src + 1]++;
    for (uint32_t v = 0; v < nv; v++)
        adj->start[v + 1] += adj->start[v];
    uint32_t *fill = g_memdup2(adj->start, sizeof(uint32_t) * nv);
    for (uint32_t l = 0; l < nl; l++)
        adj->link[fill[topo_graph_link(graph, l)->src]++] = l;
    g_free(fill);
}

static void
adjacency_clear(Adjacency *adj)
{
    g_free(adj->start);
    g_free(adj->link);
}

/* Depth-first walk back from dst over the shortest-path DAG (dist), appending
 * each complete path to router->paths; stops at TOPO_MAX_PATHS. */
static void
collect_paths(TopoRouter *router, const Adjacency *in, const uint32_t *dist, bool nvlink_only,
              uint32_t src, uint32_t v, TopoPath *partial, uint32_t depth, uint32_t *n_found)
{
    const TopoGraph *graph = router->graph;
    if (v == src) {
        TopoPath path = {.n_hops = depth, .weight = UINT32_MAX};
        for (uint32_t h = 0; h < depth; h++) {
            path.link[h] = partial->link[depth - 1 - h];
            path.weight = MIN(path.weight, topo_graph_link(graph, path.link[h])->n_links);
        }
        g_array_append_val(router->paths, path);
        (*n_found)++;
        return;
    }
    for (uint32_t i = in->start[v]; i < in->start[v + 1] && *n_found < TOPO_MAX_PATHS; i++) {
        uint32_t l = in->link[i] ^ 1; /* in->link holds v's outgoing links; l enters v */
        const TopoLink *link = topo_graph_link(graph, l);
        uint32_t u = link->src;
        if (dist[u] + 1 != dist[v] || (u != src && !forwards(topo_graph_vertex(graph, u)->kind)))
            continue;
        if (nvlink_only && link->spec->kind != HW_LINK_NVLINK)
            continue;
        partial->link[depth] = l;
        collect_paths(router, in, dist, nvlink_only, src, u, partial, depth + 1, n_found);
    }
}

/* Breadth-first distances from src over node-local links (only NVLink
 * bundles when nvlink_only); endpoints other than src are not crossed. */
static void
distances(const TopoRouter *router, const Adjacency *adj, uint32_t src, bool nvlink_only,
          uint32_t nv, uint32_t *dist, uint32_t *queue)
{
    const TopoGraph *graph = router->graph;
    for (uint32_t v = 0; v < nv; v++)
        dist[v] = UINT32_MAX;
    uint32_t head = 0, tail = 0;
    dist[src] = 0;
    queue[tail++] = src;
    while (head < tail) {
        uint32_t u = queue[head++];
        if (u != src && !forwards(topo_graph_vertex(graph, u)->kind))
            continue;
        if (dist[u] + 1 >= TOPO_MAX_HOPS)
            continue;
        for (uint32_t i = adj->start[u]; i < adj->start[u + 1]; i++) {
            const TopoLink *link = topo_graph_link(graph, adj->link[i]);
            if (nvlink_only && link->spec->kind != HW_LINK_NVLINK)
                continue;
            if (dist[link->dst] == UINT32_MAX) {
                dist[link->dst] = dist[u] + 1;
                queue[tail++] = link->dst;
            }
        }
    }
}

/* Routes from endpoint src to every other endpoint: over NVLink when an
 * NVLink path exists (the fabric GPUs use for peer traffic), else over
 * anything (PCIe, CPUs). */
static void
route_from(TopoRouter *router, const Adjacency *adj, uint32_t src, uint32_t nv, uint32_t *dist,
           uint32_t *queue)
{
    uint32_t s = router->endpoint_of[src];
    for (int pass = 0; pass < 2; pass++) {
        bool nvlink_only = pass == 0;
        distances(router, adj, src, nvlink_only, nv, dist, queue);
        for (uint32_t dst = 0; dst < nv; dst++) {
            uint32_t d = router->endpoint_of[dst];
            if (d == TOPO_NONE || dst == src || dist[dst] == UINT32_MAX)
                continue;
            LocalRoute *r = &router->local[s * router->n_endpoints + d];
            if (r->n_paths > 0)
                continue;
            r->first = router->paths->len;
            TopoPath partial;
            collect_paths(router, adj, dist, nvlink_only, src, dst, &partial, 0, &r->n_paths);
        }
    }
}

static void
index_fabric(TopoRouter *router)
{
    const TopoGraph *graph = router->graph;
    uint32_t n_nics = graph->nics->len * graph->n_nodes;
    uint32_t n_leaves = 0, n_spines = 0;
    for (uint32_t v = 0; v < topo_graph_n_vertices(graph); v++) {
        n_leaves += topo_graph_vertex(graph, v)->kind == TOPO_LEAF;
        n_spines += topo_graph_vertex(graph, v)->kind == TOPO_SPINE;
    }
    router->nic_uplink = g_new(uint32_t, MAX(n_nics, 1));
    router->leaf_up = g_new(uint32_t, MAX(n_leaves, 1));
    router->leaf_down = g_new(uint32_t, MAX(n_leaves, 1));
    router->spine_up = g_new(uint32_t, MAX(n_spines, 1));
    router->spine_down = g_new(uint32_t, MAX(n_spines, 1));
    memset(router->nic_uplink, 0xff, sizeof(uint32_t) * MAX(n_nics, 1));
    memset(router->leaf_up, 0xff, sizeof(uint32_t) * MAX(n_leaves, 1));
    memset(router->leaf_down, 0xff, sizeof(uint32_t) * MAX(n_leaves, 1));
    memset(router->spine_up, 0xff, sizeof(uint32_t) * MAX(n_spines, 1));
    memset(router->spine_down, 0xff, sizeof(uint32_t) * MAX(n_spines, 1));
    for (uint32_t l = topo_graph_node_links(graph) * graph->n_nodes; l < topo_graph_n_links(graph);
         l++) {
        const TopoLink *link = topo_graph_link(graph, l);
        const TopoVertex *a = topo_graph_vertex(graph, link->src);
        const TopoVertex *b = topo_graph_vertex(graph, link->dst);
        if (a->kind == TOPO_NIC && b->kind == TOPO_LEAF)
            router->nic_uplink[a->node * graph->nics->len + a->index] = l;
        else if (a->kind == TOPO_LEAF && b->kind == TOPO_SPINE)
            router->leaf_up[a->index] = l;
        else if (a->kind == TOPO_SPINE && b->kind == TOPO_LEAF)
            router->leaf_down[b->index] = l;
        else if (a->kind == TOPO_SPINE && b->kind == TOPO_CORE)
            router->spine_up[a->index] = l;
        else if (a->kind == TOPO_CORE && b->kind == TOPO_SPINE)
            router->spine_down[b->index] = l;
    }
}

TopoRouter *
topo_router_new(const TopoGraph *graph)
{
    TopoRouter *router = g_new0(TopoRouter, 1);
    router->graph = graph;
    uint32_t nv = topo_graph_node_vertices(graph);
    uint32_t nl = topo_graph_node_links(graph);
    router->endpoint_of = g_new(uint32_t, nv);
    for (uint32_t v = 0; v < nv; v++)
        router->endpoint_of[v] =
            is_endpoint(topo_graph_vertex(graph, v)->kind) ? router->n_endpoints++ : TOPO_NONE;
    router->local = g_new0(LocalRoute, (size_t)router->n_endpoints * router->n_endpoints);
    router->paths = g_array_new(FALSE, FALSE, sizeof(TopoPath));

    Adjacency adj;
    adjacency_init(&adj, graph, nv, nl);
    uint32_t *dist = g_new(uint32_t, nv);
    uint32_t *queue = g_new(uint32_t, nv);
    for (uint32_t v = 0; v < nv; v++)
        if (router->endpoint_of[v] != TOPO_NONE)
            route_from(router, &adj, v, nv, dist, queue);
    g_free(dist);
    g_free(queue);
    adjacency_clear(&adj);
    index_fabric(router);
    return router;
}

void
topo_router_free(TopoRouter *router)
{
    if (router == NULL)
        return;
    g_free(router->endpoint_of);
    g_free(router->local);
    g_array_unref(router->paths);
    g_free(router->nic_uplink);
    g_free(router->leaf_up);
    g_free(router->leaf_down);
    g_free(router->spine_up);
    g_free(router->spine_down);
    g_free(router);
}

static const LocalRoute *
local_route(const TopoRouter *router, uint32_t a, uint32_t b)
{
    uint32_t ea = router->endpoint_of[a], eb = router->endpoint_of[b];
    if (ea == TOPO_NONE || eb == TOPO_NONE)
        return NULL;
    const LocalRoute *r = &router->local[ea * router->n_endpoints + eb];
    return r->n_paths ? r : NULL;
}

/* Appends path p of node-local links, shifted to node, to out. */
static bool
append_local(const TopoRouter *router, TopoPath *out, const TopoPath *p, uint32_t node)
{
    if (out->n_hops + p->n_hops > TOPO_MAX_HOPS)
        return false;
    uint32_t base = node * topo_graph_node_links(router->graph);
    for (uint32_t h = 0; h < p->n_hops; h++)
        out->link[out->n_hops++] = p->link[h] + base;
    out->weight = MIN(out->weight, p->weight);
    return true;
}

static bool
append_link(const TopoRouter *router, TopoPath *out, uint32_t link)
{
    if (link == TOPO_NONE || out->n_hops >= TOPO_MAX_HOPS)
        return false;
    out->link[out->n_hops++] = link;
    out->weight = MIN(out->weight, topo_graph_link(router->graph, link)->n_links);
    return true;
}

/* The NICs serving node-local GPU g (at most TOPO_MAX_PATHS, into nics;
 * their count returned): g's share of the node's NICs, those of them
 * that reach the fabric; when none does (their NICs down), the next NIC
 * in order that does. */
static uint32_t
gpu_nics(const TopoRouter *router, uint32_t g, uint32_t *nics)
{
    const TopoGraph *graph = router->graph;
    uint32_t n_gpus = graph->gpus->len, n_nics = graph->nics->len;
    uint32_t first, count;
    if (n_nics >= n_gpus) {
        count = n_nics / n_gpus;
        first = g * count;
    } else {
        count = 1;
        first = g * n_nics / n_gpus;
    }
    uint32_t n = 0;
    for (uint32_t k = first; k < first + count && n < TOPO_MAX_PATHS; k++)
        if (router->nic_uplink[k] != TOPO_NONE)
            nics[n++] = k;
    for (uint32_t i = 1; n == 0 && i < n_nics; i++) {
        uint32_t k = (first + count - 1 + i) % n_nics;
        if (router->nic_uplink[k] != TOPO_NONE)
            nics[n++] = k;
    }
    return n;
}

uint32_t
topo_router_gpu_nic(const TopoRouter *router, uint32_t gpu)
{
    uint32_t nics[TOPO_MAX_PATHS];
    return gpu_nics(router, gpu, nics) > 0 ? nics[0] : TOPO_NONE;
}

static bool
fabric_leg(const TopoRouter *router, TopoPath *out, uint32_t nic_up, uint32_t nic_down_up)
{
    const TopoGraph *graph = router->graph;
    uint32_t leaf_a = topo_graph_link(graph, nic_up)->dst;
    uint32_t leaf_b = topo_graph_link(graph, nic_down_up)->dst;
    if (!append_link(router, out, nic_up))
        return false;
    if (leaf_a != leaf_b) {
        uint32_t ia = topo_graph_vertex(graph, leaf_a)->index;
        uint32_t ib = topo_graph_vertex(graph, leaf_b)->index;
        if (!append_link(router, out, router->leaf_up[ia]))
            return false;
        /* Three tiers: leaves of two pods meet over the super-spine. */
        uint32_t spine_a = topo_graph_link(graph, router->leaf_up[ia])->dst;
        uint32_t spine_b = topo_graph_link(graph, router->leaf_down[ib])->src;
        if (spine_a != spine_b &&
            (!append_link(router, out,
                          router->spine_up[topo_graph_vertex(graph, spine_a)->index]) ||
             !append_link(router, out,
                          router->spine_down[topo_graph_vertex(graph, spine_b)->index])))
            return false;
        if (!append_link(router, out, router->leaf_down[ib]))
            return false;
    }
    return append_link(router, out, nic_down_up ^ 1);
}

/* The next path of route, empty, its weight the narrowest bundle's as
 * links join it. */
static TopoPath *
path_begin(TopoRoute *route)
{
    TopoPath *out = &route->path[route->n_paths];
    out->n_hops = 0;
    out->weight = UINT32_MAX;
    return out;
}

/* Closes the path path_begin opened with weight w: the NICs of a GPU
 * share its traffic equally, the NVLink paths of a PXN hop as their links
 * say. */
static void
path_end(TopoRoute *route, uint32_t w)
{
    route->path[route->n_paths].weight = w;
    route->n_paths++;
    route->total_weight += w;
}

static bool
route_between_nodes(const TopoRouter *router, uint32_t src, uint32_t dst, TopoRoute *route)
{
    const TopoGraph *graph = router->graph;
    const TopoVertex *a = topo_graph_vertex(graph, src), *b = topo_graph_vertex(graph, dst);
    if (a->kind != TOPO_GPU || b->kind != TOPO_GPU || graph->nics->len == 0)
        return false;
    uint32_t nv = topo_graph_node_vertices(graph), n_nics = graph->nics->len;
    uint32_t la = src - a->node * nv, lb = dst - b->node * nv;
    uint32_t from[TOPO_MAX_PATHS], to[TOPO_MAX_PATHS];
    uint32_t count = MIN(gpu_nics(router, a->index, from), gpu_nics(router, b->index, to));
    /* Rails apart: a's bytes cross NVLink to the GPU of a's node on b's
     * rail (b's index), over each of their NVLink paths, and that GPU's
     * NIC sends them (NCCL's PXN). */
    uint32_t via = graph->rail_only && count > 0 && from[0] != to[0]
                       ? g_array_index(graph->gpus, uint32_t, b->index)
                       : la;
    const LocalRoute *cross = via != la ? local_route(router, la, via) : NULL;
    if (via != la && cross == NULL)
        return false;
    uint32_t n_cross = cross != NULL ? cross->n_paths : 1;
    for (uint32_t k = 0; k < count; k++) {
        if (via != la)
            from[k] = to[k];
        uint32_t nic_a = g_array_index(graph->nics, uint32_t, from[k]);
        uint32_t nic_b = g_array_index(graph->nics, uint32_t, to[k]);
        const LocalRoute *up = local_route(router, via, nic_a);
        const LocalRoute *down = local_route(router, nic_b, lb);
        if (up == NULL || down == NULL)
            return false;
        for (uint32_t c = 0; c < n_cross && route->n_paths < TOPO_MAX_PATHS; c++) {
            const TopoPath *over =
                cross != NULL ? &g_array_index(router->paths, TopoPath, cross->first + c) : NULL;
            TopoPath *out = path_begin(route);
            if ((over != NULL && !append_local(router, out, over, a->node)) ||
                !append_local(router, out, &g_array_index(router->paths, TopoPath, up->first),
                              a->node) ||
                !fabric_leg(router, out, router->nic_uplink[a->node * n_nics + from[k]],
                            router->nic_uplink[b->node * n_nics + to[k]]) ||
                !append_local(router, out, &g_array_index(router->paths, TopoPath, down->first),
                              b->node))
                return false;
            path_end(route, over != NULL ? over->weight : 1);
        }
    }
    return route->n_paths > 0;
}

static bool
is_fabric_switch(TopoVertexKind kind)
{
    return kind == TOPO_LEAF || kind == TOPO_SPINE;
}

/* From GPU src to fabric switch dst: through each NIC of the GPU, up to
 * its leaf, and over the spine unless dst is that leaf. */
static bool
route_gpu_to_fabric(const TopoRouter *router, uint32_t src, uint32_t dst, TopoRoute *route)
{
    const TopoGraph *graph = router->graph;
    const TopoVertex *a = topo_graph_vertex(graph, src), *b = topo_graph_vertex(graph, dst);
    if (a->kind != TOPO_GPU || graph->nics->len == 0)
        return false;
    uint32_t nv = topo_graph_node_vertices(graph), n_nics = graph->nics->len;
    uint32_t nics[TOPO_MAX_PATHS];
    uint32_t count = gpu_nics(router, a->index, nics);
    for (uint32_t k = 0; k < count && route->n_paths < TOPO_MAX_PATHS; k++) {
        uint32_t nic = g_array_index(graph->nics, uint32_t, nics[k]);
        const LocalRoute *up = local_route(router, src - a->node * nv, nic);
        uint32_t uplink = router->nic_uplink[a->node * n_nics + nics[k]];
        if (up == NULL || uplink == TOPO_NONE)
            return false;
        TopoPath *out = path_begin(route);
        if (!append_local(router, out, &g_array_index(router->paths, TopoPath, up->first),
                          a->node) ||
            !append_link(router, out, uplink))
            return false;
        uint32_t leaf = topo_graph_link(graph, uplink)->dst;
        if (leaf != dst) {
            uint32_t li = topo_graph_vertex(graph, leaf)->index;
            if (!append_link(router, out, router->leaf_up[li]) ||
                (b->kind == TOPO_LEAF && !append_link(router, out, router->leaf_down[b->index])))
                return false;
        }
        path_end(route, 1);
    }
    return route->n_paths > 0;
}

/* Routes with a fabric switch at one end (or both: a leaf and the spine). */
static bool
route_fabric(const TopoRouter *router, uint32_t src, uint32_t dst, TopoRoute *route)
{
    const TopoGraph *graph = router->graph;
    const TopoVertex *a = topo_graph_vertex(graph, src), *b = topo_graph_vertex(graph, dst);
    if (is_fabric_switch(a->kind) && is_fabric_switch(b->kind)) {
        uint32_t link = a->kind == TOPO_LEAF && b->kind == TOPO_SPINE ? router->leaf_up[a->index]
                        : a->kind == TOPO_SPINE && b->kind == TOPO_LEAF
                            ? router->leaf_down[b->index]
                            : TOPO_NONE;
        TopoPath *out = path_begin(route);
        if (!append_link(router, out, link))
            return false;
        route->n_paths = 1;
        route->total_weight = out->weight;
        return true;
    }
    if (is_fabric_switch(b->kind))
        return route_gpu_to_fabric(router, src, dst, route);
    if (!route_gpu_to_fabric(router, dst, src, route))
        return false;
    /* Back: the same links, reversed, in the other direction. */
    for (uint32_t i = 0; i < route->n_paths; i++) {
        TopoPath *p = &route->path[i];
        for (uint32_t h = 0; h < p->n_hops / 2; h++) {
            uint32_t t = p->link[h];
            p->link[h] = p->link[p->n_hops - 1 - h];
            p->link[p->n_hops - 1 - h] = t;
        }
        for (uint32_t h = 0; h < p->n_hops; h++)
            p->link[h] ^= 1;
    }
    return true;
}

bool
topo_router_route(const TopoRouter *router, uint32_t src, uint32_t dst, TopoRoute *route)
{
    const TopoGraph *graph = router->graph;
    route->n_paths = 0;
    route->total_weight = 0;
    g_return_val_if_fail(src < topo_graph_n_vertices(graph) && dst < topo_graph_n_vertices(graph),
                         false);
    if (src == dst)
        return false;
    const TopoVertex *a = topo_graph_vertex(graph, src), *b = topo_graph_vertex(graph, dst);
    if (is_fabric_switch(a->kind) || is_fabric_switch(b->kind))
        return route_fabric(router, src, dst, route);
    if (a->node == TOPO_NONE || b->node == TOPO_NONE)
        return false;
    if (a->node != b->node)
        return route_between_nodes(router, src, dst, route);
    uint32_t nv = topo_graph_node_vertices(graph);
    const LocalRoute *r = local_route(router, src - a->node * nv, dst - a->node * nv);
    if (r == NULL)
        return false;
    for (uint32_t i = 0; i < r->n_paths; i++) {
        TopoPath *out = &route->path[i];
        out->n_hops = 0;
        out->weight = UINT32_MAX;
        append_local(router, out, &g_array_index(router->paths, TopoPath, r->first + i), a->node);
        route->total_weight += out->weight;
    }
    route->n_paths = r->n_paths;
    return true;
}

uint64_t
topo_path_latency_ps(const TopoGraph *graph, const TopoPath *path, uint64_t payload_bytes)
{
    uint64_t t = 0;
    for (uint32_t h = 0; h < path->n_hops; h++) {
        const TopoLink *link = topo_graph_link(graph, path->link[h]);
        t += sim_serialization_ps(payload_bytes + link->spec->header_bytes, link->bytes_per_s);
        t += link->latency_ps;
        if (h + 1 < path->n_hops)
            t += topo_graph_vertex(graph, link->dst)->latency_ps;
    }
    return t;
}

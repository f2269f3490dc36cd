/* SPDX-License-Identifier: Apache-2.0 */
/* The collective session (see coll-session.h). Prepared shapes live in
 * arrays: their flows' endpoints are stored as a rank of the call, a
 * vertex of one of the call's nodes (by its place in the node), or a
 * fabric vertex, so that starting a shape on other GPUs only computes
 * vertex numbers. */
#include "coll/coll-session.h"

#include "coll/coll-run.h"

#define NONE UINT32_MAX

/* Where a flow starts or ends: the GPU of the call's rank `rank`; else
 * vertex `vertex` of node ordinal `ordinal` (the call's nodes in order of
 * their ranks, the vertex by its place in the node); else (ordinal NONE)
 * fabric vertex `vertex`. */
typedef struct Endpoint {
    uint32_t rank, ordinal, vertex;
} Endpoint;

typedef struct SessionFlow {
    Endpoint src, dst;
    uint64_t bytes, max_bytes_per_s;
    uint32_t copies;
} SessionFlow;

typedef struct Prepared {
    uint64_t alone_ps, flows_ps;
    uint32_t n_channels;
    uint32_t flow0, n_flows;       /* into flows */
    uint32_t ordinal0, n_ordinals; /* into ordinal_rank */
    bool transfer;                 /* its ranks are a source and a destination */
} Prepared;

/* Analytic: link `link` asked for rate payload bytes/s. */
typedef struct Ask {
    uint32_t link;
    double rate;
} Ask;

/* A shape where its calls run: their GPUs (the caller's, or a transfer's
 * two, copied), and the shifts of the copies replicas make with each.
 * Analytic: what a call and its copies ask of each link, a link once: the
 * links of its own traffic first (n_own: the ones its stretch reads), then
 * those of its copies alone that some place's own traffic crosses (the
 * only ones another's stretch reads). */
typedef struct Place {
    uint32_t shape;
    const uint32_t *gpus;
    uint32_t pair[2];
    uint32_t shift0, n_shifts;    /* into shifts */
    uint32_t ask0, n_asks, n_own; /* into asks */
} Place;

/* A started call. */
typedef struct Slot {
    uint64_t t0;
    uint32_t place, flows_left;
} Slot;

/* A shape as the shared shapes keep it: its flows and node ordinals'
 * first ranks its own (p's flow0 and ordinal0 unused). */
typedef struct SharedShape {
    Prepared p;
    SessionFlow *flows;
    uint32_t *ordinal_rank;
} SharedShape;

struct CollShapes {
    GMutex lock;
    GHashTable *by_key; /* a session's tier and shape key -> SharedShape */
};

struct CollSession {
    const HwSystem *system;
    const TopoGraph *graph;
    const TopoRouter *router;
    NetFidelity fidelity;
    bool analytic;
    uint64_t launch_ps;
    uint32_t per_node;
    CollShapes *shared;   /* or NULL */
    GHashTable *by_key;   /* shape key -> index + 1 */
    GArray *prepared;     /* Prepared */
    GArray *flows;        /* SessionFlow */
    GArray *ordinal_rank; /* uint32_t: per shape, the first rank of each of its nodes */
    GArray *places;       /* Place */
    GArray *shifts;       /* uint32_t */
    GArray *asks;         /* Ask */
    /* Run. */
    SimEngine *engine;
    NetModel *net;
    SimHandlerId h_flow, h_load, on_end;
    Slot *slots;
    uint32_t n_tags;
    uint64_t n_flows, n_load_flows;
    /* Analytic: the rate (payload bytes/s) the calls and copies in flight
     * ask of each link, and what each link can carry. */
    double *demand, *capacity;
    /* Analytic, placing: a rate per link being summed, the links it
     * touched (a list, and a mark each). */
    double *sum;
    uint32_t *touched;
    uint32_t n_touched;
    guint8 *marked;
};

#define PREPARED(s, i) (&g_array_index((s)->prepared, Prepared, i))
#define PLACE(s, i) (&g_array_index((s)->places, Place, i))

static void
shared_shape_free(gpointer data)
{
    SharedShape *x = data;
    g_free(x->flows);
    g_free(x->ordinal_rank);
    g_free(x);
}

CollShapes *
coll_shapes_new(void)
{
    CollShapes *shapes = g_new0(CollShapes, 1);
    g_mutex_init(&shapes->lock);
    shapes->by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, shared_shape_free);
    return shapes;
}

void
coll_shapes_free(CollShapes *shapes)
{
    if (shapes == NULL)
        return;
    g_hash_table_unref(shapes->by_key);
    g_mutex_clear(&shapes->lock);
    g_free(shapes);
}

guint
coll_shapes_size(CollShapes *shapes)
{
    g_mutex_lock(&shapes->lock);
    guint n = g_hash_table_size(shapes->by_key);
    g_mutex_unlock(&shapes->lock);
    return n;
}

CollSession *
coll_session_new(const HwSystem *system, const TopoGraph *graph, const TopoRouter *router,
                 NetFidelity fidelity, bool analytic, uint64_t launch_ps, CollShapes *shared)
{
    CollSession *s = g_new0(CollSession, 1);
    s->shared = shared;
    s->system = system;
    s->graph = graph;
    s->router = router;
    s->fidelity = fidelity;
    s->analytic = analytic;
    s->launch_ps = launch_ps;
    s->per_node = graph->gpus->len;
    s->by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    s->prepared = g_array_new(FALSE, FALSE, sizeof(Prepared));
    s->flows = g_array_new(FALSE, FALSE, sizeof(SessionFlow));
    s->ordinal_rank = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->places = g_array_new(FALSE, FALSE, sizeof(Place));
    s->shifts = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->asks = g_array_new(FALSE, FALSE, sizeof(Ask));
    return s;
}

void
coll_session_free(CollSession *s)
{
    if (s == NULL)
        return;
    g_hash_table_unref(s->by_key);
    g_array_unref(s->prepared);
    g_array_unref(s->flows);
    g_array_unref(s->ordinal_rank);
    g_array_unref(s->places);
    g_array_unref(s->shifts);
    g_array_unref(s->asks);
    g_free(s->slots);
    g_free(s->demand);
    g_free(s->capacity);
    g_free(s->sum);
    g_free(s->touched);
    g_free(s->marked);
    g_free(s);
}

/* ---- Vertices. ---- */

static uint32_t
gpu_node(const CollSession *s, uint32_t gpu)
{
    return gpu / s->per_node;
}

/* The vertex of e for a shape started on gpus[i] + shift. */
static uint32_t
endpoint_vertex(const CollSession *s, const Prepared *p, const Endpoint *e, const uint32_t *gpus,
                uint32_t shift)
{
    if (e->rank != NONE)
        return topo_graph_gpu_vertex(s->graph, gpus[e->rank] + shift);
    if (e->ordinal == NONE)
        return e->vertex;
    uint32_t first = g_array_index(s->ordinal_rank, uint32_t, p->ordinal0 + e->ordinal);
    return gpu_node(s, gpus[first] + shift) * topo_graph_node_vertices(s->graph) + e->vertex;
}

/* The route of p's flow f on gpus[i] + shift; false when there is none. */
static bool
route_flow(const CollSession *s, const Prepared *p, const SessionFlow *f, const uint32_t *gpus,
           uint32_t shift, TopoRoute *route)
{
    return topo_router_route(s->router, endpoint_vertex(s, p, &f->src, gpus, shift),
                             endpoint_vertex(s, p, &f->dst, gpus, shift), route);
}

/* Vertex v of a shape laid out on home, whose rank i's GPU is home[i] and
 * whose node ordinal j is node j, as an endpoint. */
static Endpoint
endpoint_of(const CollSession *s, GHashTable *rank_of_vertex, uint32_t v)
{
    gpointer rank = g_hash_table_lookup(rank_of_vertex, GUINT_TO_POINTER(v + 1));
    if (rank != NULL)
        return (Endpoint){GPOINTER_TO_UINT(rank) - 1, NONE, NONE};
    uint32_t node = topo_graph_vertex(s->graph, v)->node;
    if (node == TOPO_NONE)
        return (Endpoint){NONE, NONE, v};
    uint32_t per = topo_graph_node_vertices(s->graph);
    return (Endpoint){NONE, node, v - node * per};
}

/* ---- Preparing. ---- */

/* Appends v in decimal and then c (a shape's key has a number for each of
 * its GPUs: printf's cost was a sweep point's largest part). */
static void
append_number(GString *key, uint64_t v, char c)
{
    char digits[24];
    size_t n = 0;
    do {
        digits[sizeof digits - ++n] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    g_string_append_len(key, &digits[sizeof digits - n], (gssize)n);
    g_string_append_c(key, c);
}

/* A shape's key: a collective's op or a transfer, its bytes, and where its
 * GPUs sit: nodes by order of appearance (a new node is a new ordinal),
 * GPUs by their place in the node. */
static char *
shape_key(const CollSession *s, bool transfer, CollOp op, uint64_t n_bytes, const uint32_t *gpus,
          uint32_t n)
{
    GString *key = g_string_sized_new(32 + 8 * (gsize)n);
    append_number(key, transfer, '/');
    append_number(key, (uint64_t)op, '/');
    append_number(key, n_bytes, ':');
    uint32_t ordinal = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0 && gpu_node(s, gpus[i]) != gpu_node(s, gpus[i - 1]))
            ordinal++;
        append_number(key, ordinal, '.');
        append_number(key, gpus[i] % s->per_node, ',');
    }
    return g_string_free(key, FALSE);
}

static void
on_alone_done(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)event;
    uint64_t *last = ctx;
    *last = MAX(*last, sim_engine_now(engine));
}

static void issue(CollSession *s, NetModel *net, const Prepared *p, const uint32_t *gpus,
                  uint32_t shift, SimHandlerId h, uint32_t tag);

/* How long p's flows, on gpus, take alone on a fresh network. */
static uint64_t
flows_alone_ps(CollSession *s, const Prepared *p, const uint32_t *gpus)
{
    SimEngine *engine = sim_engine_new();
    uint64_t last = 0;
    SimHandlerId h = sim_engine_register(engine, "coll-session-alone", on_alone_done, &last);
    NetModel *net = net_new(s->fidelity, engine, s->graph, s->router, NULL);
    issue(s, net, p, gpus, 0, h, 0);
    sim_engine_run(engine, SIM_TIME_NEVER);
    net_free(net);
    sim_engine_free(engine);
    return last;
}

/* p's node ordinals on gpus[0 .. n): the first rank of each new node. */
static void
add_ordinals(CollSession *s, Prepared *p, const uint32_t *gpus, uint32_t n)
{
    p->ordinal0 = s->ordinal_rank->len;
    for (uint32_t i = 0; i < n; i++)
        if (i == 0 || gpu_node(s, gpus[i]) != gpu_node(s, gpus[i - 1])) {
            g_array_append_val(s->ordinal_rank, i);
            p->n_ordinals++;
        }
}

/* Stores traffic (CollFlow, between vertices of a layout on home) as p's
 * flows; the first rank of each node ordinal. */
static void
store_flows(CollSession *s, Prepared *p, const GArray *traffic, const uint32_t *home, uint32_t n)
{
    g_autoptr(GHashTable) rank_of_vertex = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (uint32_t i = 0; i < n; i++)
        g_hash_table_insert(rank_of_vertex,
                            GUINT_TO_POINTER(topo_graph_gpu_vertex(s->graph, home[i]) + 1),
                            GUINT_TO_POINTER(i + 1));
    add_ordinals(s, p, home, n);
    p->flow0 = s->flows->len;
    for (guint i = 0; i < traffic->len; i++) {
        const CollFlow *f = &g_array_index(traffic, CollFlow, i);
        SessionFlow sf = {endpoint_of(s, rank_of_vertex, f->src),
                          endpoint_of(s, rank_of_vertex, f->dst), f->bytes, f->max_bytes_per_s,
                          MAX(f->copies, 1)};
        g_array_append_val(s->flows, sf);
    }
    p->n_flows = s->flows->len - p->flow0;
}

static uint32_t
add_prepared(CollSession *s, char *key, const Prepared *p)
{
    g_array_append_val(s->prepared, *p);
    g_hash_table_insert(s->by_key, key, GUINT_TO_POINTER(s->prepared->len));
    return s->prepared->len - 1;
}

/* key in the shared shapes: the session's tier (what a shape's times
 * depend on beyond its key), then key. */
static char *
shared_key(const CollSession *s, const char *key)
{
    return g_strdup_printf("%d/%d/%" G_GUINT64_FORMAT "/%s", (int)s->fidelity, (int)s->analytic,
                           s->launch_ps, key);
}

/* Whether another session prepared key (taken) in the shared shapes:
 * then it is this session's too, as *shape. */
static bool
take_shared(CollSession *s, char *key, uint32_t *shape)
{
    if (s->shared == NULL)
        return false;
    g_autofree char *k = shared_key(s, key);
    g_mutex_lock(&s->shared->lock);
    const SharedShape *x = g_hash_table_lookup(s->shared->by_key, k);
    if (x != NULL) {
        Prepared p = x->p;
        p.flow0 = s->flows->len;
        g_array_append_vals(s->flows, x->flows, p.n_flows);
        p.ordinal0 = s->ordinal_rank->len;
        g_array_append_vals(s->ordinal_rank, x->ordinal_rank, p.n_ordinals);
        *shape = add_prepared(s, key, &p);
    }
    g_mutex_unlock(&s->shared->lock);
    return x != NULL;
}

/* add_prepared of a shape this session simulated, given to the shared
 * shapes too (unless another session gave it meanwhile). */
static uint32_t
add_simulated(CollSession *s, char *key, const Prepared *p)
{
    if (s->shared != NULL) {
        char *k = shared_key(s, key);
        SharedShape *x = g_new(SharedShape, 1);
        x->p = *p;
        x->flows = g_memdup2(&g_array_index(s->flows, SessionFlow, p->flow0),
                             p->n_flows * sizeof(SessionFlow));
        x->ordinal_rank = g_memdup2(&g_array_index(s->ordinal_rank, uint32_t, p->ordinal0),
                                    p->n_ordinals * sizeof(uint32_t));
        g_mutex_lock(&s->shared->lock);
        if (g_hash_table_contains(s->shared->by_key, k)) {
            g_free(k);
            shared_shape_free(x);
        } else {
            g_hash_table_insert(s->shared->by_key, k, x);
        }
        g_mutex_unlock(&s->shared->lock);
    }
    return add_prepared(s, key, p);
}

uint32_t
coll_session_prepare(CollSession *s, CollOp op, uint64_t n_bytes, const uint32_t *gpus, uint32_t n,
                     GError **error)
{
    char *key = shape_key(s, false, op, n_bytes, gpus, n);
    gpointer found = g_hash_table_lookup(s->by_key, key);
    if (found != NULL) {
        g_free(key);
        return GPOINTER_TO_UINT(found) - 1;
    }
    Prepared p = {0};
    uint32_t shape;
    if (n < 2)
        return add_prepared(s, key, &p);
    if (take_shared(s, key, &shape))
        return shape;
    /* The same GPUs of the first nodes (a symmetric system's others are
     * alike): the collectives layer lays the schedule out there. */
    g_autofree uint32_t *home = g_new(uint32_t, n);
    for (uint32_t i = 0, node = 0; i < n; i++) {
        if (i > 0 && gpu_node(s, gpus[i]) != gpu_node(s, gpus[i - 1]))
            node++;
        home[i] = node * s->per_node + gpus[i] % s->per_node;
    }
    g_autoptr(GError) err = NULL;
    g_autoptr(CollComm) comm = coll_comm_new_gpus(s->system, s->graph, s->router, home, n, &err);
    CollCall call = {.op = op, .n_bytes = n_bytes, .elem_bytes = 2};
    CollResult res;
    g_autoptr(GArray) traffic = g_array_new(FALSE, FALSE, sizeof(CollFlow));
    if (comm == NULL || !coll_run_traffic(comm, &call, s->fidelity, &res, traffic, &err)) {
        g_set_error(error, err->domain, err->code,
                    "%s of %" G_GUINT64_FORMAT " bytes on %u GPUs from GPU %u: %s",
                    coll_op_name(op), n_bytes, n, gpus[0], err->message);
        g_free(key);
        return COLL_SESSION_NONE;
    }
    p.alone_ps = res.time_ps;
    p.n_channels = res.n_channels;
    store_flows(s, &p, traffic, home, n);
    if (!s->analytic)
        p.flows_ps = flows_alone_ps(s, &p, home);
    return add_simulated(s, key, &p);
}

uint32_t
coll_session_prepare_transfer(CollSession *s, uint32_t src, uint32_t dst, uint64_t n_bytes)
{
    uint32_t gpus[2] = {src, dst};
    char *key = shape_key(s, true, 0, n_bytes, gpus, 2);
    gpointer found = g_hash_table_lookup(s->by_key, key);
    if (found != NULL) {
        g_free(key);
        return GPOINTER_TO_UINT(found) - 1;
    }
    uint32_t shape;
    if (take_shared(s, key, &shape))
        return shape;
    Prepared p = {.flow0 = s->flows->len, .n_flows = 1, .transfer = true};
    SessionFlow f = {{0, NONE, NONE}, {1, NONE, NONE}, n_bytes, 0, 1};
    g_array_append_val(s->flows, f);
    add_ordinals(s, &p, gpus, 2);
    p.flows_ps = flows_alone_ps(s, &p, gpus);
    p.alone_ps = p.flows_ps + s->launch_ps;
    return add_simulated(s, key, &p);
}

uint32_t
coll_session_n_shapes(const CollSession *s)
{
    return s->prepared->len;
}

uint64_t
coll_session_alone_ps(const CollSession *s, uint32_t shape)
{
    return PREPARED(s, shape)->alone_ps;
}

uint32_t
coll_session_channels(const CollSession *s, uint32_t shape)
{
    return PREPARED(s, shape)->n_channels;
}

uint64_t
coll_session_flows_ps(const CollSession *s, uint32_t shape)
{
    return PREPARED(s, shape)->flows_ps;
}

uint32_t
coll_session_n_flows(const CollSession *s, uint32_t shape)
{
    return PREPARED(s, shape)->n_flows;
}

/* ---- Placing. ---- */

/* Adds to the sum per link the rate flow f of p on gpus[i] + shift asks
 * of each link of its route (its bytes over p's time alone, by the paths'
 * weights). */
static void
sum_route(CollSession *s, const Prepared *p, const SessionFlow *f, const uint32_t *gpus,
          uint32_t shift, double per_byte)
{
    TopoRoute route;
    if (!route_flow(s, p, f, gpus, shift, &route))
        return;
    double rate = (double)f->bytes * f->copies * per_byte / MAX(route.total_weight, 1);
    for (uint32_t i = 0; i < route.n_paths; i++)
        for (uint32_t h = 0; h < route.path[i].n_hops; h++) {
            uint32_t l = route.path[i].link[h];
            if (!s->marked[l]) {
                s->marked[l] = 1;
                s->touched[s->n_touched++] = l;
            }
            s->sum[l] += rate * route.path[i].weight;
        }
}

/* Adds to the sum what p's traffic on gpus[i] + shift asks of each link. */
static void
sum_shape(CollSession *s, const Prepared *p, const uint32_t *gpus, uint32_t shift)
{
    if (p->alone_ps == 0)
        return;
    double per_byte = (double)SIM_PS_PER_S / (double)p->alone_ps;
    for (uint32_t i = 0; i < p->n_flows; i++)
        sum_route(s, p, &g_array_index(s->flows, SessionFlow, p->flow0 + i), gpus, shift, per_byte);
}

/* Clears the sum. */
static void
clear_sum(CollSession *s)
{
    for (uint32_t k = 0; k < s->n_touched; k++) {
        s->sum[s->touched[k]] = 0;
        s->marked[s->touched[k]] = 0;
    }
    s->n_touched = 0;
}

/* The sum as asks, cleared; the asks' first index, and how many. */
static uint32_t
take_sum(CollSession *s, uint32_t *n)
{
    uint32_t first = s->asks->len;
    for (uint32_t k = 0; k < s->n_touched; k++) {
        Ask ask = {s->touched[k], s->sum[s->touched[k]]};
        g_array_append_val(s->asks, ask);
    }
    clear_sum(s);
    *n = s->asks->len - first;
    return first;
}

static const uint32_t *
place_gpus(const CollSession *s, const Place *pl)
{
    return PREPARED(s, pl->shape)->transfer ? pl->pair : pl->gpus;
}

uint32_t
coll_session_place(CollSession *s, uint32_t shape, const uint32_t *gpus, const uint32_t *shifts,
                   uint32_t n_shifts)
{
    g_return_val_if_fail(shape < s->prepared->len && s->engine == NULL, COLL_SESSION_NONE);
    Place pl = {.shape = shape, .gpus = gpus, .shift0 = s->shifts->len, .n_shifts = n_shifts};
    if (PREPARED(s, shape)->transfer) {
        pl.pair[0] = gpus[0];
        pl.pair[1] = gpus[1];
    }
    g_array_append_vals(s->shifts, shifts, n_shifts);
    if (s->analytic) {
        if (s->sum == NULL) {
            uint32_t n_links = MAX(topo_graph_n_links(s->graph), 1);
            s->sum = g_new0(double, n_links);
            s->touched = g_new(uint32_t, n_links);
            s->marked = g_new0(guint8, n_links);
        }
        sum_shape(s, PREPARED(s, shape), place_gpus(s, &pl), 0);
        pl.ask0 = take_sum(s, &pl.n_own);
        pl.n_asks = pl.n_own;
    }
    g_array_append_val(s->places, pl);
    return s->places->len - 1;
}

/* Analytic: each place's copies' asks joined to its own: added to those
 * on its own links, and apart on the other links some place's own
 * traffic crosses. */
static void
place_copies(CollSession *s)
{
    uint32_t n_links = MAX(topo_graph_n_links(s->graph), 1);
    g_autofree guint8 *own = g_new0(guint8, n_links);
    for (guint k = 0; k < s->asks->len; k++)
        own[g_array_index(s->asks, Ask, k).link] = 1;
    GArray *joined = g_array_sized_new(FALSE, FALSE, sizeof(Ask), s->asks->len);
    for (guint k = 0; k < s->places->len; k++) {
        Place *pl = PLACE(s, k);
        for (uint32_t i = 0; i < pl->n_shifts; i++)
            sum_shape(s, PREPARED(s, pl->shape), place_gpus(s, pl),
                      g_array_index(s->shifts, uint32_t, pl->shift0 + i));
        uint32_t first = joined->len;
        for (uint32_t j = 0; j < pl->n_own; j++) {
            Ask a = g_array_index(s->asks, Ask, pl->ask0 + j);
            a.rate += s->sum[a.link];
            s->sum[a.link] = 0;
            g_array_append_val(joined, a);
        }
        for (uint32_t j = 0; j < s->n_touched; j++) {
            uint32_t l = s->touched[j];
            if (own[l] && s->sum[l] != 0) {
                Ask a = {l, s->sum[l]};
                g_array_append_val(joined, a);
            }
        }
        clear_sum(s);
        pl->ask0 = first;
        pl->n_asks = joined->len - first;
    }
    g_array_unref(s->asks);
    s->asks = joined;
}

/* ---- Running. ---- */

/* Sends p's flows on gpus[i] + shift on net, each landing as an event of
 * h for tag; the packet engine takes a flow's copies one by one. */
static void
issue(CollSession *s, NetModel *net, const Prepared *p, const uint32_t *gpus, uint32_t shift,
      SimHandlerId h, uint32_t tag)
{
    bool apart = s->fidelity == NET_FIDELITY_PACKET;
    for (uint32_t i = 0; i < p->n_flows; i++) {
        const SessionFlow *f = &g_array_index(s->flows, SessionFlow, p->flow0 + i);
        NetSend send = {
            .src = endpoint_vertex(s, p, &f->src, gpus, shift),
            .dst = endpoint_vertex(s, p, &f->dst, gpus, shift),
            .n_bytes = f->bytes,
            .channel = tag,
            .path = NET_PATH_SPRAY,
            .issuer = NET_ISSUER_SM,
            .max_bytes_per_s = f->max_bytes_per_s,
            .copies = apart ? 1 : f->copies,
            .on_done = h,
            .target = tag,
        };
        for (uint32_t k = 0; k < (apart ? f->copies : 1); k++)
            net_send(net, &send);
    }
}

/* The sends issue makes for p. */
static uint32_t
n_sends(const CollSession *s, const Prepared *p)
{
    if (s->fidelity != NET_FIDELITY_PACKET)
        return p->n_flows;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_flows; i++)
        n += g_array_index(s->flows, SessionFlow, p->flow0 + i).copies;
    return n;
}

static void
end_at(CollSession *s, uint64_t time_ps, uint32_t tag)
{
    SimEvent *ev = sim_engine_schedule(s->engine, time_ps, 0, s->on_end);
    ev->target = tag;
}

/* A started call's flow landed; with its last, the call ends as much later
 * than alone as its flows did. */
static void
on_flow(SimEngine *engine, const SimEvent *event, void *ctx)
{
    CollSession *s = ctx;
    Slot *slot = &s->slots[event->target];
    if (--slot->flows_left > 0)
        return;
    const Prepared *p = PREPARED(s, PLACE(s, slot->place)->shape);
    uint64_t now = sim_engine_now(engine);
    uint64_t took = now - slot->t0;
    uint64_t late = took > p->flows_ps ? took - p->flows_ps : 0;
    end_at(s, MAX(now, slot->t0 + p->alone_ps + late), event->target);
}

static void
on_load(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)engine;
    (void)event;
    (void)ctx;
}

void
coll_session_attach(CollSession *s, SimEngine *engine, NetModel *net, SimHandlerId on_end,
                    uint32_t n_tags)
{
    g_return_if_fail(s->engine == NULL);
    s->engine = engine;
    s->net = net;
    s->on_end = on_end;
    s->h_flow = sim_engine_register(engine, "coll-session-flow", on_flow, s);
    s->h_load = sim_engine_register(engine, "coll-session-load", on_load, s);
    s->slots = g_new0(Slot, MAX(n_tags, 1));
    s->n_tags = n_tags;
    if (!s->analytic)
        return;
    place_copies(s);
    uint32_t n_links = topo_graph_n_links(s->graph);
    s->demand = g_new0(double, MAX(n_links, 1));
    s->capacity = g_new0(double, MAX(n_links, 1));
    /* A link carries payload at its rate less its packets' headers. */
    for (uint32_t l = 0; l < n_links; l++) {
        const TopoLink *link = topo_graph_link(s->graph, l);
        double payload = (double)net_payload_bytes(link->spec, NET_ISSUER_SM);
        double header = (double)net_header_bytes(link->spec, NET_ISSUER_SM);
        s->capacity[l] = (double)link->bytes_per_s * payload / (payload + header);
    }
}

/* Analytic: adds place pl's asks to the demand; the most any link of its
 * own is then asked beyond what it carries (1: none is). */
static double
ask(CollSession *s, const Place *pl)
{
    const Ask *asks = &g_array_index(s->asks, Ask, pl->ask0);
    double stretch = 1.0;
    for (uint32_t k = 0; k < pl->n_own; k++) {
        uint32_t l = asks[k].link;
        s->demand[l] += asks[k].rate;
        if (s->capacity[l] > 0)
            stretch = MAX(stretch, s->demand[l] / s->capacity[l]);
    }
    for (uint32_t k = pl->n_own; k < pl->n_asks; k++)
        s->demand[asks[k].link] += asks[k].rate;
    return stretch;
}

/* Analytic: takes place pl's asks back from the demand. */
static void
unask(CollSession *s, const Place *pl)
{
    const Ask *asks = &g_array_index(s->asks, Ask, pl->ask0);
    for (uint32_t k = 0; k < pl->n_asks; k++)
        s->demand[asks[k].link] -= asks[k].rate;
}

void
coll_session_start(CollSession *s, uint32_t place, uint32_t tag)
{
    g_return_if_fail(tag < s->n_tags && place < s->places->len);
    const Place *pl = PLACE(s, place);
    const Prepared *p = PREPARED(s, pl->shape);
    const uint32_t *gpus = place_gpus(s, pl);
    uint64_t now = sim_engine_now(s->engine);
    Slot *slot = &s->slots[tag];
    *slot = (Slot){.t0 = now, .place = place};
    if (s->analytic) {
        /* Slowed by the most any of its links is asked beyond what it
         * carries by the calls in flight, this one and its copies. */
        double stretch = ask(s, pl);
        uint64_t late = (uint64_t)((stretch - 1.0) * (double)p->alone_ps);
        end_at(s, now + p->alone_ps + late, tag);
        return;
    }
    for (uint32_t i = 0; i < pl->n_shifts; i++) {
        s->n_load_flows += n_sends(s, p);
        issue(s, s->net, p, gpus, g_array_index(s->shifts, uint32_t, pl->shift0 + i), s->h_load, 0);
    }
    if (p->n_flows == 0) {
        end_at(s, now + p->alone_ps, tag);
        return;
    }
    slot->flows_left = n_sends(s, p);
    s->n_flows += slot->flows_left;
    issue(s, s->net, p, gpus, 0, s->h_flow, tag);
}

void
coll_session_end(CollSession *s, uint32_t tag)
{
    g_return_if_fail(tag < s->n_tags);
    if (!s->analytic)
        return;
    const Place *pl = PLACE(s, s->slots[tag].place);
    unask(s, pl);
}

bool
coll_session_links(const CollSession *s, uint32_t shape, const uint32_t *gpus, uint32_t shift,
                   guint8 *bits, const guint8 *test)
{
    const Prepared *p = PREPARED(s, shape);
    bool hit = false;
    for (uint32_t i = 0; i < p->n_flows; i++) {
        const SessionFlow *f = &g_array_index(s->flows, SessionFlow, p->flow0 + i);
        TopoRoute route;
        if (!route_flow(s, p, f, gpus, shift, &route))
            continue;
        for (uint32_t k = 0; k < route.n_paths; k++)
            for (uint32_t h = 0; h < route.path[k].n_hops; h++) {
                uint32_t l = route.path[k].link[h];
                if (bits != NULL)
                    bits[l / 8] |= (guint8)(1u << (l % 8));
                if (test != NULL && (test[l / 8] & (1u << (l % 8))))
                    hit = true;
            }
    }
    return hit;
}

void
coll_session_counts(const CollSession *s, uint64_t *n_flows, uint64_t *n_load_flows)
{
    *n_flows = s->n_flows;
    *n_load_flows = s->n_load_flows;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* The replayer's traffic (work-replay-state.h): each call's flows as the
 * pattern of the algorithm's bytes, its cost alone (the collectives layer
 * for a collective, the flows and a launch for a transfer), once per
 * shape, and which copies of the job's replicas put traffic where the
 * detailed ranks' runs. */
#include "work/work-replay-state.h"

#include <string.h>

/* ---- Traffic patterns. ---- */

static const WorkTask *
call_task(const Replay *r, uint32_t call)
{
    const WorkCall *c = &g_array_index(r->m->calls, WorkCall, call);
    return work_stream_task(r->s, g_array_index(r->m->call_tasks, uint32_t, c->task0));
}

/* The GPUs of a call: the group's ranks, or a transfer's two. */
static uint32_t
call_gpus(const Replay *r, uint32_t call, const uint32_t **gpus, uint32_t pair[2])
{
    const WorkCall *c = &g_array_index(r->m->calls, WorkCall, call);
    if (c->group != WORK_NONE) {
        const WorkGroup *g = r->s->groups->pdata[c->group];
        *gpus = g->ranks;
        return g->n_ranks;
    }
    const WorkTask *send = call_task(r, call);
    pair[0] = send->rank;
    pair[1] = send->peer;
    *gpus = pair;
    return 2;
}

/* The flows of a call on gpus (shifted by `shift`), bytes scaled. */
GArray *
replay_pattern(const Replay *r, uint32_t call, uint32_t shift, double scale)
{
    GArray *flows = g_array_new(FALSE, FALSE, sizeof(Flow));
    const WorkTask *t = call_task(r, call);
    const uint32_t *gpus;
    uint32_t pair[2];
    uint32_t n = call_gpus(r, call, &gpus, pair);
    if (t->kind != WORK_TASK_COLL) {
        Flow f = {gpus[0] + shift, gpus[1] + shift, (uint64_t)((double)t->bytes * scale)};
        g_array_append_val(flows, f);
        return flows;
    }
    if (n < 2)
        return flows;
    if (t->op == COLL_OP_ALLTOALL) {
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                if (i != j) {
                    Flow f = {gpus[i] + shift, gpus[j] + shift,
                              (uint64_t)((double)t->bytes / n * scale)};
                    g_array_append_val(flows, f);
                }
        return flows;
    }
    double share = 1.0;
    if (t->op == COLL_OP_ALL_REDUCE)
        share = 2.0 * (n - 1) / n;
    else if (t->op == COLL_OP_ALL_GATHER || t->op == COLL_OP_REDUCE_SCATTER)
        share = (double)(n - 1) / n;
    for (uint32_t i = 0; i < n; i++) {
        Flow f = {gpus[i] + shift, gpus[(i + 1) % n] + shift,
                  (uint64_t)((double)t->bytes * share * scale)};
        g_array_append_val(flows, f);
    }
    return flows;
}

/* Puts flows on net, each landing as an event of handler h for target. */
void
replay_issue(NetModel *net, const TopoGraph *graph, const GArray *flows, SimHandlerId h,
             uint32_t target)
{
    for (guint i = 0; i < flows->len; i++) {
        const Flow *f = &g_array_index(flows, Flow, i);
        NetSend send = {
            .src = topo_graph_gpu_vertex(graph, f->src),
            .dst = topo_graph_gpu_vertex(graph, f->dst),
            .n_bytes = f->bytes,
            .channel = target,
            .path = NET_PATH_SPRAY,
            .issuer = NET_ISSUER_SM,
            .on_done = h,
            .target = target,
        };
        net_send(net, &send);
    }
}

static void
on_alone_done(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)event;
    uint64_t *last = ctx;
    *last = MAX(*last, sim_engine_now(engine));
}

/* How long flows take alone on a fresh network. */
static uint64_t
flows_alone_ps(const Replay *r, const GArray *flows)
{
    SimEngine *engine = sim_engine_new();
    uint64_t last = 0;
    SimHandlerId h = sim_engine_register(engine, "work-alone", on_alone_done, &last);
    NetModel *net = net_new(r->fidelity, engine, r->graph, r->router, NULL);
    replay_issue(net, r->graph, flows, h, 0);
    sim_engine_run(engine, SIM_TIME_NEVER);
    net_free(net);
    sim_engine_free(engine);
    return last;
}

/* Appends v in decimal and then c (a call's key has a number for each of
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

/* The key of a call's shape: op and bytes, and where its GPUs sit within
 * their nodes and how many nodes (on symmetric systems, the same cost). */
static char *
shape_key(const Replay *r, uint32_t call)
{
    const WorkTask *t = call_task(r, call);
    const uint32_t *gpus;
    uint32_t pair[2];
    uint32_t n = call_gpus(r, call, &gpus, pair);
    GString *key = g_string_sized_new(32 + 8 * (gsize)n);
    append_number(key, (uint64_t)t->kind, '/');
    append_number(key, (uint64_t)t->op, '/');
    append_number(key, t->bytes, ':');
    /* Nodes by order of appearance (GPUs ascend, so a new node is a new
     * ordinal), GPUs by their place in the node. */
    uint32_t ordinal = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0 && gpus[i] / r->per_node != gpus[i - 1] / r->per_node)
            ordinal++;
        append_number(key, ordinal, '.');
        append_number(key, gpus[i] % r->per_node, ',');
    }
    return g_string_free(key, FALSE);
}

static const Shape *
shape_by_key(Replay *r, uint32_t call)
{
    char *key = shape_key(r, call);
    Shape *shape = g_hash_table_lookup(r->shapes, key);
    if (shape != NULL) {
        g_free(key);
        return shape;
    }
    shape = g_new0(Shape, 1);
    shape->flow_scale = 1.0;
    const WorkTask *t = call_task(r, call);
    const uint32_t *gpus;
    uint32_t pair[2];
    uint32_t n = call_gpus(r, call, &gpus, pair);
    /* Analytic, a collective's flows are never issued: no need to time them. */
    if (t->kind != WORK_TASK_COLL || !r->analytic) {
        GArray *flows = replay_pattern(r, call, 0, 1.0);
        shape->flows_ps = flows_alone_ps(r, flows);
        g_array_unref(flows);
    }
    if (t->kind != WORK_TASK_COLL) {
        shape->total_ps = shape->flows_ps + r->launch_ps;
    } else if (n < 2) {
        shape->total_ps = 0;
    } else {
        GError *error = NULL;
        /* The same shape on the first nodes (a symmetric system's others
         * are alike): the collectives layer lays NVLS out there. */
        g_autofree uint32_t *home = g_new(uint32_t, n);
        for (uint32_t i = 0, node = 0; i < n; i++) {
            if (i > 0 && gpus[i] / r->per_node != gpus[i - 1] / r->per_node)
                node++;
            home[i] = node * r->per_node + gpus[i] % r->per_node;
        }
        CollComm *comm = coll_comm_new_gpus(r->system, r->graph, r->router, home, n, &error);
        CollCall cc = {.op = t->op, .n_bytes = t->bytes, .elem_bytes = 2};
        CollResult res;
        if (comm == NULL || !coll_run(comm, &cc, r->fidelity, &res, &error)) {
            if (r->error == NULL)
                g_propagate_prefixed_error(
                    &r->error, error, "%s of %" G_GUINT64_FORMAT " bytes on %u GPUs from GPU %u: ",
                    coll_op_name(t->op), t->bytes, n, gpus[0]);
            else
                g_clear_error(&error);
            res.time_ps = 0;
        }
        coll_comm_free(comm);
        shape->total_ps = res.time_ps;
        shape->n_channels = res.n_channels;
        /* The flows stand for the call's traffic; alone they must not
         * outlast it (NVLS and trees move less than a ring would). */
        for (int tries = 0;
             tries < 3 && !r->analytic && shape->flows_ps > shape->total_ps && shape->total_ps > 0;
             tries++) {
            shape->flow_scale *= 0.95 * (double)shape->total_ps / (double)shape->flows_ps;
            GArray *scaled = replay_pattern(r, call, 0, shape->flow_scale);
            shape->flows_ps = flows_alone_ps(r, scaled);
            g_array_unref(scaled);
        }
    }
    g_hash_table_insert(r->shapes, key, shape);
    return shape;
}

/* A shape a call instance has used: its calls repeat few (op, bytes). */
typedef struct InstanceShape {
    WorkTaskKind kind;
    CollOp op;
    uint64_t bytes;
    const Shape *shape;
} InstanceShape;

/* The call's shape, found among its instance's without building a key
 * (once per instance and size, not once per call). */
const Shape *
replay_shape_of(Replay *r, uint32_t call)
{
    const WorkTask *t = call_task(r, call);
    GArray *seen = r->instance_shapes->pdata[r->call_instance[call]];
    for (guint i = 0; i < seen->len; i++) {
        const InstanceShape *x = &g_array_index(seen, InstanceShape, i);
        if (x->kind == t->kind && x->op == t->op && x->bytes == t->bytes)
            return x->shape;
    }
    InstanceShape x = {t->kind, t->op, t->bytes, shape_by_key(r, call)};
    g_array_append_val(seen, x);
    return x.shape;
}

/* ---- Links the detailed ranks use, for replicas. ---- */

static void
mark_links(const Replay *r, const GArray *flows, guint8 *bits, bool *hit, const guint8 *test)
{
    for (guint i = 0; i < flows->len; i++) {
        const Flow *f = &g_array_index(flows, Flow, i);
        TopoRoute route;
        if (!topo_router_route(r->router, topo_graph_gpu_vertex(r->graph, f->src),
                               topo_graph_gpu_vertex(r->graph, f->dst), &route))
            continue;
        for (uint32_t p = 0; p < route.n_paths; p++)
            for (uint32_t h = 0; h < route.path[p].n_hops; h++) {
                uint32_t l = route.path[p].link[h];
                if (bits != NULL)
                    bits[l / 8] |= (guint8)(1u << (l % 8));
                if (test != NULL && (test[l / 8] & (1u << (l % 8))))
                    *hit = true;
            }
    }
}

/* Each call's instance: its group, or its (sender, receiver) pair; the
 * copies of an instance load the same links whichever call it is. */
void
replay_index_instances(Replay *r)
{
    uint32_t n_groups = r->s->groups->len;
    r->call_instance = g_new(uint32_t, r->m->calls->len);
    g_autoptr(GHashTable) pairs = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    r->n_instances = n_groups;
    r->instance_call = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_array_set_size(r->instance_call, n_groups);
    for (uint32_t i = 0; i < n_groups; i++)
        g_array_index(r->instance_call, uint32_t, i) = WORK_NONE;
    for (uint32_t c = 0; c < r->m->calls->len; c++) {
        const WorkCall *call = &g_array_index(r->m->calls, WorkCall, c);
        uint32_t key = call->group;
        if (key == WORK_NONE) {
            const WorkTask *t = call_task(r, c);
            gint64 pair = ((gint64)t->rank << 32) | t->peer;
            gpointer found = g_hash_table_lookup(pairs, &pair);
            if (found == NULL) {
                key = r->n_instances++;
                g_hash_table_insert(pairs, g_memdup2(&pair, sizeof pair),
                                    GUINT_TO_POINTER(key + 1));
                g_array_append_val(r->instance_call, c);
            } else {
                key = GPOINTER_TO_UINT(found) - 1;
            }
        } else if (g_array_index(r->instance_call, uint32_t, key) == WORK_NONE) {
            g_array_index(r->instance_call, uint32_t, key) = c;
        }
        r->call_instance[c] = key;
    }
}

/* The links the detailed ranks' own traffic uses. */
void
replay_mark_used(Replay *r)
{
    r->used = g_new0(guint8, topo_graph_n_links(r->graph) / 8 + 1);
    for (uint32_t k = 0; k < r->n_instances; k++) {
        uint32_t c = g_array_index(r->instance_call, uint32_t, k);
        if (c == WORK_NONE)
            continue;
        GArray *flows = replay_pattern(r, c, 0, 1.0);
        mark_links(r, flows, r->used, NULL, NULL);
        g_array_unref(flows);
    }
}

static bool
has_gpu(const uint32_t *gpus, uint32_t n, uint64_t gpu)
{
    for (uint32_t j = 0; j < n; j++)
        if (gpus[j] == gpu)
            return true;
    return false;
}

/* Whether copy i of call's instance is traffic of its own that shares a
 * link with the detailed ranks' traffic. It is not its own along an axis
 * the call's GPUs span (a data-parallel group holds the data replicas of
 * its rank, a tensor group the tensor ranks: a copy along that axis is the
 * call itself), nor when it overlaps the call's GPUs. */
bool
replay_copy_needed(Replay *r, uint32_t call, uint32_t i)
{
    uint32_t key = r->call_instance[call];
    guint8 *memo = &r->copy_memo[(size_t)key * r->n_copies + i];
    if (*memo != 0)
        return *memo == 1;
    const uint32_t *gpus;
    uint32_t pair[2];
    uint32_t n = call_gpus(r, call, &gpus, pair);
    uint32_t rank = call_task(r, call)->rank;
    bool own = true;
    uint32_t rest = i;
    for (int a = 0; a < WORK_REPLICA_AXES; a++) {
        const WorkReplicas *x = &r->s->replicas[a];
        uint32_t k = rest % MAX(x->count, 1);
        rest /= MAX(x->count, 1);
        if (k != 0 && x->count > 1 && has_gpu(gpus, n, (uint64_t)rank + x->stride))
            own = false;
    }
    uint64_t offset = work_stream_copy_offset(r->s, i);
    for (uint32_t k = 0; own && k < n; k++)
        own = gpus[k] + offset < r->s->n_gpus && !has_gpu(gpus, n, gpus[k] + offset);
    bool hit = false;
    if (own) {
        GArray *flows = replay_pattern(r, call, (uint32_t)offset, 1.0);
        mark_links(r, flows, NULL, &hit, r->used);
        g_array_unref(flows);
    }
    *memo = hit ? 1 : 2;
    return hit;
}

void
replay_shapes_init(Replay *r)
{
    r->instance_shapes = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    for (uint32_t k = 0; k < r->n_instances; k++)
        g_ptr_array_add(r->instance_shapes, g_array_new(FALSE, FALSE, sizeof(InstanceShape)));
}

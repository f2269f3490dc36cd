/* SPDX-License-Identifier: Apache-2.0 */
/* The replayer's calls (work-replay-state.h): each call's shape prepared
 * by the collective session before the run (once per instance and size),
 * and placed with the copies of the job's replicas that put traffic where
 * the detailed ranks' runs. */
#include "work/work-replay-state.h"

#include <string.h>

static const WorkTask *
call_task(const Replay *r, uint32_t call)
{
    const WorkCall *c = &g_array_index(r->m->calls, WorkCall, call);
    return work_stream_task(r->s, g_array_index(r->m->call_tasks, uint32_t, c->task0));
}

uint32_t
replay_call_gpus(const Replay *r, uint32_t call, const uint32_t **gpus, uint32_t pair[2])
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

/* A shape an instance's calls have used: its calls repeat few (op, bytes). */
typedef struct InstanceShape {
    WorkTaskKind kind;
    CollOp op;
    uint64_t bytes;
    uint32_t shape;
} InstanceShape;

/* The session's shape of call, found among its instance's first (no key
 * to build once an instance has met the size). */
static uint32_t
shape_of(Replay *r, GArray *seen, uint32_t call, GError **error)
{
    const WorkTask *t = call_task(r, call);
    for (guint i = 0; i < seen->len; i++) {
        const InstanceShape *x = &g_array_index(seen, InstanceShape, i);
        if (x->kind == t->kind && x->op == t->op && x->bytes == t->bytes)
            return x->shape;
    }
    const uint32_t *gpus;
    uint32_t pair[2];
    uint32_t n = replay_call_gpus(r, call, &gpus, pair);
    uint32_t shape = t->kind == WORK_TASK_COLL
                         ? coll_session_prepare(r->session, t->op, t->bytes, gpus, n, error)
                         : coll_session_prepare_transfer(r->session, gpus[0], gpus[1], t->bytes);
    if (shape != COLL_SESSION_NONE) {
        InstanceShape x = {t->kind, t->op, t->bytes, shape};
        g_array_append_val(seen, x);
    }
    return shape;
}

bool
replay_prepare(Replay *r, GError **error)
{
    g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    for (uint32_t k = 0; k < r->n_instances; k++)
        g_ptr_array_add(seen, g_array_new(FALSE, FALSE, sizeof(InstanceShape)));
    r->call_shape = g_new(uint32_t, r->m->calls->len);
    for (uint32_t c = 0; c < r->m->calls->len; c++) {
        r->call_shape[c] = shape_of(r, seen->pdata[r->call_instance[c]], c, error);
        if (r->call_shape[c] == COLL_SESSION_NONE)
            return false;
    }
    return true;
}

/* ---- Links the detailed ranks use, for replicas. ---- */

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

/* The links the detailed ranks' own traffic uses: a bitset. */
static guint8 *
mark_used(Replay *r)
{
    guint8 *used = g_new0(guint8, topo_graph_n_links(r->graph) / 8 + 1);
    for (uint32_t k = 0; k < r->n_instances; k++) {
        uint32_t c = g_array_index(r->instance_call, uint32_t, k);
        if (c == WORK_NONE)
            continue;
        const uint32_t *gpus;
        uint32_t pair[2];
        replay_call_gpus(r, c, &gpus, pair);
        coll_session_links(r->session, r->call_shape[c], gpus, 0, used, NULL);
    }
    return used;
}

static bool
has_gpu(const uint32_t *gpus, uint32_t n, uint64_t gpu)
{
    for (uint32_t j = 0; j < n; j++)
        if (gpus[j] == gpu)
            return true;
    return false;
}

/* Whether copy i of call is traffic of its own that shares a link with
 * the detailed ranks' traffic (used). It is not its own along an axis the
 * call's GPUs span (a data-parallel group holds the data replicas of its
 * rank, a tensor group the tensor ranks: a copy along that axis is the
 * call itself), nor when it overlaps the call's GPUs. */
static bool
copy_needed(Replay *r, const guint8 *used, uint32_t call, uint32_t i)
{
    const uint32_t *gpus;
    uint32_t pair[2];
    uint32_t n = replay_call_gpus(r, call, &gpus, pair);
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
    return own &&
           coll_session_links(r->session, r->call_shape[call], gpus, (uint32_t)offset, NULL, used);
}

/* A place an instance's calls have used, by shape. */
typedef struct InstancePlace {
    uint32_t shape, place;
} InstancePlace;

/* What replay_place keeps of an instance: the shifts of the copies that
 * meet the detailed ranks' traffic (found for its first call), and its
 * places. */
typedef struct Instance {
    GArray *shifts; /* uint32_t; NULL until its first call */
    GArray *places; /* InstancePlace */
} Instance;

void
replay_place(Replay *r)
{
    g_autofree guint8 *used = r->n_copies > 1 ? mark_used(r) : NULL;
    g_autofree Instance *inst = g_new0(Instance, MAX(r->n_instances, 1));
    r->call_place = g_new(uint32_t, r->m->calls->len);
    for (uint32_t c = 0; c < r->m->calls->len; c++) {
        Instance *x = &inst[r->call_instance[c]];
        if (x->shifts == NULL) {
            x->shifts = g_array_new(FALSE, FALSE, sizeof(uint32_t));
            x->places = g_array_new(FALSE, FALSE, sizeof(InstancePlace));
            for (uint32_t i = 1; i < r->n_copies; i++)
                if (copy_needed(r, used, c, i)) {
                    uint32_t shift = (uint32_t)work_stream_copy_offset(r->s, i);
                    g_array_append_val(x->shifts, shift);
                }
        }
        guint j = 0;
        while (j < x->places->len &&
               g_array_index(x->places, InstancePlace, j).shape != r->call_shape[c])
            j++;
        if (j == x->places->len) {
            const uint32_t *gpus;
            uint32_t pair[2];
            replay_call_gpus(r, c, &gpus, pair);
            InstancePlace p = {r->call_shape[c],
                               coll_session_place(r->session, r->call_shape[c], gpus,
                                                  (const uint32_t *)(void *)x->shifts->data,
                                                  x->shifts->len)};
            g_array_append_val(x->places, p);
        }
        r->call_place[c] = g_array_index(x->places, InstancePlace, j).place;
    }
    for (uint32_t k = 0; k < r->n_instances; k++)
        if (inst[k].shifts != NULL) {
            g_array_unref(inst[k].shifts);
            g_array_unref(inst[k].places);
        }
}

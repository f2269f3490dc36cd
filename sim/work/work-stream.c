/* SPDX-License-Identifier: Apache-2.0 */
/* Operation streams (see work-stream.h): building, matching calls, and the
 * dry run that proves a stream can finish. */
#include "work/work-stream.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/core-time.h"
#include "hw/hw-keys.h"

static const char *const kind_names[WORK_N_TASK_KINDS] = {"compute", "coll", "send", "recv"};
static const char *const category_names[WORK_N_CATEGORIES] = {"compute", "tp", "pp",
                                                              "dp",      "ep", "cp"};

const char *
work_task_kind_name(WorkTaskKind kind)
{
    return kind < WORK_N_TASK_KINDS ? kind_names[kind] : "?";
}

const char *
work_category_name(WorkCategory category)
{
    return category < WORK_N_CATEGORIES ? category_names[category] : "?";
}

bool
work_task_kind_parse(const char *text, WorkTaskKind *kind)
{
    for (int i = 0; i < WORK_N_TASK_KINDS; i++)
        if (g_ascii_strcasecmp(text, kind_names[i]) == 0) {
            *kind = i;
            return true;
        }
    return false;
}

bool
work_category_parse(const char *text, WorkCategory *category)
{
    for (int i = 0; i < WORK_N_CATEGORIES; i++)
        if (g_ascii_strcasecmp(text, category_names[i]) == 0) {
            *category = i;
            return true;
        }
    return false;
}

static void
group_free(WorkGroup *g)
{
    g_free(g->ranks);
    g_free(g);
}

WorkStream *
work_stream_new(uint32_t n_gpus)
{
    WorkStream *s = g_new0(WorkStream, 1);
    s->n_gpus = n_gpus;
    for (int a = 0; a < WORK_REPLICA_AXES; a++)
        s->replicas[a] = (WorkReplicas){.count = 1};
    s->tasks = g_array_new(FALSE, TRUE, sizeof(WorkTask));
    s->deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->groups = g_ptr_array_new_with_free_func((GDestroyNotify)group_free);
    s->labels = g_ptr_array_new_with_free_func(g_free);
    s->label_index = g_hash_table_new(g_str_hash, g_str_equal);
    g_ptr_array_add(s->labels, g_strdup(""));
    return s;
}

void
work_stream_free(WorkStream *stream)
{
    if (stream == NULL)
        return;
    g_array_unref(stream->tasks);
    g_array_unref(stream->deps);
    g_ptr_array_unref(stream->groups);
    g_hash_table_unref(stream->label_index);
    g_ptr_array_unref(stream->labels);
    g_free(stream);
}

static int
cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

uint32_t
work_stream_group(WorkStream *stream, WorkCategory category, const uint32_t *ranks,
                  uint32_t n_ranks)
{
    g_return_val_if_fail(n_ranks >= 1, WORK_NONE);
    uint32_t *sorted = g_memdup2(ranks, n_ranks * sizeof(uint32_t));
    qsort(sorted, n_ranks, sizeof(uint32_t), cmp_u32);
    for (uint32_t i = 0; i < stream->groups->len; i++) {
        const WorkGroup *g = stream->groups->pdata[i];
        if (g->category == category && g->n_ranks == n_ranks &&
            memcmp(g->ranks, sorted, n_ranks * sizeof(uint32_t)) == 0) {
            g_free(sorted);
            return i;
        }
    }
    WorkGroup *g = g_new0(WorkGroup, 1);
    g->category = category;
    g->n_ranks = n_ranks;
    g->ranks = sorted;
    g_ptr_array_add(stream->groups, g);
    return stream->groups->len - 1;
}

/* The index of label, added if new; the last task's label (a generated
 * step's tasks come in runs of one label) without a lookup. */
static uint32_t
label_of(WorkStream *stream, const char *label)
{
    if (label == NULL || *label == '\0')
        return 0;
    guint n = stream->tasks->len;
    if (n > 0) {
        uint32_t last = work_stream_task(stream, n - 1)->label;
        if (strcmp(stream->labels->pdata[last], label) == 0)
            return last;
    }
    gpointer found = g_hash_table_lookup(stream->label_index, label);
    if (found != NULL)
        return GPOINTER_TO_UINT(found) - 1;
    char *copy = g_strdup(label);
    g_ptr_array_add(stream->labels, copy);
    g_hash_table_insert(stream->label_index, copy, GUINT_TO_POINTER(stream->labels->len));
    return stream->labels->len - 1;
}

uint32_t
work_stream_add(WorkStream *stream, const WorkTask *task, const uint32_t *deps, uint32_t n_deps,
                const char *label)
{
    WorkTask t = *task;
    t.dep0 = stream->deps->len;
    t.n_deps = n_deps;
    t.label = label_of(stream, label);
    if (n_deps > 0)
        g_array_append_vals(stream->deps, deps, n_deps);
    g_array_append_val(stream->tasks, t);
    return stream->tasks->len - 1;
}

/* ---- Matching. ---- */

static char *
task_name(const WorkStream *stream, uint32_t i)
{
    const WorkTask *t = work_stream_task(stream, i);
    const char *label = work_stream_label(stream, t);
    return g_strdup_printf("task %u (rank %u, %s%s%s)", i, t->rank, work_task_kind_name(t->kind),
                           *label ? " " : "", label);
}

void
work_match_free(WorkMatch *match)
{
    if (match == NULL)
        return;
    g_array_unref(match->calls);
    g_array_unref(match->call_tasks);
    g_array_unref(match->task_call);
    g_free(match);
}

/* A SEND or RECV as matching sorts them: its pair, then its place. */
typedef struct PairEnd {
    uint32_t from, to, task;
} PairEnd;

static int
by_pair(const void *a, const void *b)
{
    const PairEnd *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    return x->task < y->task ? -1 : x->task > y->task;
}

/* The k-th SEND from a to b meets the k-th RECV of b from a (k by their
 * order in the stream): both sorted by pair and place, the two lists are
 * walked together. The calls are made in the RECVs' order, and the first
 * RECV (in the stream's order) without its SEND, or with another size,
 * is the error. Names are made for errors only. */
static bool
match_transfers(const WorkStream *stream, WorkMatch *m, GError **error)
{
    uint32_t n = stream->tasks->len;
    g_autofree PairEnd *sends = g_new(PairEnd, MAX(n, 1));
    g_autofree PairEnd *recvs = g_new(PairEnd, MAX(n, 1));
    uint32_t n_sends = 0, n_recvs = 0;
    for (uint32_t i = 0; i < n; i++) {
        const WorkTask *t = work_stream_task(stream, i);
        if (t->kind == WORK_TASK_SEND)
            sends[n_sends++] = (PairEnd){t->rank, t->peer, i};
        else if (t->kind == WORK_TASK_RECV)
            recvs[n_recvs++] = (PairEnd){t->peer, t->rank, i};
    }
    qsort(sends, n_sends, sizeof *sends, by_pair);
    qsort(recvs, n_recvs, sizeof *recvs, by_pair);
    /* send_of[i]: the SEND a RECV task i meets, + 1 (0: none); matched[i]:
     * SEND task i met its RECV. */
    g_autofree uint32_t *send_of = g_new0(uint32_t, MAX(n, 1));
    g_autofree uint8_t *matched = g_new0(uint8_t, MAX(n, 1));
    for (uint32_t a = 0, b = 0; a < n_sends && b < n_recvs;) {
        int c = by_pair(&(PairEnd){sends[a].from, sends[a].to, 0},
                        &(PairEnd){recvs[b].from, recvs[b].to, 0});
        if (c < 0) {
            a++;
        } else if (c > 0) {
            b++;
        } else {
            send_of[recvs[b].task] = sends[a].task + 1;
            matched[sends[a].task] = 1;
            a++;
            b++;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        const WorkTask *t = work_stream_task(stream, i);
        if (t->kind != WORK_TASK_RECV)
            continue;
        uint32_t s = send_of[i];
        if (s == 0) {
            g_autofree char *name = task_name(stream, i);
            return hw_keys_failf(error, "%s: no matching send from rank %u", name, t->peer);
        }
        const WorkTask *st = work_stream_task(stream, s - 1);
        if (st->bytes != t->bytes) {
            g_autofree char *name = task_name(stream, i);
            g_autofree char *sname = task_name(stream, s - 1);
            return hw_keys_failf(error,
                                 "%s receives %" G_GUINT64_FORMAT
                                 " bytes but its %s sends %" G_GUINT64_FORMAT,
                                 name, t->bytes, sname, st->bytes);
        }
        WorkCall call = {
            .group = WORK_NONE, .prev = WORK_NONE, .task0 = m->call_tasks->len, .n_tasks = 2};
        uint32_t pair[2] = {s - 1, i};
        g_array_append_vals(m->call_tasks, pair, 2);
        g_array_index(m->task_call, uint32_t, s - 1) = m->calls->len;
        g_array_index(m->task_call, uint32_t, i) = m->calls->len;
        g_array_append_val(m->calls, call);
    }
    for (uint32_t i = 0; i < n; i++) {
        const WorkTask *t = work_stream_task(stream, i);
        if (t->kind == WORK_TASK_SEND && !matched[i]) {
            g_autofree char *name = task_name(stream, i);
            return hw_keys_failf(error, "%s: no matching receive on rank %u", name, t->peer);
        }
    }
    return true;
}

static bool
match_collectives(const WorkStream *stream, WorkMatch *m, GError **error)
{
    uint32_t n_groups = stream->groups->len;
    /* For every group, each member's COLL tasks in order. */
    g_autoptr(GHashTable) lists =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, (GDestroyNotify)g_array_unref);
    for (uint32_t i = 0; i < stream->tasks->len; i++) {
        const WorkTask *t = work_stream_task(stream, i);
        if (t->kind != WORK_TASK_COLL)
            continue;
        if (t->group >= n_groups)
            return hw_keys_failf(error, "task %u: group %u does not exist", i, t->group);
        const WorkGroup *g = stream->groups->pdata[t->group];
        if (bsearch(&t->rank, g->ranks, g->n_ranks, sizeof(uint32_t), cmp_u32) == NULL) {
            g_autofree char *name = task_name(stream, i);
            return hw_keys_failf(error, "%s: rank %u is not a member of its group", name, t->rank);
        }
        gint64 *key = g_new(gint64, 1);
        *key = ((gint64)t->group << 32) | t->rank;
        GArray *list = g_hash_table_lookup(lists, key);
        if (list == NULL) {
            list = g_array_new(FALSE, FALSE, sizeof(uint32_t));
            g_hash_table_insert(lists, key, list);
        } else {
            g_free(key);
        }
        g_array_append_val(list, i);
    }
    for (uint32_t gi = 0; gi < n_groups; gi++) {
        const WorkGroup *g = stream->groups->pdata[gi];
        /* The detailed members: those with tasks on the group. */
        g_autofree GArray **members = g_new0(GArray *, g->n_ranks);
        uint32_t n_detailed = 0, first = WORK_NONE;
        for (uint32_t r = 0; r < g->n_ranks; r++) {
            gint64 key = ((gint64)gi << 32) | g->ranks[r];
            members[r] = g_hash_table_lookup(lists, &key);
            if (members[r] != NULL) {
                n_detailed++;
                if (first == WORK_NONE)
                    first = r;
            }
        }
        if (n_detailed == 0)
            continue;
        GArray *ref = members[first];
        uint32_t prev = WORK_NONE;
        for (uint32_t k = 0; k < ref->len; k++) {
            uint32_t ti = g_array_index(ref, uint32_t, k);
            const WorkTask *t0 = work_stream_task(stream, ti);
            WorkCall call = {
                .group = gi, .prev = prev, .task0 = m->call_tasks->len, .n_tasks = n_detailed};
            for (uint32_t r = 0; r < g->n_ranks; r++) {
                if (members[r] == NULL)
                    continue;
                if (members[r]->len != ref->len)
                    return hw_keys_failf(
                        error, "group %u: rank %u makes %u calls on it but rank %u makes %u", gi,
                        g->ranks[first], ref->len, g->ranks[r], members[r]->len);
                uint32_t tj = g_array_index(members[r], uint32_t, k);
                const WorkTask *t = work_stream_task(stream, tj);
                if (t->op != t0->op || t->bytes != t0->bytes) {
                    g_autofree char *a = task_name(stream, ti);
                    g_autofree char *b = task_name(stream, tj);
                    return hw_keys_failf(error,
                                         "group %u, call %u: %s is %s of %" G_GUINT64_FORMAT
                                         " bytes but %s is %s of %" G_GUINT64_FORMAT " bytes",
                                         gi, k, a, coll_op_name(t0->op), t0->bytes, b,
                                         coll_op_name(t->op), t->bytes);
                }
                if (t->sms != t0->sms) {
                    g_autofree char *a = task_name(stream, ti);
                    g_autofree char *b = task_name(stream, tj);
                    return hw_keys_failf(error,
                                         "group %u, call %u: %s holds %u SMs but %s holds %u "
                                         "(0: NCCL's channels)",
                                         gi, k, a, t0->sms, b, t->sms);
                }
                g_array_append_val(m->call_tasks, tj);
                g_array_index(m->task_call, uint32_t, tj) = m->calls->len;
            }
            prev = m->calls->len;
            g_array_append_val(m->calls, call);
        }
    }
    return true;
}

WorkMatch *
work_match_new(const WorkStream *stream, GError **error)
{
    WorkMatch *m = g_new0(WorkMatch, 1);
    m->calls = g_array_new(FALSE, FALSE, sizeof(WorkCall));
    m->call_tasks = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    m->task_call = g_array_sized_new(FALSE, FALSE, sizeof(uint32_t), stream->tasks->len);
    g_array_set_size(m->task_call, stream->tasks->len);
    for (uint32_t i = 0; i < stream->tasks->len; i++)
        g_array_index(m->task_call, uint32_t, i) = WORK_NONE;
    if (!match_transfers(stream, m, error) || !match_collectives(stream, m, error)) {
        work_match_free(m);
        return NULL;
    }
    return m;
}

/* ---- Index. ---- */

WorkIndex *
work_index_new(const WorkStream *stream)
{
    uint32_t n = stream->tasks->len, n_gpus = stream->n_gpus;
    WorkIndex *x = g_new0(WorkIndex, 1);
    x->dependents0 = g_new0(uint32_t, n + 1);
    x->compute0 = g_new0(uint32_t, n_gpus + 1);
    for (uint32_t i = 0; i < n; i++) {
        const WorkTask *t = work_stream_task(stream, i);
        for (uint32_t k = 0; k < t->n_deps; k++)
            x->dependents0[g_array_index(stream->deps, uint32_t, t->dep0 + k) + 1]++;
        if (t->kind == WORK_TASK_COMPUTE)
            x->compute0[t->rank + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
        x->dependents0[i + 1] += x->dependents0[i];
    for (uint32_t g = 0; g < n_gpus; g++)
        x->compute0[g + 1] += x->compute0[g];
    x->dependents = g_new(uint32_t, MAX(x->dependents0[n], 1));
    x->compute_list = g_new(uint32_t, MAX(x->compute0[n_gpus], 1));
    g_autofree uint32_t *fill = g_new0(uint32_t, MAX(n, n_gpus) + 1);
    for (uint32_t i = 0; i < n; i++) {
        const WorkTask *t = work_stream_task(stream, i);
        for (uint32_t k = 0; k < t->n_deps; k++) {
            uint32_t j = g_array_index(stream->deps, uint32_t, t->dep0 + k);
            x->dependents[x->dependents0[j] + fill[j]++] = i;
        }
    }
    memset(fill, 0, sizeof(uint32_t) * n_gpus);
    for (uint32_t i = 0; i < n; i++) {
        const WorkTask *t = work_stream_task(stream, i);
        if (t->kind == WORK_TASK_COMPUTE)
            x->compute_list[x->compute0[t->rank] + fill[t->rank]++] = i;
    }
    return x;
}

void
work_index_free(WorkIndex *index)
{
    if (index == NULL)
        return;
    g_free(index->dependents0);
    g_free(index->dependents);
    g_free(index->compute0);
    g_free(index->compute_list);
    g_free(index);
}

/* ---- Checking. ---- */

uint32_t
work_stream_n_copies(const WorkStream *stream)
{
    uint64_t n = 1;
    for (int a = 0; a < WORK_REPLICA_AXES; a++)
        n *= MAX(stream->replicas[a].count, 1);
    return (uint32_t)MIN(n, UINT32_MAX);
}

uint64_t
work_stream_copy_offset(const WorkStream *stream, uint32_t i)
{
    uint64_t offset = 0;
    for (int a = 0; a < WORK_REPLICA_AXES; a++) {
        uint32_t count = MAX(stream->replicas[a].count, 1);
        offset += (uint64_t)(i % count) * stream->replicas[a].stride;
        i /= count;
    }
    return offset;
}

/* The axes fit the job, and a copy of a detailed rank is neither a GPU
 * outside the job, nor a detailed rank, nor another copy of it. */
static bool
check_replicas(const WorkStream *stream, GError **error)
{
    uint64_t n = 1;
    for (int a = 0; a < WORK_REPLICA_AXES; a++) {
        const WorkReplicas *x = &stream->replicas[a];
        if (x->count < 1 || (x->count > 1 && x->stride == 0))
            return hw_keys_failf(error, "replica axis %d: %u copies %u GPUs apart", a, x->count,
                                 x->stride);
        n *= x->count;
        if (n > stream->n_gpus)
            return hw_keys_failf(error, "%" G_GUINT64_FORMAT " copies do not fit %u GPUs", n,
                                 stream->n_gpus);
    }
    if (n < 2)
        return true;
    g_autofree uint64_t *offsets = g_new(uint64_t, n);
    for (uint32_t i = 0; i < n; i++)
        offsets[i] = work_stream_copy_offset(stream, i);
    g_autofree bool *detailed = g_new0(bool, stream->n_gpus);
    for (uint32_t i = 0; i < stream->tasks->len; i++)
        detailed[work_stream_task(stream, i)->rank] = true;
    g_autofree bool *taken = g_new0(bool, stream->n_gpus);
    for (uint32_t r = 0; r < stream->n_gpus; r++)
        for (uint32_t i = 0; detailed[r] && i < n; i++) {
            uint64_t copy = r + offsets[i];
            const char *why = copy >= stream->n_gpus    ? "not a GPU of the job"
                              : i > 0 && detailed[copy] ? "a rank with tasks"
                              : taken[copy]             ? "a copy of another rank"
                                                        : NULL;
            if (why != NULL)
                return hw_keys_failf(
                    error, "replica %u of rank %u is GPU %" G_GUINT64_FORMAT ", which is %s", i, r,
                    copy, why);
            taken[copy] = true;
        }
    return true;
}

/* Fails with task i's name and the rest of the message (fmt). */
static bool G_GNUC_PRINTF(4, 5)
    task_fail(const WorkStream *stream, uint32_t i, GError **error, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    g_autofree char *what = g_strdup_vprintf(fmt, args);
    va_end(args);
    g_autofree char *name = task_name(stream, i);
    return hw_keys_failf(error, "%s: %s", name, what);
}

/* Each task's fields in range; its name made for an error only. */
static bool
check_tasks(const WorkStream *stream, GError **error)
{
    for (uint32_t i = 0; i < stream->tasks->len; i++) {
        const WorkTask *t = work_stream_task(stream, i);
        if (t->kind >= WORK_N_TASK_KINDS || t->category >= WORK_N_CATEGORIES)
            return task_fail(stream, i, error, "unknown kind or category");
        if (t->rank >= stream->n_gpus)
            return task_fail(stream, i, error, "rank %u is not below the job's %u GPUs", t->rank,
                             stream->n_gpus);
        if ((t->kind == WORK_TASK_SEND || t->kind == WORK_TASK_RECV) &&
            (t->peer >= stream->n_gpus || t->peer == t->rank))
            return task_fail(stream, i, error, "peer %u is not another of the job's %u GPUs",
                             t->peer, stream->n_gpus);
        if (t->kind == WORK_TASK_COLL && t->group >= stream->groups->len)
            return task_fail(stream, i, error, "group %u does not exist", t->group);
        for (uint32_t d = 0; d < t->n_deps; d++) {
            uint32_t j = g_array_index(stream->deps, uint32_t, t->dep0 + d);
            if (j >= i || work_stream_task(stream, j)->rank != t->rank)
                return task_fail(stream, i, error,
                                 "depends on task %u, which is not an earlier task of its rank", j);
        }
    }
    for (uint32_t gi = 0; gi < stream->groups->len; gi++) {
        const WorkGroup *g = stream->groups->pdata[gi];
        for (uint32_t r = 0; r < g->n_ranks; r++)
            if (g->ranks[r] >= stream->n_gpus || (r > 0 && g->ranks[r] == g->ranks[r - 1]))
                return hw_keys_failf(error, "group %u: rank %u repeated or not below %u GPUs", gi,
                                     g->ranks[r], stream->n_gpus);
    }
    return check_replicas(stream, error);
}

/* The dry run's state: what each task waits for, and what is done. */
typedef struct Dry {
    const WorkStream *s;
    const WorkMatch *m;
    WorkIndex *x;
    uint32_t *deps_left;
    uint32_t *next_compute; /* per rank: its first compute task not yet run */
    uint32_t *n_arrived;    /* per call */
    bool *done, *ready, *call_done;
    GArray *stack; /* tasks whose dependencies have all finished */
    uint32_t n_done;
} Dry;

static void dry_finish(Dry *d, uint32_t task);

static void
dry_call(Dry *d, uint32_t ci)
{
    /* Runs call ci if it can, then any later call of its group that was
     * waiting only for it. */
    while (ci < d->m->calls->len) {
        const WorkCall *c = &g_array_index(d->m->calls, WorkCall, ci);
        if (d->call_done[ci] || d->n_arrived[ci] < c->n_tasks ||
            (c->prev != WORK_NONE && !d->call_done[c->prev]))
            return;
        d->call_done[ci] = true;
        for (uint32_t k = 0; k < c->n_tasks; k++)
            dry_finish(d, g_array_index(d->m->call_tasks, uint32_t, c->task0 + k));
        if (c->group == WORK_NONE || ci + 1 >= d->m->calls->len ||
            g_array_index(d->m->calls, WorkCall, ci + 1).prev != ci)
            return;
        ci++;
    }
}

static void
dry_compute(Dry *d, uint32_t rank)
{
    while (d->next_compute[rank] < d->x->compute0[rank + 1]) {
        uint32_t t = d->x->compute_list[d->next_compute[rank]];
        if (!d->ready[t])
            return;
        d->next_compute[rank]++;
        dry_finish(d, t);
    }
}

static void
dry_finish(Dry *d, uint32_t task)
{
    d->done[task] = true;
    d->n_done++;
    for (uint32_t k = d->x->dependents0[task]; k < d->x->dependents0[task + 1]; k++)
        if (--d->deps_left[d->x->dependents[k]] == 0)
            g_array_append_val(d->stack, d->x->dependents[k]);
}

/* Runs the stream with no time: a task finishes once its dependencies
 * have and, for compute, the rank's previous compute task has, or, for a
 * call, once every member reached it and the group's previous call
 * finished. Whatever never finishes is a deadlock. */
static bool
dry_run(const WorkStream *stream, const WorkMatch *m, GError **error)
{
    uint32_t n = stream->tasks->len, n_gpus = stream->n_gpus;
    Dry d = {.s = stream, .m = m, .x = work_index_new(stream)};
    d.deps_left = g_new0(uint32_t, n);
    d.next_compute = g_new(uint32_t, n_gpus);
    d.n_arrived = g_new0(uint32_t, m->calls->len);
    d.done = g_new0(bool, n);
    d.ready = g_new0(bool, n);
    d.call_done = g_new0(bool, m->calls->len);
    d.stack = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t g = 0; g < n_gpus; g++)
        d.next_compute[g] = d.x->compute0[g];
    for (uint32_t i = 0; i < n; i++) {
        d.deps_left[i] = work_stream_task(stream, i)->n_deps;
        if (d.deps_left[i] == 0)
            g_array_append_val(d.stack, i);
    }
    while (d.stack->len > 0) {
        uint32_t i = g_array_index(d.stack, uint32_t, d.stack->len - 1);
        g_array_set_size(d.stack, d.stack->len - 1);
        const WorkTask *t = work_stream_task(stream, i);
        d.ready[i] = true;
        if (t->kind == WORK_TASK_COMPUTE) {
            dry_compute(&d, t->rank);
        } else {
            uint32_t ci = g_array_index(m->task_call, uint32_t, i);
            d.n_arrived[ci]++;
            dry_call(&d, ci);
        }
    }
    bool ok = d.n_done == n;
    for (uint32_t i = 0; !ok && i < n; i++)
        if (!d.done[i] && (d.ready[i] || d.deps_left[i] == 0)) {
            g_autofree char *name = task_name(stream, i);
            hw_keys_failf(
                error,
                "the stream cannot finish: %s waits forever (for a member of its call that "
                "never reaches it, or for an earlier compute task of its rank)",
                name);
            break;
        }
    work_index_free(d.x);
    g_free(d.deps_left);
    g_free(d.next_compute);
    g_free(d.n_arrived);
    g_free(d.done);
    g_free(d.ready);
    g_free(d.call_done);
    g_array_unref(d.stack);
    return ok;
}

WorkMatch *
work_stream_check_match(const WorkStream *stream, GError **error)
{
    if (!check_tasks(stream, error))
        return NULL;
    g_autoptr(WorkMatch) m = work_match_new(stream, error);
    return m != NULL && dry_run(stream, m, error) ? g_steal_pointer(&m) : NULL;
}

bool
work_stream_check(const WorkStream *stream, GError **error)
{
    g_autoptr(WorkMatch) m = work_stream_check_match(stream, error);
    return m != NULL;
}

bool
work_stream_check_durations(const WorkStream *stream, const uint64_t *duration_ps, uint64_t max_ps,
                            GError **error)
{
    g_autofree uint64_t *sum_ps = g_new0(uint64_t, MAX(stream->n_gpus, 1));
    for (uint32_t i = 0; i < stream->tasks->len; i++) {
        const WorkTask *t = work_stream_task(stream, i);
        if (t->kind != WORK_TASK_COMPUTE)
            continue;
        uint64_t *sum = &sum_ps[t->rank];
        *sum = duration_ps[i] > max_ps - MIN(*sum, max_ps) ? max_ps + 1 : *sum + duration_ps[i];
        if (*sum > max_ps) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "rank %u computes for more than %" G_GUINT64_FORMAT
                        " days in one step: beyond what the simulated clock (2^64 ps, 213 days) "
                        "can hold; expected a larger [scenario] compute_efficiency, "
                        "[stragglers] compute_rate or GPU training_efficiency, or a smaller step",
                        t->rank, max_ps / (86400 * SIM_PS_PER_S));
            return false;
        }
    }
    return true;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Where a replayed step's time went (work-replay.h): each detailed rank's
 * [0, step] split by what it was doing, in the order of precedence the
 * header gives, and the mean over ranks. */
#include <stdlib.h>
#include <string.h>

#include "work/work-replay.h"

static const char *const time_names[WORK_N_TIMES] = {"compute", "tp", "pp",  "dp",
                                                     "ep",      "cp", "idle"};

const char *
work_time_name(WorkTime time)
{
    return time < WORK_N_TIMES ? time_names[time] : "?";
}

/* A task starting (+1) or ending (-1) at t. */
typedef struct Mark {
    uint64_t t;
    int delta;
    WorkTime what;
} Mark;

static int
cmp_mark(const void *a, const void *b)
{
    const Mark *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

static WorkTime
time_of(WorkCategory c)
{
    switch (c) {
    case WORK_CAT_TP:
        return WORK_TIME_TP;
    case WORK_CAT_PP:
        return WORK_TIME_PP;
    case WORK_CAT_DP:
        return WORK_TIME_DP;
    case WORK_CAT_EP:
        return WORK_TIME_EP;
    case WORK_CAT_CP:
        return WORK_TIME_CP;
    default:
        return WORK_TIME_COMPUTE;
    }
}

/* Splits [0, step] of one rank, its task marks given, by what it was doing. */
static void
split_rank(GArray *marks, uint64_t step, uint64_t out[WORK_N_TIMES])
{
    qsort(marks->data, marks->len, sizeof(Mark), cmp_mark);
    static const WorkTime order[] = {WORK_TIME_COMPUTE, WORK_TIME_TP, WORK_TIME_CP,
                                     WORK_TIME_EP,      WORK_TIME_PP, WORK_TIME_DP};
    int active[WORK_N_TIMES] = {0};
    uint64_t prev = 0;
    for (guint i = 0; i <= marks->len; i++) {
        uint64_t t = i < marks->len ? g_array_index(marks, Mark, i).t : step;
        if (t > prev) {
            WorkTime what = WORK_TIME_IDLE;
            for (unsigned k = 0; k < G_N_ELEMENTS(order); k++)
                if (active[order[k]] > 0) {
                    what = order[k];
                    break;
                }
            out[what] += t - prev;
            prev = t;
        }
        if (i < marks->len)
            active[g_array_index(marks, Mark, i).what] += g_array_index(marks, Mark, i).delta;
    }
}

static void
marks_free(gpointer marks)
{
    if (marks != NULL)
        g_array_unref(marks);
}

void
work_replay_breakdown(const WorkStream *s, WorkReplayResult *res)
{
    GPtrArray *per_rank = g_ptr_array_new_with_free_func(marks_free);
    g_ptr_array_set_size(per_rank, s->n_gpus);
    for (uint32_t i = 0; i < s->tasks->len; i++) {
        const WorkTask *t = work_stream_task(s, i);
        WorkTime what = t->kind == WORK_TASK_COMPUTE ? WORK_TIME_COMPUTE : time_of(t->category);
        if (per_rank->pdata[t->rank] == NULL)
            per_rank->pdata[t->rank] = g_array_new(FALSE, FALSE, sizeof(Mark));
        GArray *marks = per_rank->pdata[t->rank];
        Mark a = {g_array_index(res->start_ps, uint64_t, i), +1, what};
        Mark b = {g_array_index(res->end_ps, uint64_t, i), -1, what};
        g_array_append_val(marks, a);
        g_array_append_val(marks, b);
    }
    uint64_t sum[WORK_N_TIMES] = {0};
    res->n_detailed = 0;
    for (uint32_t g = 0; g < s->n_gpus; g++) {
        if (per_rank->pdata[g] == NULL)
            continue;
        uint64_t one[WORK_N_TIMES] = {0};
        split_rank(per_rank->pdata[g], res->step_ps, one);
        for (int k = 0; k < WORK_N_TIMES; k++)
            sum[k] += one[k];
        if (res->n_detailed++ == 0)
            memcpy(res->rank_time_ps, one, sizeof one);
    }
    /* Means that still add up to the step. */
    uint64_t total = 0;
    for (int k = 0; k < WORK_N_TIMES; k++) {
        res->time_ps[k] = res->n_detailed ? sum[k] / res->n_detailed : 0;
        total += res->time_ps[k];
    }
    res->time_ps[WORK_TIME_IDLE] += res->step_ps - total;
    g_ptr_array_unref(per_rank);
}

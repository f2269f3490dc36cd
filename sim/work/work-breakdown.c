/* SPDX-License-Identifier: Apache-2.0 */
/* Where a replayed step's time went (work-replay.h): each detailed rank's
 * [0, step] split by what it was doing, in the order of precedence the
 * header gives, and the mean over ranks. */
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

/* Sorts n marks by time (the order of marks at one time does not matter:
 * no time passes between them), a bottom-up merge through tmp (n marks);
 * the sorted marks are in the array returned, m or tmp. */
static Mark *
sort_marks(Mark *m, Mark *tmp, size_t n)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = MIN(lo + width, n), hi = MIN(lo + 2 * width, n);
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = m[j].t < m[i].t ? m[j++] : m[i++];
            while (i < mid)
                tmp[k++] = m[i++];
            while (j < hi)
                tmp[k++] = m[j++];
        }
        Mark *swap = m;
        m = tmp;
        tmp = swap;
    }
    return m;
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

/* Splits [0, step] of one rank, its n task marks given (sorted here,
 * through tmp), by what it was doing. */
static void
split_rank(Mark *marks, Mark *tmp, size_t n, uint64_t step, uint64_t out[WORK_N_TIMES])
{
    marks = sort_marks(marks, tmp, n);
    static const WorkTime order[] = {WORK_TIME_COMPUTE, WORK_TIME_TP, WORK_TIME_CP,
                                     WORK_TIME_EP,      WORK_TIME_PP, WORK_TIME_DP};
    int active[WORK_N_TIMES] = {0};
    uint64_t prev = 0;
    for (size_t i = 0; i <= n; i++) {
        uint64_t t = i < n ? marks[i].t : step;
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
        if (i < n)
            active[marks[i].what] += marks[i].delta;
    }
}

void
work_replay_breakdown(const WorkStream *s, WorkReplayResult *res)
{
    /* Each rank's marks together: counted, then placed. */
    uint32_t n_tasks = s->tasks->len;
    g_autofree size_t *first = g_new0(size_t, (size_t)s->n_gpus + 1);
    for (uint32_t i = 0; i < n_tasks; i++)
        first[work_stream_task(s, i)->rank + 1] += 2;
    for (uint32_t g = 0; g < s->n_gpus; g++)
        first[g + 1] += first[g];
    g_autofree Mark *marks = g_new(Mark, MAX((size_t)n_tasks * 2, 1));
    g_autofree Mark *tmp = g_new(Mark, MAX((size_t)n_tasks * 2, 1));
    g_autofree size_t *next = g_memdup2(first, sizeof(size_t) * s->n_gpus);
    const uint64_t *start = (const uint64_t *)(void *)res->start_ps->data;
    const uint64_t *end = (const uint64_t *)(void *)res->end_ps->data;
    for (uint32_t i = 0; i < n_tasks; i++) {
        const WorkTask *t = work_stream_task(s, i);
        WorkTime what = t->kind == WORK_TASK_COMPUTE ? WORK_TIME_COMPUTE : time_of(t->category);
        marks[next[t->rank]++] = (Mark){start[i], +1, what};
        marks[next[t->rank]++] = (Mark){end[i], -1, what};
    }
    uint64_t sum[WORK_N_TIMES] = {0};
    res->n_detailed = 0;
    for (uint32_t g = 0; g < s->n_gpus; g++) {
        size_t n = first[g + 1] - first[g];
        if (n == 0)
            continue;
        uint64_t one[WORK_N_TIMES] = {0};
        split_rank(marks + first[g], tmp + first[g], n, res->step_ps, one);
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
}

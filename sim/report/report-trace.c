/* SPDX-License-Identifier: Apache-2.0 */
/* Writing traces (the format is in work-trace.h): a stream's tasks in
 * stream order, each rank's tasks numbered, groups named by category and
 * index. Times stay integer picoseconds: durations are printed as decimal
 * text, never through a double.
 */
#include "report/report-trace.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/core-csv.h"
#include "core/core-output.h"
#include "core/core-time.h"

/* ---- Writing. ---- */

static bool G_GNUC_PRINTF(3, 4) path_fail(GError **error, const char *path, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    g_autofree char *msg = g_strdup_vprintf(format, ap);
    va_end(ap);
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: %s", path, msg);
    return false;
}

/* What the writer relies on, checked before anything is written; fills
 * number[i] with task i's number within its rank. */
static bool
number_tasks(const WorkStream *stream, const char *path, uint32_t *number, GError **error)
{
    g_autofree uint32_t *next = g_new0(uint32_t, stream->n_gpus);
    for (uint32_t i = 0; i < stream->tasks->len; i++) {
        const WorkTask *t = work_stream_task(stream, i);
        if (t->rank >= stream->n_gpus || t->kind >= WORK_N_TASK_KINDS ||
            t->category >= WORK_N_CATEGORIES)
            return path_fail(error, path, "task %u: rank %u, kind %d or category %d out of range",
                             i, t->rank, (int)t->kind, (int)t->category);
        if (t->kind == WORK_TASK_COLL) {
            if (t->group >= stream->groups->len)
                return path_fail(error, path, "task %u: group %u does not exist", i, t->group);
            const WorkGroup *g = stream->groups->pdata[t->group];
            if (g->category != t->category)
                return path_fail(error, path, "task %u: category %s but its group %u is %s", i,
                                 work_category_name(t->category), t->group,
                                 work_category_name(g->category));
        }
        for (uint32_t d = 0; d < t->n_deps; d++) {
            uint32_t j = g_array_index(stream->deps, uint32_t, t->dep0 + d);
            if (j >= i || work_stream_task(stream, j)->rank != t->rank)
                return path_fail(error, path,
                                 "task %u: depends on task %u, not an earlier task of its rank", i,
                                 j);
        }
        number[i] = next[t->rank]++;
    }
    return true;
}

/* ids[0 .. n) as one field, space-separated ("0 1 2 3"); scratch holds
 * the text. */
static void
put_ids(SimCsvWriter *w, GString *scratch, const uint32_t *ids, uint32_t n)
{
    g_string_truncate(scratch, 0);
    for (uint32_t k = 0; k < n; k++)
        g_string_append_printf(scratch, "%s%u", k > 0 ? " " : "", ids[k]);
    sim_csv_put_plain(w, "%s", scratch->str);
}

static void
put_row(SimCsvWriter *w, GString *scratch, const WorkStream *stream, uint32_t i,
        const uint32_t *number)
{
    const WorkTask *t = work_stream_task(stream, i);
    sim_csv_put_plain(w, "%u,%u,%s,%s", t->rank, number[i], work_task_kind_name(t->kind),
                      work_category_name(t->category));
    if (t->kind == WORK_TASK_COLL) {
        const WorkGroup *g = stream->groups->pdata[t->group];
        sim_csv_put_plain(w, "%s%u", work_category_name(g->category), t->group);
        put_ids(w, scratch, g->ranks, g->n_ranks);
    } else {
        sim_csv_put_plain(w, ","); /* group, members */
    }
    if (t->kind == WORK_TASK_SEND || t->kind == WORK_TASK_RECV)
        sim_csv_put_plain(w, "%u", t->peer);
    else
        sim_csv_put(w, NULL);
    sim_csv_put(w, t->kind == WORK_TASK_COLL ? coll_op_name(t->op) : NULL);
    if (t->kind != WORK_TASK_COMPUTE)
        sim_csv_put_plain(w, "%" PRIu64, t->bytes);
    else
        sim_csv_put(w, NULL);
    if (t->kind == WORK_TASK_COLL && t->sms > 0)
        sim_csv_put_plain(w, "%u", t->sms);
    else
        sim_csv_put(w, NULL);
    /* Duration 0 with FLOPs is a time left to the replayer: no duration. */
    if (t->kind == WORK_TASK_COMPUTE && (t->duration_ps > 0 || t->flops == 0))
        sim_csv_put_plain(w, "%" PRIu64 ".%06" PRIu64, t->duration_ps / SIM_PS_PER_US,
                          t->duration_ps % SIM_PS_PER_US);
    else
        sim_csv_put(w, NULL);
    if (t->kind == WORK_TASK_COMPUTE && t->flops > 0)
        sim_csv_put_plain(w, "%" PRIu64, t->flops);
    else
        sim_csv_put(w, NULL);
    if (t->kind == WORK_TASK_COMPUTE && t->memory_share > 0)
        sim_csv_put_plain(w, "%u.%04u", t->memory_share / WORK_SHARE_ONE,
                          t->memory_share % WORK_SHARE_ONE);
    else
        sim_csv_put(w, NULL);
    g_string_truncate(scratch, 0);
    for (uint32_t d = 0; d < t->n_deps; d++)
        g_string_append_printf(scratch, "%s%u", d > 0 ? " " : "",
                               number[g_array_index(stream->deps, uint32_t, t->dep0 + d)]);
    sim_csv_put_plain(w, "%s", scratch->str);
    /* The replica axes in use, axis 0 first; "1" and "0" when none. */
    uint32_t counts[WORK_REPLICA_AXES], strides[WORK_REPLICA_AXES], n_axes = 0;
    for (int a = 0; a < WORK_REPLICA_AXES; a++)
        if (a == 0 || stream->replicas[a].count > 1) {
            counts[n_axes] = stream->replicas[a].count;
            strides[n_axes++] = stream->replicas[a].stride;
        }
    put_ids(w, scratch, counts, n_axes);
    put_ids(w, scratch, strides, n_axes);
    sim_csv_put(w, work_stream_label(stream, t));
    sim_csv_end_row(w);
}

bool
report_trace_write(const WorkStream *stream, const char *path, GError **error)
{
    g_return_val_if_fail(stream != NULL && path != NULL, false);
    g_autofree uint32_t *number = g_new(uint32_t, stream->tasks->len + 1);
    if (!number_tasks(stream, path, number, error))
        return false;
    g_autoptr(GString) out = g_string_new(NULL), scratch = g_string_new(NULL);
    SimCsvWriter w = {.text = out};
    for (int c = 0; c < WORK_TRACE_N_COLUMNS; c++)
        sim_csv_put_plain(&w, "%s", work_trace_columns[c]);
    sim_csv_end_row(&w);
    for (uint32_t i = 0; i < stream->tasks->len; i++)
        put_row(&w, scratch, stream, i, number);
    /* Written to a temporary beside path and renamed into place (an
     * interrupt removes it); the cost is the whole trace held in memory as
     * text until then. */
    return sim_output_write_all(path, out->str, out->len, error);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a trace CSV (work_trace_read_data). A trace that reads
 * must write, and read back with the same tasks (report-trace.h). */
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "report/report-trace.h"

static bool
same_task(const WorkStream *a, const WorkStream *b, uint32_t i)
{
    const WorkTask *x = work_stream_task(a, i), *y = work_stream_task(b, i);
    if (x->kind != y->kind || x->category != y->category || x->rank != y->rank ||
        x->peer != y->peer || x->bytes != y->bytes || x->duration_ps != y->duration_ps ||
        x->flops != y->flops || x->n_deps != y->n_deps ||
        (x->kind == WORK_TASK_COLL && x->op != y->op) ||
        strcmp(work_stream_label(a, x), work_stream_label(b, y)) != 0)
        return false;
    for (uint32_t d = 0; d < x->n_deps; d++)
        if (g_array_index(a->deps, uint32_t, x->dep0 + d) !=
            g_array_index(b->deps, uint32_t, y->dep0 + d))
            return false;
    return true;
}

/* A folder of its own for the round trip's file, removed at exit. */
static char *dir, *path;

static void
remove_dir(void)
{
    g_rmdir(dir);
}

/* Writes stream and reads it back; aborts when they differ. */
static void
round_trip(const WorkStream *stream)
{
    if (path == NULL) {
        dir = g_dir_make_tmp("nvlsim-fuzz-trace-XXXXXX", NULL);
        if (dir == NULL)
            abort();
        path = g_build_filename(dir, "trace.csv", NULL);
        atexit(remove_dir);
    }
    GError *error = NULL;
    if (!report_trace_write(stream, path, &error))
        abort();
    WorkStream *back = work_trace_read(path, &error);
    if (back == NULL || back->tasks->len != stream->tasks->len)
        abort();
    for (uint32_t i = 0; i < stream->tasks->len; i++)
        if (!same_task(stream, back, i))
            abort();
    work_stream_free(back);
    g_unlink(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    GError *error = NULL;
    WorkStream *stream = work_trace_read_data((const char *)data, size, "fuzz.csv", &error);
    if ((stream == NULL) != (error != NULL))
        abort();
    if (stream != NULL)
        round_trip(stream);
    work_stream_free(stream);
    g_clear_error(&error);
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* Timelines: Chrome traces of generated steps, replayed, parsed back by a
 * strict JSON reader (objects, arrays, strings with escapes, numbers, true,
 * false, null; duplicate keys and trailing text are errors) and checked
 * event by event: known phases, begin <= end, times the doubles nearest
 * their picoseconds, one slice per task, tracks named and never partly
 * overlapping, processes by node. Past the event limit the trace still
 * parses, fits (one slice a track at least), keeps every task counted and
 * says it merged. Labels with quotes, backslashes and control characters
 * come back intact; link counters come back exact, and averaged by time
 * past their limit.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "report/report-chrome.h"
#include "report-suites.h"
#include "report-test-json.h"
#include "work-test-support.h"
#include "work/work-gen.h"

/* ---- Writing and reading back. ---- */

/* Writes the trace, reads the file back and parses it; fails the test on
 * any error. */
static Json *
write_and_parse(const WorkStream *s, const WorkReplayResult *r, const ReportChromeOptions *o,
                ReportChromeStats *stats)
{
    g_autofree char *dir = g_dir_make_tmp("test-report-chrome-XXXXXX", NULL);
    ck_assert(dir != NULL);
    g_autofree char *path = g_build_filename(dir, "step.json", NULL);
    g_autoptr(GError) error = NULL;
    bool ok = report_chrome_write(s, r, o, path, stats, &error);
    g_autofree char *text = NULL;
    bool read = ok && g_file_get_contents(path, &text, NULL, &error);
    g_unlink(path);
    g_rmdir(dir);
    ck_assert_msg(ok && read, "write: %s", error ? error->message : "");
    ck_assert_msg(g_str_has_prefix(text, "{\"traceEvents\":["), "starts %.20s", text);
    g_autofree char *why = NULL;
    Json *root = json_parse(text, &why);
    ck_assert_msg(root != NULL, "not JSON: %s", why);
    ck_assert_int_eq(root->type, J_OBJECT);
    ck_assert_str_eq(json_str(root, "displayTimeUnit"), "ns");
    ck_assert(json_get(root, "metadata") != NULL);
    const Json *events = json_get(root, "traceEvents");
    ck_assert(events != NULL && events->type == J_ARRAY);
    return root;
}

/* What the checks learn from a trace's events. */
typedef struct Seen {
    GHashTable *procs;   /* pid -> its process_name */
    GHashTable *threads; /* tid -> its thread_name */
    GHashTable *pid_of;  /* tid -> pid + 1, from its thread_name */
    GPtrArray *slices;   /* the "X" events (borrowed) */
    GPtrArray *counters; /* the "C" events (borrowed) */
} Seen;

static void
seen_clear(Seen *s)
{
    g_hash_table_unref(s->procs);
    g_hash_table_unref(s->threads);
    g_hash_table_unref(s->pid_of);
    g_ptr_array_unref(s->slices);
    g_ptr_array_unref(s->counters);
}

static void
check_meta(Seen *seen, const Json *e)
{
    const char *name = json_str(e, "name");
    const Json *args = json_get(e, "args");
    ck_assert(args != NULL && args->type == J_OBJECT);
    uint64_t pid = json_uint(e, "pid");
    if (strcmp(name, "process_name") == 0) {
        g_hash_table_insert(seen->procs, GSIZE_TO_POINTER(pid), (char *)json_str(args, "name"));
    } else if (strcmp(name, "thread_name") == 0) {
        uint64_t tid = json_uint(e, "tid");
        ck_assert_msg(tid > 0, "tid 0");
        ck_assert_msg(!g_hash_table_contains(seen->threads, GSIZE_TO_POINTER(tid)),
                      "tid %" G_GUINT64_FORMAT " named twice", tid);
        g_hash_table_insert(seen->threads, GSIZE_TO_POINTER(tid), (char *)json_str(args, "name"));
        g_hash_table_insert(seen->pid_of, GSIZE_TO_POINTER(tid), GSIZE_TO_POINTER(pid + 1));
    } else {
        ck_assert_msg(strcmp(name, "process_sort_index") == 0 ||
                          strcmp(name, "thread_sort_index") == 0,
                      "unknown metadata event %s", name);
        (void)json_uint(args, "sort_index");
    }
}

/* Every event well-formed: a known phase, begin <= end (dur >= 0), and
 * slices on named threads of named processes, counters of named
 * processes. */
static Seen
check_events(const Json *root)
{
    Seen seen = {
        .procs = g_hash_table_new(g_direct_hash, g_direct_equal),
        .threads = g_hash_table_new(g_direct_hash, g_direct_equal),
        .pid_of = g_hash_table_new(g_direct_hash, g_direct_equal),
        .slices = g_ptr_array_new(),
        .counters = g_ptr_array_new(),
    };
    const Json *events = json_get(root, "traceEvents");
    for (guint i = 0; i < events->items->len; i++) {
        const Json *e = events->items->pdata[i];
        ck_assert_msg(e->type == J_OBJECT, "event %u is not an object", i);
        const char *ph = json_str(e, "ph");
        if (strcmp(ph, "M") == 0) {
            check_meta(&seen, e);
        } else if (strcmp(ph, "X") == 0) {
            (void)json_str(e, "name");
            WorkCategory cat;
            ck_assert_msg(work_category_parse(json_str(e, "cat"), &cat), "event %u: cat", i);
            (void)json_us(e, "ts");
            (void)json_us(e, "dur");
            ck_assert(json_get(e, "args") != NULL && json_get(e, "args")->type == J_OBJECT);
            g_ptr_array_add(seen.slices, (gpointer)e);
        } else {
            ck_assert_msg(strcmp(ph, "C") == 0, "event %u: unknown phase %s", i, ph);
            (void)json_str(e, "name");
            (void)json_us(e, "ts");
            g_ptr_array_add(seen.counters, (gpointer)e);
        }
    }
    for (guint i = 0; i < seen.slices->len; i++) {
        const Json *e = seen.slices->pdata[i];
        uint64_t pid = json_uint(e, "pid"), tid = json_uint(e, "tid");
        ck_assert_msg(g_hash_table_contains(seen.threads, GSIZE_TO_POINTER(tid)),
                      "tid %" G_GUINT64_FORMAT " has no thread_name", tid);
        ck_assert_uint_eq(GPOINTER_TO_SIZE(g_hash_table_lookup(seen.pid_of, GSIZE_TO_POINTER(tid))),
                          pid + 1);
        ck_assert_msg(g_hash_table_contains(seen.procs, GSIZE_TO_POINTER(pid)),
                      "pid %" G_GUINT64_FORMAT " has no process_name", pid);
    }
    for (guint i = 0; i < seen.counters->len; i++)
        ck_assert(g_hash_table_contains(
            seen.procs, GSIZE_TO_POINTER(json_uint(seen.counters->pdata[i], "pid"))));
    return seen;
}

static gint
cmp_slice(gconstpointer pa, gconstpointer pb)
{
    const Json *a = *(const Json *const *)pa, *b = *(const Json *const *)pb;
    uint64_t ta = json_uint(a, "tid"), tb = json_uint(b, "tid");
    if (ta != tb)
        return ta < tb ? -1 : 1;
    uint64_t sa = json_us(a, "ts"), sb = json_us(b, "ts");
    return sa < sb ? -1 : sa > sb;
}

/* No two slices of a track overlap (a viewer cannot draw that); returns
 * the tasks the slices stand for. */
static uint64_t
check_tracks(Seen *seen)
{
    g_ptr_array_sort(seen->slices, cmp_slice);
    uint64_t n_tasks = 0;
    for (guint i = 0; i < seen->slices->len; i++) {
        const Json *e = seen->slices->pdata[i], *args = json_get(e, "args");
        n_tasks += json_get(args, "tasks") != NULL ? json_uint(args, "tasks") : 1;
        if (i == 0)
            continue;
        const Json *prev = seen->slices->pdata[i - 1];
        if (json_uint(prev, "tid") == json_uint(e, "tid"))
            ck_assert_msg(json_us(prev, "ts") + json_us(prev, "dur") <= json_us(e, "ts"),
                          "tid %" G_GUINT64_FORMAT ": slices overlap", json_uint(e, "tid"));
    }
    return n_tasks;
}

/* ---- Generated steps. ---- */

static const struct {
    uint32_t tp, pp, dp, nodes;
    bool symmetric, dp_overlap;
} cases[] = {
    {2, 2, 2, 1, true, true},
    {2, 2, 4, 2, false, true},
    {1, 4, 2, 1, true, false},
};

typedef struct Step {
    WorkTestFabric fabric;
    WorkStream *stream;
    WorkReplayResult result;
    ReportChromeOptions opts;
} Step;

static void
step_run(Step *step, int i)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l = work_test_layout(cases[i].tp, cases[i].pp, cases[i].dp, 4 * cases[i].dp, 128);
    g_autoptr(GError) error = NULL;
    ck_assert_msg(work_layout_check(&l, m, &error), "case %d: %s", i, error ? error->message : "");
    work_test_fabric_load(&step->fabric, "dgx-h100", cases[i].nodes);
    WorkGenOptions o;
    work_gen_options_init(&o, m);
    o.symmetric = cases[i].symmetric;
    o.dp_overlap = cases[i].dp_overlap;
    step->stream = work_gen_stream(m, &l, step->fabric.system->gpu, &o);
    g_autofree char *what = g_strdup_printf("case %d", i);
    work_test_replay(&step->fabric, step->stream, what, &step->result);
    report_chrome_options_init(&step->opts);
    step->opts.gpus_per_node = step->fabric.system->n_gpus;
}

static void
step_clear(Step *step)
{
    work_replay_result_clear(&step->result);
    work_stream_free(step->stream);
    work_test_fabric_clear(&step->fabric);
}

START_TEST(generated_step_is_one_slice_a_task)
{
    Step step;
    step_run(&step, _i);
    const WorkStream *s = step.stream;
    ReportChromeStats stats;
    g_autoptr(Json) root = write_and_parse(s, &step.result, &step.opts, &stats);
    Seen seen = check_events(root);
    ck_assert_uint_eq(seen.slices->len, s->tasks->len);
    ck_assert_uint_eq(seen.counters->len, 0);
    g_autofree guint8 *seen_task = g_new0(guint8, s->tasks->len);
    for (guint i = 0; i < seen.slices->len; i++) {
        const Json *e = seen.slices->pdata[i], *args = json_get(e, "args");
        uint64_t task = json_uint(args, "task");
        ck_assert_uint_lt(task, s->tasks->len);
        ck_assert_msg(!seen_task[task], "case %d: task %" G_GUINT64_FORMAT " twice", _i, task);
        seen_task[task] = 1;
        const WorkTask *t = work_stream_task(s, (uint32_t)task);
        uint64_t start = g_array_index(step.result.start_ps, uint64_t, task);
        uint64_t end = g_array_index(step.result.end_ps, uint64_t, task);
        ck_assert_uint_eq(json_us(e, "ts"), start);
        ck_assert_uint_eq(json_us(e, "dur"), end - start);
        ck_assert_uint_eq(json_uint(e, "pid"), t->rank / step.opts.gpus_per_node);
        ck_assert_str_eq(json_str(e, "cat"), work_category_name(t->category));
        ck_assert_str_eq(json_str(args, "kind"), work_task_kind_name(t->kind));
        if (t->kind == WORK_TASK_COLL) {
            ck_assert_uint_eq(json_uint(args, "bytes"), t->bytes);
            ck_assert_uint_eq(json_uint(args, "group"), t->group);
            ck_assert_str_eq(json_str(args, "op"), coll_op_name(t->op));
        } else if (t->kind == WORK_TASK_COMPUTE) {
            ck_assert_uint_eq(json_uint(args, "flops"), t->flops);
        }
        const char *thread =
            g_hash_table_lookup(seen.threads, GSIZE_TO_POINTER(json_uint(e, "tid")));
        g_autofree char *prefix =
            g_strdup_printf("GPU %u %s", t->rank, work_category_name(t->category));
        ck_assert_msg(g_str_has_prefix(thread, prefix), "case %d: task on %s", _i, thread);
    }
    ck_assert_uint_eq(check_tracks(&seen), s->tasks->len);
    const Json *meta = json_get(root, "metadata");
    ck_assert(!json_bool(meta, "merged") && !stats.merged);
    ck_assert_uint_eq(json_uint(meta, "tasks"), s->tasks->len);
    ck_assert_uint_eq(json_uint(meta, "events"), s->tasks->len);
    ck_assert_uint_eq(json_uint(meta, "tracks"), g_hash_table_size(seen.threads));
    ck_assert_uint_eq(stats.n_tracks, g_hash_table_size(seen.threads));
    ck_assert_uint_eq(g_hash_table_size(seen.procs), cases[_i].nodes);
    seen_clear(&seen);
    step_clear(&step);
}
END_TEST

/* A limit between one slice a track and one a task, and a limit below one
 * a track (then each track is one slice). */
START_TEST(past_the_limit_slices_merge_and_say_so)
{
    Step step;
    step_run(&step, _i);
    uint64_t n = step.stream->tasks->len;
    ReportChromeStats stats;
    step.opts.max_events = 1;
    g_autoptr(Json) floor = write_and_parse(step.stream, &step.result, &step.opts, &stats);
    uint64_t n_tracks = stats.n_tracks;
    ck_assert_uint_gt(n, 2 * n_tracks);
    Seen seen = check_events(floor);
    ck_assert_uint_eq(seen.slices->len, n_tracks);
    ck_assert_uint_eq(check_tracks(&seen), n);
    seen_clear(&seen);

    step.opts.max_events = n_tracks + (n - n_tracks) / 3;
    g_autoptr(Json) root = write_and_parse(step.stream, &step.result, &step.opts, &stats);
    seen = check_events(root);
    ck_assert_uint_le(seen.slices->len, step.opts.max_events);
    ck_assert_uint_ge(seen.slices->len, n_tracks);
    ck_assert_uint_eq(check_tracks(&seen), n);
    ck_assert_uint_eq(stats.n_events, seen.slices->len);
    ck_assert(stats.merged);
    const Json *meta = json_get(root, "metadata");
    ck_assert(json_bool(meta, "merged"));
    ck_assert_uint_eq(json_uint(meta, "tasks"), n);
    ck_assert_uint_eq(json_uint(meta, "events"), seen.slices->len);
    ck_assert_uint_eq(json_uint(meta, "max_events"), step.opts.max_events);
    ck_assert_uint_eq(json_uint(meta, "merge_gap_ps"), stats.merge_gap_ps);
    ck_assert_ptr_nonnull(strstr(json_str(meta, "note"), "merged"));
    /* A merged slice covers its tasks: from the first's start to the last's
     * end, named by its category. */
    guint n_merged = 0;
    for (guint i = 0; i < seen.slices->len; i++) {
        const Json *e = seen.slices->pdata[i], *args = json_get(e, "args");
        if (json_get(args, "tasks") == NULL)
            continue;
        n_merged++;
        uint64_t first = json_uint(args, "first_task");
        ck_assert_uint_eq(json_us(e, "ts"), g_array_index(step.result.start_ps, uint64_t, first));
        g_autofree char *name = g_strdup_printf("%s (%" G_GUINT64_FORMAT " tasks)",
                                                json_str(e, "cat"), json_uint(args, "tasks"));
        ck_assert_str_eq(json_str(e, "name"), name);
    }
    ck_assert_uint_gt(n_merged, 0);
    seen_clear(&seen);
    step_clear(&step);
}
END_TEST

/* ---- Hand-built streams. ---- */

/* A replay result with the given task times. */
static void
fake_result(WorkReplayResult *r, const uint64_t *start_ps, const uint64_t *end_ps, guint n)
{
    *r = (WorkReplayResult){0};
    r->start_ps = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    r->end_ps = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_array_append_vals(r->start_ps, start_ps, n);
    g_array_append_vals(r->end_ps, end_ps, n);
}

static const char *const labels[] = {
    "quote \" and backslash \\",   "line\nbreak\tand tab\r",       "bell \a, escape \x1b, del \x7f",
    "caf\xc3\xa9 \xe2\x86\x92 ok", "{\"looks\": [\"like json\"]}",
};

START_TEST(labels_are_escaped)
{
    g_autoptr(WorkStream) s = work_stream_new(1);
    uint64_t start[G_N_ELEMENTS(labels) + 1], end[G_N_ELEMENTS(labels) + 1];
    WorkTask c = {.kind = WORK_TASK_COMPUTE, .group = WORK_NONE, .peer = WORK_NONE};
    for (guint i = 0; i <= G_N_ELEMENTS(labels); i++) {
        work_stream_add(s, &c, NULL, 0, i < G_N_ELEMENTS(labels) ? labels[i] : "bad \xff utf-8");
        start[i] = 1000001 * i;
        end[i] = start[i] + 999999;
    }
    WorkReplayResult r;
    fake_result(&r, start, end, G_N_ELEMENTS(start));
    g_autoptr(Json) root = write_and_parse(s, &r, NULL, NULL);
    Seen seen = check_events(root);
    ck_assert_uint_eq(seen.slices->len, G_N_ELEMENTS(start));
    for (guint i = 0; i < seen.slices->len; i++) {
        const Json *e = seen.slices->pdata[i];
        uint64_t task = json_uint(json_get(e, "args"), "task");
        if (task < G_N_ELEMENTS(labels))
            ck_assert_str_eq(json_str(e, "name"), labels[task]);
        else
            ck_assert_str_eq(json_str(e, "name"), "bad \xef\xbf\xbd utf-8");
    }
    ck_assert_str_eq(g_hash_table_lookup(seen.procs, GSIZE_TO_POINTER(0)), "GPUs");
    seen_clear(&seen);
    work_replay_result_clear(&r);
}
END_TEST

/* A send and a receive at once on rank 0 need two tracks; a task the
 * other's gap fits goes back to the first. */
START_TEST(overlapping_tasks_get_more_tracks)
{
    g_autoptr(WorkStream) s = work_stream_new(2);
    WorkTask send = {.kind = WORK_TASK_SEND,
                     .category = WORK_CAT_PP,
                     .group = WORK_NONE,
                     .peer = 1,
                     .bytes = 4096};
    WorkTask recv = send;
    recv.kind = WORK_TASK_RECV;
    work_stream_add(s, &send, NULL, 0, NULL);
    work_stream_add(s, &recv, NULL, 0, NULL);
    work_stream_add(s, &send, NULL, 0, NULL);
    uint64_t start[] = {0, 500000, 2000000}, end[] = {1000000, 2500000, 3000000};
    WorkReplayResult r;
    fake_result(&r, start, end, 3);
    g_autoptr(Json) root = write_and_parse(s, &r, NULL, NULL);
    Seen seen = check_events(root);
    ck_assert_uint_eq(check_tracks(&seen), 3);
    ck_assert_uint_eq(g_hash_table_size(seen.threads), 2);
    ck_assert_str_eq(g_hash_table_lookup(seen.threads, GSIZE_TO_POINTER(1)), "GPU 0 pp");
    ck_assert_str_eq(g_hash_table_lookup(seen.threads, GSIZE_TO_POINTER(2)), "GPU 0 pp #2");
    for (guint i = 0; i < seen.slices->len; i++) {
        const Json *e = seen.slices->pdata[i];
        uint64_t task = json_uint(json_get(e, "args"), "task");
        ck_assert_uint_eq(json_uint(e, "tid"), task == 1 ? 2 : 1);
        ck_assert_str_eq(json_str(e, "name"), task == 1 ? "recv from 1" : "send to 1");
        ck_assert_uint_eq(json_uint(json_get(e, "args"), "peer"), 1);
    }
    seen_clear(&seen);
    work_replay_result_clear(&r);
}
END_TEST

/* ---- Link counters. ---- */

static const ReportChromeSample link_a[] = {
    {0, 1.0}, {1000000, 0.0}, {3000000, 0.5}, {4000000, 0.0}};
static const ReportChromeSample link_b[] = {{500, 0.25}, {7000001, 0.0}};

/* Counters with max_samples (0: none), as (link, ts, utilization to six
 * decimals). */
static void
check_links(uint64_t max_samples, const char *const *want, guint n_want)
{
    g_autoptr(WorkStream) s = work_stream_new(9);
    WorkTask c = {.kind = WORK_TASK_COMPUTE, .rank = 8, .group = WORK_NONE, .peer = WORK_NONE};
    work_stream_add(s, &c, NULL, 0, NULL);
    uint64_t start = 0, end = 4000000;
    WorkReplayResult r;
    fake_result(&r, &start, &end, 1);
    const ReportChromeLink links[] = {{"gpu0 -> \"sw0\"", link_a, G_N_ELEMENTS(link_a)},
                                      {"gpu1 -> sw0", link_b, G_N_ELEMENTS(link_b)}};
    ReportChromeOptions o;
    report_chrome_options_init(&o);
    o.gpus_per_node = 4;
    o.links = links;
    o.n_links = 2;
    o.max_samples = max_samples;
    ReportChromeStats stats;
    g_autoptr(Json) root = write_and_parse(s, &r, &o, &stats);
    Seen seen = check_events(root);
    ck_assert_str_eq(g_hash_table_lookup(seen.procs, GSIZE_TO_POINTER(2)), "node 2");
    ck_assert_str_eq(g_hash_table_lookup(seen.procs, GSIZE_TO_POINTER(3)), "links");
    ck_assert_uint_eq(seen.counters->len, n_want);
    for (guint i = 0; i < seen.counters->len; i++) {
        const Json *e = seen.counters->pdata[i];
        const Json *u = json_get(json_get(e, "args"), "utilization");
        ck_assert(u != NULL && u->type == J_NUMBER);
        g_autofree char *got = g_strdup_printf("%s %" G_GUINT64_FORMAT " %.6f", json_str(e, "name"),
                                               json_us(e, "ts"), g_ascii_strtod(u->text, NULL));
        ck_assert_str_eq(got, want[i]);
        ck_assert_uint_eq(json_uint(e, "pid"), 3);
    }
    const Json *meta = json_get(root, "metadata");
    ck_assert_uint_eq(json_uint(meta, "link_samples"), 6);
    ck_assert_uint_eq(json_uint(meta, "link_samples_written"), n_want);
    ck_assert(json_bool(meta, "averaged") == (n_want < 6));
    ck_assert(stats.averaged == (n_want < 6));
    seen_clear(&seen);
    work_replay_result_clear(&r);
}

START_TEST(link_counters_come_back_exact)
{
    static const char *const want[] = {
        "gpu0 -> \"sw0\" 0 1.000000",       "gpu0 -> \"sw0\" 1000000 0.000000",
        "gpu0 -> \"sw0\" 3000000 0.500000", "gpu0 -> \"sw0\" 4000000 0.000000",
        "gpu1 -> sw0 500 0.250000",         "gpu1 -> sw0 7000001 0.000000",
    };
    check_links(0, want, G_N_ELEMENTS(want));
    check_links(6, want, G_N_ELEMENTS(want));
}
END_TEST

/* 5 samples for 2 links: 2 a link. Link a's first three hold 1 for 1 us,
 * 0 for 2 us and 0.5 for 1 us: 1.5 / 4 on average. */
START_TEST(past_the_limit_link_samples_average_by_time)
{
    static const char *const want[] = {
        "gpu0 -> \"sw0\" 0 0.375000",
        "gpu0 -> \"sw0\" 4000000 0.000000",
        "gpu1 -> sw0 500 0.250000",
        "gpu1 -> sw0 7000001 0.000000",
    };
    check_links(5, want, G_N_ELEMENTS(want));
}
END_TEST

Suite *
report_chrome_suite(void)
{
    Suite *s = suite_create("report-chrome");
    TCase *tc = tcase_create("generated");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, generated_step_is_one_slice_a_task, 0, G_N_ELEMENTS(cases));
    tcase_add_loop_test(tc, past_the_limit_slices_merge_and_say_so, 0, G_N_ELEMENTS(cases));
    suite_add_tcase(s, tc);
    tc = tcase_create("hand-built");
    tcase_add_test(tc, labels_are_escaped);
    tcase_add_test(tc, overlapping_tasks_get_more_tracks);
    tcase_add_test(tc, link_counters_come_back_exact);
    tcase_add_test(tc, past_the_limit_link_samples_average_by_time);
    suite_add_tcase(s, tc);
    return s;
}

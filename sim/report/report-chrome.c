/* SPDX-License-Identifier: Apache-2.0 */
/* Timelines as Chrome trace-event JSON (the format is in report-chrome.h).
 * A task is one complete slice on a track of its GPU; tasks of a category
 * that overlap go to more tracks (greedy interval partitioning: the first
 * track free at the task's start), so that no track holds slices that
 * partly overlap, which the viewers cannot draw. Past the size limit the
 * smallest gaps between a track's neighbouring slices are closed first, so
 * the picture loses the least time detail for the events it saves. JSON
 * goes through json-glib: each event is built (JsonBuilder) and printed
 * (JsonGenerator) on its own, one a line, inside the printed object
 * around them, since a tree of every event costs about 2.5 KiB an event (a
 * gigabyte at the limits). Times are integer picoseconds until printed as
 * microseconds in a double; the text is built in memory (bounded by the
 * limits) and written as a whole.
 */
#include "report/report-chrome.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "core/core-output.h"

#define PS_PER_US UINT64_C(1000000)
#define PPM UINT32_C(1000000)

/* A task on its track, and the order that makes tracks contiguous. */
typedef struct Item {
    uint64_t start_ps, end_ps;
    uint32_t rank;
    uint32_t category;
    uint32_t lane; /* its track among its rank's tracks of its category */
    uint32_t task;
} Item;

typedef struct Track {
    uint32_t rank;
    WorkCategory category;
    uint32_t lane;
    uint32_t item0, n_items;
} Track;

typedef struct Chrome {
    const WorkStream *stream;
    const ReportChromeOptions *opts;
    Item *items;     /* one per task, by track then start */
    GArray *tracks;  /* Track */
    uint64_t gap_ps; /* neighbouring slices this close merge; UINT64_MAX: all */
    bool any_gap;    /* merging is on */
    JsonBuilder *builder;  /* the event being built */
    JsonGenerator *writer; /* prints it */
    GString *out;          /* the file's text so far */
    bool first;            /* no event printed yet */
    ReportChromeStats stats;
} Chrome;

static int
cmp_by_start(const void *pa, const void *pb)
{
    const Item *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->category != b->category)
        return a->category < b->category ? -1 : 1;
    if (a->start_ps != b->start_ps)
        return a->start_ps < b->start_ps ? -1 : 1;
    if (a->end_ps != b->end_ps)
        return a->end_ps < b->end_ps ? -1 : 1;
    return a->task < b->task ? -1 : a->task > b->task;
}

static int
cmp_by_track(const void *pa, const void *pb)
{
    const Item *a = pa, *b = pb;
    if (a->rank != b->rank || a->category != b->category)
        return cmp_by_start(pa, pb);
    if (a->lane != b->lane)
        return a->lane < b->lane ? -1 : 1;
    return cmp_by_start(pa, pb);
}

static int
cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Gives each task a lane among its rank's tracks of its category: the
 * first lane whose last slice has ended by the task's start. */
static void
assign_lanes(Item *items, uint32_t n)
{
    GArray *lane_end = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    for (uint32_t i = 0; i < n; i++) {
        if (i == 0 || items[i].rank != items[i - 1].rank ||
            items[i].category != items[i - 1].category)
            g_array_set_size(lane_end, 0);
        uint32_t lane = 0;
        while (lane < lane_end->len && g_array_index(lane_end, uint64_t, lane) > items[i].start_ps)
            lane++;
        if (lane == lane_end->len)
            g_array_set_size(lane_end, lane + 1);
        g_array_index(lane_end, uint64_t, lane) = items[i].end_ps;
        items[i].lane = lane;
    }
    g_array_unref(lane_end);
}

/* The tasks as items sorted by track, and the tracks. */
static void
build_tracks(Chrome *c, const WorkReplayResult *result)
{
    uint32_t n = c->stream->tasks->len;
    c->items = g_new(Item, MAX(n, 1));
    for (uint32_t i = 0; i < n; i++) {
        const WorkTask *t = work_stream_task(c->stream, i);
        c->items[i] = (Item){
            .start_ps = g_array_index(result->start_ps, uint64_t, i),
            .end_ps = MAX(g_array_index(result->end_ps, uint64_t, i),
                          g_array_index(result->start_ps, uint64_t, i)),
            .rank = t->rank,
            .category = t->category,
            .task = i,
        };
    }
    qsort(c->items, n, sizeof(Item), cmp_by_start);
    assign_lanes(c->items, n);
    qsort(c->items, n, sizeof(Item), cmp_by_track);
    c->tracks = g_array_new(FALSE, FALSE, sizeof(Track));
    for (uint32_t i = 0; i < n; i++) {
        const Item *it = &c->items[i];
        Track *last =
            c->tracks->len > 0 ? &g_array_index(c->tracks, Track, c->tracks->len - 1) : NULL;
        if (last != NULL && last->rank == it->rank && last->category == it->category &&
            last->lane == it->lane) {
            last->n_items++;
            continue;
        }
        Track track = {it->rank, (WorkCategory)it->category, it->lane, i, 1};
        g_array_append_val(c->tracks, track);
    }
}

/* Picks the gap below which neighbouring slices merge: the smallest gaps
 * first, as many as it takes to fit max_events (all of them when even one
 * slice a track does not fit). */
static void
plan_merging(Chrome *c)
{
    uint64_t n = c->stream->tasks->len, limit = c->opts->max_events;
    c->stats.n_tasks = n;
    c->stats.n_events = n;
    c->stats.n_tracks = c->tracks->len;
    if (limit == 0 || n <= limit)
        return;
    uint64_t n_gaps = n - c->tracks->len, k = n - limit, n_closed = 0;
    g_autofree uint64_t *gaps = g_new(uint64_t, MAX(n_gaps, 1));
    for (guint t = 0, g = 0; t < c->tracks->len; t++) {
        const Track *track = &g_array_index(c->tracks, Track, t);
        for (uint32_t i = track->item0 + 1; i < track->item0 + track->n_items; i++)
            gaps[g++] = c->items[i].start_ps - c->items[i - 1].end_ps;
    }
    qsort(gaps, n_gaps, sizeof(uint64_t), cmp_u64);
    c->any_gap = n_gaps > 0;
    c->gap_ps = k >= n_gaps ? UINT64_MAX : gaps[k - 1];
    while (n_closed < n_gaps && gaps[n_closed] <= c->gap_ps)
        n_closed++;
    c->stats.n_events = n - n_closed;
    c->stats.merged = n_closed > 0;
    c->stats.merge_gap_ps = n_closed > 0 ? gaps[n_closed - 1] : 0;
}

/* ---- JSON through json-glib. ---- */

/* A string member; invalid UTF-8 (a label read from a file) is replaced
 * by U+FFFD, since JSON text is UTF-8. */
static void
set_string(JsonBuilder *b, const char *key, const char *text)
{
    g_autofree char *valid = g_utf8_validate(text, -1, NULL) ? NULL : g_utf8_make_valid(text, -1);
    json_builder_set_member_name(b, key);
    json_builder_add_string_value(b, valid != NULL ? valid : text);
}

static void
set_int(JsonBuilder *b, const char *key, int64_t value)
{
    json_builder_set_member_name(b, key);
    json_builder_add_int_value(b, value);
}

static void
set_bool(JsonBuilder *b, const char *key, bool value)
{
    json_builder_set_member_name(b, key);
    json_builder_add_boolean_value(b, value);
}

/* ps as microseconds: the double nearest ps / 10^6, which reads back to
 * the picosecond below 2^52 ps (75 minutes). */
static void
set_us(JsonBuilder *b, const char *key, uint64_t ps)
{
    json_builder_set_member_name(b, key);
    json_builder_add_double_value(b, (double)ps / (double)PS_PER_US);
}

/* Starts an event: an object, its members to follow. */
static JsonBuilder *
event_begin(Chrome *c)
{
    json_builder_reset(c->builder);
    json_builder_begin_object(c->builder);
    return c->builder;
}

/* Ends the event and prints it on a line of its own. */
static void
event_end(Chrome *c)
{
    json_builder_end_object(c->builder);
    g_autoptr(JsonNode) root = json_builder_get_root(c->builder);
    json_generator_set_root(c->writer, root);
    g_string_append(c->out, c->first ? "\n" : ",\n");
    c->first = false;
    json_generator_to_gstring(c->writer, c->out);
}

static void
put_meta(Chrome *c, const char *what, uint32_t pid, int64_t tid, const char *name, int64_t index)
{
    JsonBuilder *b = event_begin(c);
    set_string(b, "name", what);
    set_string(b, "ph", "M");
    set_int(b, "pid", pid);
    if (tid >= 0)
        set_int(b, "tid", tid);
    json_builder_set_member_name(b, "args");
    json_builder_begin_object(b);
    if (name != NULL)
        set_string(b, "name", name);
    else
        set_int(b, "sort_index", index);
    json_builder_end_object(b);
    event_end(c);
}

static uint32_t
pid_of(const Chrome *c, uint32_t rank)
{
    return c->opts->gpus_per_node > 0 ? rank / c->opts->gpus_per_node : 0;
}

/* process_name and thread_name events: nodes, then each GPU's tracks. */
static void
put_names(Chrome *c)
{
    for (guint t = 0; t < c->tracks->len; t++) {
        const Track *track = &g_array_index(c->tracks, Track, t);
        uint32_t pid = pid_of(c, track->rank);
        if (t == 0 || pid != pid_of(c, g_array_index(c->tracks, Track, t - 1).rank)) {
            g_autofree char *name =
                c->opts->gpus_per_node > 0 ? g_strdup_printf("node %u", pid) : g_strdup("GPUs");
            put_meta(c, "process_name", pid, -1, name, 0);
            put_meta(c, "process_sort_index", pid, -1, NULL, pid);
        }
        g_autofree char *lane = track->lane > 0 ? g_strdup_printf(" #%u", track->lane + 1) : NULL;
        g_autofree char *name =
            g_strdup_printf("GPU %u %s%s", track->rank, work_category_name(track->category),
                            lane != NULL ? lane : "");
        put_meta(c, "thread_name", pid, t + 1, name, 0);
        put_meta(c, "thread_sort_index", pid, t + 1, NULL, t + 1);
    }
}

/* A task's name: its label, or what it is. */
static char *
task_name(const WorkStream *stream, const WorkTask *t)
{
    const char *label = work_stream_label(stream, t);
    if (*label != '\0')
        return g_strdup(label);
    switch (t->kind) {
    case WORK_TASK_COLL:
        return g_strdup(coll_op_name(t->op));
    case WORK_TASK_SEND:
        return g_strdup_printf("send to %u", t->peer);
    case WORK_TASK_RECV:
        return g_strdup_printf("recv from %u", t->peer);
    default:
        return g_strdup(work_task_kind_name(t->kind));
    }
}

/* Starts an "X" event, its members up to args, and opens args. */
static JsonBuilder *
slice_begin(Chrome *c, const char *name, WorkCategory category, uint64_t start_ps, uint64_t end_ps,
            uint32_t pid, uint32_t tid)
{
    JsonBuilder *b = event_begin(c);
    set_string(b, "name", name);
    set_string(b, "cat", work_category_name(category));
    set_string(b, "ph", "X");
    set_us(b, "ts", start_ps);
    set_us(b, "dur", end_ps - start_ps);
    set_int(b, "pid", pid);
    set_int(b, "tid", tid);
    json_builder_set_member_name(b, "args");
    json_builder_begin_object(b);
    return b;
}

/* Closes a slice's args and ends it. */
static void
slice_end(Chrome *c)
{
    json_builder_end_object(c->builder);
    event_end(c);
}

static void
put_task(Chrome *c, const Item *it, uint32_t tid)
{
    const WorkTask *t = work_stream_task(c->stream, it->task);
    g_autofree char *name = task_name(c->stream, t);
    JsonBuilder *b =
        slice_begin(c, name, t->category, it->start_ps, it->end_ps, pid_of(c, t->rank), tid);
    set_int(b, "task", it->task);
    set_string(b, "kind", work_task_kind_name(t->kind));
    if (t->kind == WORK_TASK_COMPUTE) {
        set_int(b, "flops", (int64_t)t->flops);
    } else if (t->kind == WORK_TASK_COLL) {
        set_string(b, "op", coll_op_name(t->op));
        set_int(b, "group", t->group);
        set_int(b, "bytes", (int64_t)t->bytes);
    } else {
        set_int(b, "peer", t->peer);
        set_int(b, "bytes", (int64_t)t->bytes);
    }
    slice_end(c);
}

/* items[0 .. n), n > 1, of one track as one slice. */
static void
put_merged(Chrome *c, const Item *items, uint32_t n, uint32_t tid)
{
    uint64_t bytes = 0, flops = 0;
    for (uint32_t i = 0; i < n; i++) {
        const WorkTask *t = work_stream_task(c->stream, items[i].task);
        bytes += t->kind == WORK_TASK_COMPUTE ? 0 : t->bytes;
        flops += t->kind == WORK_TASK_COMPUTE ? t->flops : 0;
    }
    g_autofree char *name =
        g_strdup_printf("%s (%u tasks)", work_category_name(items[0].category), n);
    JsonBuilder *b = slice_begin(c, name, items[0].category, items[0].start_ps, items[n - 1].end_ps,
                                 pid_of(c, items[0].rank), tid);
    set_int(b, "tasks", n);
    set_int(b, "first_task", items[0].task);
    set_int(b, "bytes", (int64_t)bytes);
    set_int(b, "flops", (int64_t)flops);
    slice_end(c);
}

/* Every track's slices, neighbours closer than the planned gap merged. */
static void
put_slices(Chrome *c)
{
    for (guint t = 0; t < c->tracks->len; t++) {
        const Track *track = &g_array_index(c->tracks, Track, t);
        const Item *items = &c->items[track->item0];
        for (uint32_t a = 0, b; a < track->n_items; a = b) {
            for (b = a + 1; b < track->n_items && c->any_gap &&
                            items[b].start_ps - items[b - 1].end_ps <= c->gap_ps;
                 b++)
                ;
            if (b - a == 1)
                put_task(c, &items[a], t + 1);
            else
                put_merged(c, &items[a], b - a, t + 1);
        }
    }
}

/* ---- Link counters. ---- */

static bool
links_valid(const ReportChromeOptions *o)
{
    g_return_val_if_fail(o->n_links == 0 || o->links != NULL, false);
    for (uint32_t l = 0; l < o->n_links; l++) {
        const ReportChromeLink *link = &o->links[l];
        g_return_val_if_fail(link->name != NULL, false);
        g_return_val_if_fail(link->n_samples == 0 || link->samples != NULL, false);
        for (uint32_t i = 0; i < link->n_samples; i++) {
            double u = link->samples[i].utilization;
            g_return_val_if_fail(u >= 0 && u <= 1, false); /* NaN fails too */
            g_return_val_if_fail(i == 0 || link->samples[i - 1].t_ps <= link->samples[i].t_ps,
                                 false);
        }
    }
    return true;
}

static void
put_sample(Chrome *c, const char *name, uint32_t pid, uint64_t t_ps, double utilization)
{
    /* Six decimals: the share to the ppm. */
    double ppm = (double)llround(utilization * PPM);
    JsonBuilder *b = event_begin(c);
    set_string(b, "name", name);
    set_string(b, "ph", "C");
    set_us(b, "ts", t_ps);
    set_int(b, "pid", pid);
    json_builder_set_member_name(b, "args");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "utilization");
    json_builder_add_double_value(b, ppm / PPM);
    json_builder_end_object(b);
    event_end(c);
    c->stats.n_samples_written++;
}

/* A link's samples, at most budget (>= 2) of them: windows of consecutive
 * samples averaged by the time each holds, the last sample kept. */
static void
put_link(Chrome *c, const ReportChromeLink *link, uint32_t pid, uint64_t budget)
{
    const ReportChromeSample *s = link->samples;
    uint32_t n = link->n_samples;
    if (budget == 0 || n <= budget) {
        for (uint32_t i = 0; i < n; i++)
            put_sample(c, link->name, pid, s[i].t_ps, s[i].utilization);
        return;
    }
    uint32_t w = (uint32_t)((n - 1 + (budget - 2)) / (budget - 1));
    for (uint32_t i = 0; i < n - 1; i += w) {
        uint32_t j = MIN(i + w, n - 1);
        uint64_t span_ps = s[j].t_ps - s[i].t_ps;
        double sum = 0;
        for (uint32_t k = i; k < j; k++)
            sum += s[k].utilization * (double)(s[k + 1].t_ps - s[k].t_ps);
        double u = span_ps > 0 ? sum / (double)span_ps : s[j - 1].utilization;
        put_sample(c, link->name, pid, s[i].t_ps, CLAMP(u, 0.0, 1.0));
    }
    put_sample(c, link->name, pid, s[n - 1].t_ps, s[n - 1].utilization);
}

static void
put_links(Chrome *c, uint32_t pid)
{
    const ReportChromeOptions *o = c->opts;
    if (o->n_links == 0)
        return;
    put_meta(c, "process_name", pid, -1, "links", 0);
    put_meta(c, "process_sort_index", pid, -1, NULL, pid);
    for (uint32_t l = 0; l < o->n_links; l++)
        c->stats.n_samples += o->links[l].n_samples;
    uint64_t budget = 0;
    if (o->max_samples > 0 && c->stats.n_samples > o->max_samples)
        budget = MAX(o->max_samples / o->n_links, 2);
    for (uint32_t l = 0; l < o->n_links; l++)
        put_link(c, &o->links[l], pid, budget);
    c->stats.averaged = c->stats.n_samples_written < c->stats.n_samples;
}

/* ---- The file. ---- */

static char *
note(const Chrome *c)
{
    const ReportChromeStats *s = &c->stats;
    GString *text = g_string_new(NULL);
    if (s->merged)
        g_string_append_printf(text,
                               "%" PRIu64 " tasks merged into %" PRIu64 " slices (limit %" PRIu64
                               ", one a track at least): gaps up to %" PRIu64 " ps closed",
                               s->n_tasks, s->n_events, c->opts->max_events, s->merge_gap_ps);
    if (s->averaged)
        g_string_append_printf(text,
                               "%s%" PRIu64 " link samples averaged into %" PRIu64
                               " (limit %" PRIu64 ", two a link at least)",
                               text->len > 0 ? "; " : "", s->n_samples, s->n_samples_written,
                               c->opts->max_samples);
    if (text->len == 0)
        g_string_append(text, "complete: one slice a task, every link sample");
    return g_string_free(text, FALSE);
}

/* How the file's text starts: the events follow. */
static const char HEAD[] = "{\"traceEvents\":[";

/* The rest of the object around the events, after them: printed by
 * json-glib with an empty "traceEvents" array, and what follows HEAD in
 * that text appended. */
static void
put_outer(Chrome *c)
{
    const ReportChromeStats *s = &c->stats;
    JsonBuilder *b = c->builder;
    json_builder_reset(b);
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "traceEvents");
    json_builder_begin_array(b);
    json_builder_end_array(b);
    set_string(b, "displayTimeUnit", "ns");
    json_builder_set_member_name(b, "metadata");
    json_builder_begin_object(b);
    set_string(b, "generator", "nvlsim");
    if (c->opts->title != NULL)
        set_string(b, "title", c->opts->title);
    set_int(b, "tasks", (int64_t)s->n_tasks);
    set_int(b, "events", (int64_t)s->n_events);
    set_int(b, "tracks", s->n_tracks);
    set_int(b, "max_events", (int64_t)c->opts->max_events);
    set_bool(b, "merged", s->merged);
    set_int(b, "merge_gap_ps", (int64_t)s->merge_gap_ps);
    set_int(b, "link_samples", (int64_t)s->n_samples);
    set_int(b, "link_samples_written", (int64_t)s->n_samples_written);
    set_int(b, "max_samples", (int64_t)c->opts->max_samples);
    set_bool(b, "averaged", s->averaged);
    g_autofree char *text = note(c);
    set_string(b, "note", text);
    json_builder_end_object(b);
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    json_generator_set_root(c->writer, root);
    g_autofree char *outer = json_generator_to_data(c->writer, NULL);
    g_assert(g_str_has_prefix(outer, HEAD));
    g_string_append_printf(c->out, "\n%s\n", outer + strlen(HEAD));
}

void
report_chrome_options_init(ReportChromeOptions *opts)
{
    *opts = (ReportChromeOptions){
        .max_events = REPORT_CHROME_MAX_EVENTS,
        .max_samples = REPORT_CHROME_MAX_SAMPLES,
    };
}

bool
report_chrome_write(const WorkStream *stream, const WorkReplayResult *result,
                    const ReportChromeOptions *opts, const char *path, ReportChromeStats *stats,
                    GError **error)
{
    g_return_val_if_fail(stream != NULL && result != NULL && path != NULL, false);
    g_return_val_if_fail(result->start_ps != NULL && result->end_ps != NULL &&
                             result->start_ps->len == stream->tasks->len &&
                             result->end_ps->len == stream->tasks->len,
                         false);
    ReportChromeOptions defaults;
    report_chrome_options_init(&defaults);
    Chrome c = {.stream = stream, .opts = opts != NULL ? opts : &defaults, .first = true};
    if (!links_valid(c.opts))
        return false;
    build_tracks(&c, result);
    plan_merging(&c);
    c.builder = json_builder_new();
    c.writer = json_generator_new();
    c.out = g_string_new(HEAD);
    put_names(&c);
    put_slices(&c);
    uint32_t n_pids = 0;
    if (c.tracks->len > 0) {
        const Track *last = &g_array_index(c.tracks, Track, c.tracks->len - 1);
        n_pids = pid_of(&c, last->rank) + 1;
    }
    put_links(&c, n_pids);
    put_outer(&c);
    /* Written to a temporary beside path and renamed into place (an
     * interrupt removes it). */
    bool ok = sim_output_write_all(path, c.out->str, c.out->len, error);
    if (ok && stats != NULL)
        *stats = c.stats;
    g_string_free(c.out, TRUE);
    g_object_unref(c.writer);
    g_object_unref(c.builder);
    g_array_unref(c.tracks);
    g_free(c.items);
    return ok;
}

/* ---- Link load into counter tracks. ---- */

ReportChromeLink *
report_chrome_links_from_load(const TopoGraph *graph, const NetLinkLoad *load, uint64_t end_ps,
                              uint32_t *n_links)
{
    GArray *links = g_array_new(FALSE, TRUE, sizeof(ReportChromeLink));
    for (uint32_t l = 0; l < load->n_links; l++) {
        const double *bytes = &load->wire_bytes[(size_t)l * load->max_bins];
        bool used = false;
        for (uint32_t k = 0; k < load->n_bins && !used; k++)
            used = bytes[k] > 0;
        if (!used)
            continue;
        const TopoLink *link = topo_graph_link(graph, l);
        double per_bin = (double)link->bytes_per_s * (double)load->bin_ps / 1e12;
        ReportChromeSample *samples = g_new(ReportChromeSample, load->n_bins + 1);
        for (uint32_t k = 0; k < load->n_bins; k++)
            samples[k] = (ReportChromeSample){(uint64_t)k * load->bin_ps,
                                              per_bin > 0 ? MIN(bytes[k] / per_bin, 1.0) : 0.0};
        samples[load->n_bins] =
            (ReportChromeSample){MAX(end_ps, (uint64_t)load->n_bins * load->bin_ps), 0.0};
        ReportChromeLink one = {.name = topo_graph_link_name(graph, l),
                                .samples = samples,
                                .n_samples = load->n_bins + 1};
        g_array_append_val(links, one);
    }
    *n_links = links->len;
    return (ReportChromeLink *)g_array_free(links, FALSE);
}

void
report_chrome_links_free(ReportChromeLink *links, uint32_t n_links)
{
    for (uint32_t i = 0; links != NULL && i < n_links; i++) {
        g_free((char *)links[i].name);
        g_free((ReportChromeSample *)links[i].samples);
    }
    g_free(links);
}

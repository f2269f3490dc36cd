/* SPDX-License-Identifier: Apache-2.0 */
/* Timelines: a replayed step (work-replay.h) as Chrome trace-event JSON,
 * which Perfetto (ui.perfetto.dev) and chrome://tracing open.
 *
 * Format. One JSON object:
 *
 *   {"traceEvents":[...],"displayTimeUnit":"ns","metadata":{...}}
 *
 * Processes are nodes (pid n: "node n", GPUs n * gpus_per_node ..), and a
 * last process "links" when link samples are given. Threads are tracks: a
 * GPU (a detailed rank) has one track per category it has tasks of
 * ("GPU 3 compute", "GPU 3 tp", "GPU 3 pp", "GPU 3 dp", "GPU 3 ep"), and
 * more ("GPU 3 pp #2") where tasks of one category overlap in time (a send
 * and a receive at once, a data-parallel call across several tasks), since
 * the slices of one track must not overlap. tid is the track's number from
 * 1, unique over the trace; a GPU's tracks are adjacent.
 *
 *   "ph":"M"  process_name, process_sort_index, thread_name,
 *             thread_sort_index: the names above.
 *   "ph":"X"  a task: "ts" its start, "dur" its end less its start, in
 *             microseconds, the double nearest the picosecond value as
 *             json-glib prints it (17 digits: "ts":1234.0005000000001
 *             is 1234000500 ps; exact below 2^52 ps); "name" its label, or
 *             its kind when it has none; "cat" its category (compute, tp,
 *             pp, dp, ep); "args": "task" (its index in the stream),
 *             "kind", and by kind "flops" (compute), "op", "group" and
 *             "bytes" (coll), "peer" and "bytes" (send, recv). A
 *             collective task spans its call: from when every member has
 *             reached it to when it ends.
 *   "ph":"C"  a link's utilization, one counter per link named by the
 *             link, "args":{"utilization":U}, U in [0, 1] rounded to six
 *             decimals; each sample holds until the next.
 *
 * Size. Past max_events task slices, neighbouring slices of a track merge:
 * the gaps between them are closed smallest first, until the slices fit
 * (one slice a track at least). A merged slice is named "CATEGORY (N
 * tasks)" and its args give "tasks", "first_task", and the sums of
 * "bytes" and "flops". Past max_samples link samples in all, each link's
 * samples are averaged over windows of consecutive samples (weighted by
 * the time each holds; a link's last sample is kept as it is). The
 * metadata says what was done: "tasks", "events", "tracks", "max_events",
 * "merged", "merge_gap_ps" (the widest gap closed), "link_samples",
 * "link_samples_written", "max_samples", "averaged", and a "note" in
 * words.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "topo/topo-graph.h"
#include "work/work-replay.h"
#include "work/work-stream.h"

#define REPORT_CHROME_MAX_EVENTS UINT64_C(200000)
#define REPORT_CHROME_MAX_SAMPLES UINT64_C(200000)

/* A link's utilization from t_ps until the next sample's t_ps: the share
 * of its capacity in use, in [0, 1]. */
typedef struct ReportChromeSample {
    uint64_t t_ps;
    double utilization;
} ReportChromeSample;

/* One link's counter track: its name ("node0 gpu3 -> nvswitch1") and its
 * samples in ascending t_ps. Borrowed. */
typedef struct ReportChromeLink {
    const char *name;
    const ReportChromeSample *samples;
    uint32_t n_samples;
} ReportChromeLink;

typedef struct ReportChromeOptions {
    uint32_t gpus_per_node;        /* ranks per process; 0: one process, "GPUs" */
    uint64_t max_events;           /* task slices before merging; 0: no limit */
    uint64_t max_samples;          /* link samples before averaging; 0: no limit */
    const ReportChromeLink *links; /* n_links counter tracks, or NULL; borrowed */
    uint32_t n_links;
    const char *title; /* metadata "title" (the scenario's name), or NULL */
} ReportChromeOptions;

/* What was written, for a note to the user. */
typedef struct ReportChromeStats {
    uint64_t n_tasks;      /* slices before merging: the stream's tasks */
    uint64_t n_events;     /* slices written */
    uint32_t n_tracks;     /* GPU tracks */
    bool merged;           /* n_events < n_tasks */
    uint64_t merge_gap_ps; /* the widest gap merging closed; 0 when none */
    uint64_t n_samples;    /* link samples given */
    uint64_t n_samples_written;
    bool averaged; /* n_samples_written < n_samples */
} ReportChromeStats;

/* Defaults: one process, REPORT_CHROME_MAX_EVENTS, REPORT_CHROME_MAX_SAMPLES,
 * no links, no title. */
void report_chrome_options_init(ReportChromeOptions *opts);

/* Counter tracks from a replay's link load (work_replay_sampled): for
 * every link that carried bytes, its utilization in each bin (wire bytes
 * over what the link moves in a bin, at most 1) and 0 at end_ps; named
 * by its ends ("node0 gpu3 -> node0 nvswitch1", "fabric leaf2 -> fabric
 * spine0"). Returns the links (*n_links of them); free with
 * report_chrome_links_free. */
ReportChromeLink *report_chrome_links_from_load(const TopoGraph *graph, const NetLinkLoad *load,
                                                uint64_t end_ps, uint32_t *n_links);
void report_chrome_links_free(ReportChromeLink *links, uint32_t n_links);

/* Writes the timeline of stream as replayed into result (its start_ps and
 * end_ps) to path: all of it or nothing (a temporary file beside path,
 * renamed into place). opts may be NULL (the defaults); stats, when not
 * NULL, is filled on success. False and error, naming path, when the file
 * cannot be written. Link samples must be in [0, 1] and ascending in time
 * (a bug otherwise). */
bool report_chrome_write(const WorkStream *stream, const WorkReplayResult *result,
                         const ReportChromeOptions *opts, const char *path,
                         ReportChromeStats *stats, GError **error);

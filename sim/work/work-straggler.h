/* SPDX-License-Identifier: Apache-2.0 */
/* Stragglers: GPUs of a training job that compute slower than the others
 * or start each step late, described by a scenario's [stragglers] group
 * (work-scenario.h) and applied by the replayer (work-replay.h) to the
 * compute tasks of those GPUs. Their peers wait for them wherever the
 * stream makes them wait (a collective starts when every member has
 * arrived); nothing else about them changes.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "work/work-stream.h"

/* Each compute task of a straggler takes its time / compute_rate (rounded
 * to the nearest ps), and its first compute task of the step starts
 * delay_ps late (a late data loader, a hiccup: the GPU idles). A
 * straggler must have compute tasks of its own (not be a replica,
 * work-stream.h). */
typedef struct WorkStragglers {
    uint32_t n_gpus;
    uint32_t *gpus; /* GPUs (ranks) of the job, ascending, distinct */
    uint32_t n_hosts;
    uint32_t *hosts;     /* hosts of the job (a slow tray or server: all its GPUs), ascending,
                            distinct; work_stragglers_place makes them GPUs */
    double compute_rate; /* share of its compute rate a straggler keeps, in (0, 1] */
    uint64_t delay_ps;   /* added once a step, before its first compute */
} WorkStragglers;

/* Whether stragglers (may be NULL) change anything: some GPU or host, and
 * a rate below 1 or a delay. */
bool work_stragglers_active(const WorkStragglers *stragglers);

/* The numbers of list (an array of uint32_t) ascending and distinct, as
 * a new array of *n (at least one slot). */
uint32_t *work_stragglers_distinct(GArray *list, uint32_t *n);

/* st with its hosts made GPUs, into out (its own gpus; no hosts): the job's
 * ranks fill its n_hosts hosts gpus_per_host at a time, in order (the
 * last may hold fewer, of n_gpus in all), so host h holds ranks
 * h * gpus_per_host onwards. An error naming [stragglers] hosts when a
 * host is not one of the job's. */
bool work_stragglers_place(const WorkStragglers *st, uint32_t n_gpus, uint32_t n_hosts,
                           uint32_t gpus_per_host, WorkStragglers *out, GError **error);

/* One line for reports: "GPU 3: at 0.5 of its compute rate, 5 ms late
 * each step". */
char *work_stragglers_describe(const WorkStragglers *stragglers);

/* Applies stragglers (may be NULL) to the compute tasks of stream:
 * duration[task] (ps, per task, as the replayer holds them) divided by the
 * rate, and late_ps[gpu] (per GPU of the job, zeroed by the caller) set to
 * the delay; x indexes the stream's compute tasks per rank. An error
 * "[stragglers] ranks: ..." for a straggler outside the job or without
 * compute of its own. */
bool work_stragglers_apply(const WorkStragglers *stragglers, const WorkStream *stream,
                           const WorkIndex *x, uint64_t *duration, uint64_t *late_ps,
                           GError **error);

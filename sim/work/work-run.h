/* SPDX-License-Identifier: Apache-2.0 */
/* One scenario simulated: the step generated (or a trace read), replayed
 * on the system, and the figures a planner asks for: step time, tokens per
 * second, TFLOP/s per GPU and MFU, memory per GPU, and where the time
 * goes.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "hw/hw-system.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"
#include "topo/topo-world.h"
#include "work/work-cache.h"
#include "work/work-memory.h"
#include "work/work-replay.h"
#include "work/work-scenario.h"
#include "work/work-stream.h"

typedef struct WorkRunResult {
    uint32_t n_gpus;
    uint32_t n_hosts;   /* hosts (nodes, as schedulers count them) the job spans */
    uint32_t n_domains; /* NVLink domains */
    uint32_t n_tasks;
    WorkReplayResult replay;
    double step_s;
    /* Generated steps only (0 for a trace): */
    double tokens_per_s;
    double tflops_per_gpu; /* Megatron's count: recomputed blocks included with full recompute */
    double mfu;            /* model FLOPs (no recompute) / (GPUs x the peak of the fastest math run:
                            * bf16, or the linear layers' fp8 or fp4) */
    WorkMemory memory;     /* the most loaded stage */
    bool fits;
    /* The analytic tier's steady state (work-run.c): the microbatches of
     * the two replays the step was extended from; 0 when it was replayed
     * whole. */
    uint32_t replayed_microbatches[2];
} WorkRunResult;

void work_run_result_clear(WorkRunResult *result);

/* The step of scenario s (which names no trace: work_trace_read reads
 * those), generated from its model and layout for gpu, and checked; the
 * check's match in match_out unless it is NULL. NULL and an error when
 * the check fails (a bug). */
WorkStream *work_run_stream(const WorkScenario *s, const HwGpu *gpu, WorkMatch **match_out,
                            GError **error);

/* Scenario s simulated: its system loaded (by id or path, the
 * models' search path) and checked against the scenario (a loopback
 * system, faults that do not fit it, a precision its GPU lacks), its
 * trace read or its step generated, the world built for the step's GPUs
 * placed on hosts and NVLink domains (s->nodes hosts, s->domains; the
 * defaults of topo-place.h) and the step replayed. cache (or NULL):
 * worlds and call shapes shared with other runs, a world with faults
 * excepted. world_out and stream_out, when not NULL, receive the world (a
 * reference) and the stream (the caller frees them). At the analytic
 * tier (with s->steady, and neither a stream nor link loads asked for) a
 * generated step of enough microbatches is two shorter replays extended
 * to its microbatches (work-run.c: the steady state). False and an error
 * naming the scenario's file on bad input. */
bool work_run_scenario(const WorkScenario *s, WorkCache *cache, TopoWorld **world_out,
                       WorkRunResult *result, WorkStream **stream_out, GError **error);

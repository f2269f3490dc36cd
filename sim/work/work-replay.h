/* SPDX-License-Identifier: Apache-2.0 */
/* The replayer: runs an operation stream (work-stream.h) on one simulated
 * system, every GPU's compute and every call's traffic on one engine and
 * one network, so that calls of different groups that share links slow
 * each other down.
 *
 * A compute task takes its duration (a trace task that gives FLOPs only
 * runs at the GPU's fp16 peak times its cuBLAS ceiling). Calls go through
 * a collective session (coll-session.h), prepared before the run, once
 * per shape (op, bytes, the group's GPUs within their nodes, nodes; on
 * the system's first nodes): a collective takes what the collectives
 * layer simulates for it alone (coll_run: NCCL's algorithm, protocol,
 * channels and launch cost), plus whatever contention adds: while it runs,
 * its schedule's traffic is on the shared network, one flow per
 * connection of that algorithm, and the call ends as much later than
 * alone as those flows end later than they do alone. A transfer is its
 * flow, plus the system's launch cost of a call. A group must put as many
 * GPUs on each node it touches.
 *
 * Replicas (work-stream.h): a call whose group has members without tasks
 * runs over all of them; a call or transfer of detailed ranks only is also
 * put on the network for every other replica (shifted by the stride) whose
 * flows share a link with the detailed ranks' traffic, as load.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "coll/coll-session.h"
#include "hw/hw-system.h"
#include "net/net.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"
#include "work/work-straggler.h"
#include "work/work-stream.h"

/* Where a rank's time goes: its compute, then what it waits on while not
 * computing, in this order of precedence: a TP collective, a CP
 * (ring-attention) transfer, an EP all-to-all, a PP transfer, a DP
 * collective; idle is waiting with nothing of its own moving (the pipeline
 * bubble, a peer that is late). */
typedef enum WorkTime {
    WORK_TIME_COMPUTE,
    WORK_TIME_TP,
    WORK_TIME_PP,
    WORK_TIME_DP,
    WORK_TIME_EP,
    WORK_TIME_CP,
    WORK_TIME_IDLE,
    WORK_N_TIMES,
} WorkTime;

const char *work_time_name(WorkTime time);

/* Events the replay runs without a task finishing before it stops as a
 * livelock (the engine's watchdog). */
#define WORK_REPLAY_WATCHDOG_EVENTS UINT64_C(100000000)

typedef struct WorkReplayResult {
    uint64_t step_ps;                    /* the last task's end */
    uint64_t time_ps[WORK_N_TIMES];      /* mean over detailed ranks; they sum to step_ps */
    uint64_t rank_time_ps[WORK_N_TIMES]; /* the same for the first detailed rank */
    uint32_t n_detailed;                 /* ranks with tasks */
    uint64_t n_calls, n_flows, n_mirror_flows, n_shapes; /* shapes: calls simulated alone */
    uint64_t n_events;
    uint64_t flops;            /* of every compute task */
    /* Mean over detailed ranks: what their compute took beyond its time
     * alone, beside collectives (the SMs their CTAs hold, the HBM their
     * traffic shares); part of time_ps[WORK_TIME_COMPUTE]. */
    uint64_t slowed_ps;
    GArray *start_ps, *end_ps; /* uint64_t per task; a call's tasks start when it does */
    NetLinkLoad *link_load;    /* work_replay_sampled: every link's wire bytes over time, or NULL */
} WorkReplayResult;

void work_replay_result_clear(WorkReplayResult *result);

/* Fills result's time_ps, rank_time_ps and n_detailed from its step_ps and
 * every task's start_ps and end_ps (work-breakdown.c): what each detailed
 * rank of s was doing at every instant of the step. */
void work_replay_breakdown(const WorkStream *s, WorkReplayResult *result);

/* Replays stream (which must pass work_stream_check) on graph (built for
 * system with enough nodes for stream->n_gpus). Errors: a collective the
 * collectives layer cannot run on its group (the group's GPUs unevenly
 * spread over nodes, an op it does not simulate); a step that cannot
 * finish (SIM_ERROR_STALLED, naming the first stuck task and the links
 * still holding data). */
bool work_replay(const WorkStream *stream, const HwSystem *system, const TopoGraph *graph,
                 const TopoRouter *router, NetFidelity fidelity, WorkReplayResult *result,
                 GError **error);

/* Bins of the link load work_replay_sampled keeps (doubling their width
 * when the step outlasts them). */
#define WORK_REPLAY_LINK_BINS 1024

/* The most compute one rank may do in a step, in ps (2^62 ps, about 53
 * days: a quarter of the simulated clock, leaving room for waits and
 * communication); a longer stream is an error before the run. */
#define WORK_REPLAY_MAX_COMPUTE_PS (UINT64_C(1) << 62)

/* Compute beside a collective (work-replay.c says how and from what
 * measurement): a persistent GEMM's slowdown beyond the SMs it loses, and
 * the unit of a compute task's rate (picoseconds per full-rate one). */
#define WORK_REPLAY_GEMM_BESIDE_CTAS 1.210
#define WORK_REPLAY_RATE_ONE (UINT64_C(1) << 20)

/* A compute task's picoseconds per full-rate picosecond beside a
 * collective: (1 - f) g S / (S - c) + f (1 + D / B), f its memory share, g
 * its GEMMs' slowdown beyond the SMs they lose (WORK_REPLAY_GEMM_BESIDE_CTAS
 * on GPUs with persistent GEMMs, 1 before), S the SMs, c < S the CTAs the
 * collective holds, hbm_ratio D / B its HBM bytes a second over the GPU's
 * streaming rate. The replayer and nvlsim calibrate interference both
 * take it from here. */
double work_replay_slowdown(double g, double f, double sms, double ctas, double hbm_ratio);

/* The same, also counting every link's wire bytes on the shared network
 * (the session's flows: each call's connections and replica copies, not
 * the per-shape runs of the collectives layer) in bins of
 * link_bin_ps (0: not counted) into result->link_load. */
bool work_replay_sampled(const WorkStream *stream, const HwSystem *system, const TopoGraph *graph,
                         const TopoRouter *router, NetFidelity fidelity, uint64_t link_bin_ps,
                         WorkReplayResult *result, GError **error);

/* How a step is replayed: at fidelity (or analytic); link_bin_ps as for
 * work_replay_sampled; stragglers (NULL: none); shapes: call shapes
 * shared with other replays on the same graph (NULL: the replay's own);
 * match: the stream's, when its check made one.
 * Errors also: a straggler beyond the job's GPUs, or without compute
 * tasks of its own.
 *
 * analytic: the step's tasks in the same order and by the same rules, but
 * with no traffic on a shared network: each call takes its time alone
 * (the collectives layer at flow fidelity, or a transfer's flow and
 * launch, simulated once per shape as always), stretched when it starts
 * by the closed form of coll-session.h: the worst ratio of what the calls
 * and replicas' copies in flight ask of one of its links to what the link
 * carries. The cost is the task graph's, not its flows'. What it leaves
 * out is that a call slows the ones already running, and max-min's
 * sharing between unequal flows: the flow replay's step over the analytic
 * one is that (nvlsim explain run prints it). */
typedef struct WorkReplayOptions {
    NetFidelity fidelity;
    bool analytic;
    uint64_t link_bin_ps;
    const WorkStragglers *stragglers;
    CollShapes *shapes;
    const WorkMatch *match; /* the stream's calls (work_match_new), or NULL: matched here */
} WorkReplayOptions;

bool work_replay_with(const WorkStream *stream, const HwSystem *system, const TopoGraph *graph,
                      const TopoRouter *router, const WorkReplayOptions *options,
                      WorkReplayResult *result, GError **error);

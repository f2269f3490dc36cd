/* SPDX-License-Identifier: Apache-2.0 */
/* The replayer's state (work-replay.c runs the step; work-replay-traffic.c
 * lays out each call's traffic and its cost alone, and which replicas'
 * traffic meets the detailed ranks'). Private to the two files. */
#pragma once

#include "coll/coll-run.h"
#include "coll/coll-tune.h"
#include "core/core-engine.h"
#include "core/core-memory.h"
#include "core/core-time.h"
#include "work/work-compute.h"
#include "work/work-replay.h"

/* One flow of a call's traffic, between GPUs. */
typedef struct Flow {
    uint32_t src, dst;
    uint64_t bytes;
} Flow;

/* A call's cost alone: what the collectives layer (or a transfer's flow
 * and launch) takes, and what its flows take. */
typedef struct Shape {
    uint64_t total_ps;
    uint64_t flows_ps;
    double flow_scale;   /* of the pattern's bytes, so that the flows alone fit the call */
    uint32_t n_channels; /* a collective's: NCCL's kernel runs one CTA a channel on each GPU */
} Shape;

typedef struct CallState {
    uint32_t n_arrived;
    uint32_t flows_left;
    bool started, done;
    uint64_t t0;
    const Shape *shape;
} CallState;

typedef struct Replay {
    const WorkStream *s;
    const WorkMatch *m;
    const HwSystem *system;
    const TopoGraph *graph;
    const TopoRouter *router;
    NetFidelity fidelity;
    bool analytic; /* no shared network: calls take their time alone */
    SimEngine *engine;
    NetModel *net;
    SimHandlerId h_compute, h_flow, h_mirror, h_call_end;
    uint32_t per_node;
    /* Tasks. */
    WorkIndex *x;
    uint32_t *deps_left;
    uint64_t *start, *end, *duration;
    bool *ready;
    /* Ranks. */
    uint32_t *next_compute; /* per rank: into x->compute_list */
    bool *busy;
    /* Interference: the SMs NCCL's kernels hold on each GPU, and its
     * compute task's progress (full-rate picoseconds left at `since`;
     * `epoch` tells the task's current end event from stale ones). */
    uint32_t n_sms;
    uint32_t *ctas;
    uint32_t *running; /* task, or WORK_NONE */
    uint64_t *left_ps, *since, *epoch;
    uint64_t *late_ps; /* per rank: its first compute starts this late (stragglers); or NULL */
    /* Calls. */
    CallState *calls;
    GHashTable *shapes;      /* key string -> Shape */
    guint8 *used;            /* bitset over links: the detailed ranks' traffic */
    uint32_t n_copies;       /* of the detailed ranks, theirs included */
    uint32_t *call_instance; /* per call: its group, or its pair */
    uint32_t n_instances;
    GArray *instance_call;      /* uint32_t: a call of each instance */
    guint8 *copy_memo;          /* [instance x copy]: 0 unknown, 1 issue its traffic, 2 not */
    GPtrArray *instance_shapes; /* per instance, GArray of InstanceShape */
    uint64_t launch_ps;
    GError *error;
    uint32_t n_done; /* tasks finished */
    uint64_t n_flows, n_mirror_flows;
} Replay;

/* The flows of call's traffic (shifted by shift GPUs, bytes times scale):
 * a GArray of Flow. */
GArray *replay_pattern(const Replay *r, uint32_t call, uint32_t shift, double scale);
/* Starts flows on net, each ending with an event of handler h for target. */
void replay_issue(NetModel *net, const TopoGraph *graph, const GArray *flows, SimHandlerId h,
                  uint32_t target);
/* The call's cost alone, computed once per shape. */
const Shape *replay_shape_of(Replay *r, uint32_t call);
/* Each call's instance (its group, or its pair of ranks) and the shapes
 * each instance has used; which links the detailed ranks' traffic uses;
 * whether copy i of the job's traffic for call meets it. */
void replay_index_instances(Replay *r);
void replay_shapes_init(Replay *r);
void replay_mark_used(Replay *r);
bool replay_copy_needed(Replay *r, uint32_t call, uint32_t i);

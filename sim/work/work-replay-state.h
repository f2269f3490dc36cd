/* SPDX-License-Identifier: Apache-2.0 */
/* The replayer's state (work-replay.c runs the step; work-replay-traffic.c
 * prepares each call's shape with the collective session, and finds which
 * replicas' traffic meets the detailed ranks'). Private to the two files. */
#pragma once

#include "coll/coll-session.h"
#include "core/core-engine.h"
#include "core/core-memory.h"
#include "core/core-time.h"
#include "work/work-compute.h"
#include "work/work-replay.h"

typedef struct CallState {
    uint32_t n_arrived;
    bool started, done;
    /* Set at its start: the SMs it holds and the HBM bytes a second it
     * moves on each of its GPUs while it runs (work-replay.c). */
    uint32_t ctas;
    uint64_t hbm_bytes_per_s;
} CallState;

typedef struct Replay {
    const WorkStream *s;
    const WorkMatch *m;
    const HwSystem *system;
    const TopoGraph *graph;
    const TopoRouter *router;
    NetFidelity fidelity;
    SimEngine *engine;
    NetModel *net;
    CollSession *session; /* the calls' costs alone and their traffic */
    SimHandlerId h_compute, h_call_end;
    /* Tasks. */
    WorkIndex *x;
    uint32_t *deps_left;
    uint64_t *start, *end, *duration;
    bool *ready;
    /* Ranks. */
    uint32_t *next_compute; /* per rank: into x->compute_list */
    bool *busy;
    /* Interference: the SMs NCCL's kernels hold on each GPU and the HBM
     * bytes a second their traffic moves there, and its compute task's
     * progress (full-rate picoseconds left at `since`; `epoch` tells the
     * task's current end event from stale ones). */
    uint32_t n_sms;
    bool persistent;          /* the GPU's GEMMs are persistent kernels (Hopper on) */
    uint64_t stream_bytes_per_s; /* what the GPU's streaming kernels move */
    uint32_t *ctas;
    uint64_t *hbm_bytes_per_s;
    uint32_t *running; /* task, or WORK_NONE */
    uint64_t *left_ps, *since, *epoch;
    uint64_t *late_ps; /* per rank: its first compute starts this late (stragglers); or NULL */
    /* Calls. */
    CallState *calls;
    uint32_t *call_shape;    /* per call: its shape in the session */
    uint32_t *call_place;    /* per call: its place in the session */
    uint32_t n_copies;       /* of the detailed ranks, theirs included */
    uint32_t *call_instance; /* per call: its group, or its pair */
    uint32_t n_instances;
    GArray *instance_call; /* uint32_t: a call of each instance */
    GError *error;
    uint32_t n_done; /* tasks finished */
} Replay;

/* The GPUs of a call: its group's ranks, or a transfer's source and
 * destination (in pair). */
uint32_t replay_call_gpus(const Replay *r, uint32_t call, const uint32_t **gpus, uint32_t pair[2]);
/* Each call's instance (its group, or its pair of ranks); every call's
 * shape, prepared in the session before the run (false and error when
 * one cannot run); every call's place in the session (once an instance
 * and shape), with the copies of the job's traffic that meet the
 * detailed ranks' links. */
void replay_index_instances(Replay *r);
bool replay_prepare(Replay *r, GError **error);
void replay_place(Replay *r);

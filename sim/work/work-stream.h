/* SPDX-License-Identifier: Apache-2.0 */
/* Operation streams: what each GPU of a training job does in one step, as
 * tasks with dependencies. A generator (work-gen) writes them from a model
 * and a layout; a trace (work-trace) reads them from a CSV file; the
 * replayer (work-replay) runs them over the simulated fabric. Description
 * only.
 *
 * Ranks are GPU indices of the system (rank r runs on GPU r: node
 * r / GPUs per node). A rank with tasks is detailed. A rank named only as a
 * member of a group is a replica: it does what the detailed members do, at
 * the same time, and is taken to reach each collective of the group when
 * they do (its traffic is simulated, its compute is not). Ranks with tasks
 * may also stand for replicas along up to WORK_REPLICA_AXES axes: with
 * replicas[a] = {count, stride}, the GPUs rank + k_0 stride_0 + k_1
 * stride_1 (0 <= k_a < count_a, not all 0) run the detailed ranks' stream,
 * and their traffic is put on the fabric where it shares links with the
 * detailed ranks' traffic (Megatron's data replicas, stride tp; the other
 * ranks of a tensor group, stride 1).
 *
 * Semantics, as CUDA streams and NCCL give them:
 *   - a task starts once every task it depends on (of the same rank) has
 *     finished;
 *   - COMPUTE tasks of a rank run one at a time, in stream order (one
 *     compute stream);
 *   - the k-th COLL task of every detailed member of a group is the same
 *     call (same op and bytes); calls on a group run one at a time, in
 *     order (one NCCL communicator), and a call starts when every detailed
 *     member has started its task;
 *   - the k-th SEND from rank a to rank b pairs with the k-th RECV on b from
 *     a (same bytes); the transfer starts when both have started and ends
 *     both.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "coll/coll.h"

typedef enum WorkTaskKind {
    WORK_TASK_COMPUTE, /* kernels on the GPU for duration_ps */
    WORK_TASK_COLL,    /* a collective call on a group */
    WORK_TASK_SEND,    /* bytes to peer */
    WORK_TASK_RECV,    /* bytes from peer */
    WORK_N_TASK_KINDS,
} WorkTaskKind;

/* What a task serves, for the breakdown of a step. */
typedef enum WorkCategory {
    WORK_CAT_COMPUTE,
    WORK_CAT_TP, /* tensor (and sequence) parallel collectives */
    WORK_CAT_PP, /* pipeline activations and gradients */
    WORK_CAT_DP, /* data-parallel gradients and ZeRO gathers */
    WORK_CAT_EP, /* expert-parallel all-to-alls */
    WORK_CAT_CP, /* context parallelism's ring-attention transfers */
    WORK_N_CATEGORIES,
} WorkCategory;

#define WORK_NONE UINT32_MAX

typedef struct WorkTask {
    WorkTaskKind kind;
    WorkCategory category;
    uint32_t rank;
    uint32_t group; /* COLL: index into the stream's groups; WORK_NONE otherwise */
    uint32_t peer;  /* SEND, RECV: the other rank; WORK_NONE otherwise */
    CollOp op;      /* COLL; nccl-tests' sizes: all_gather and reduce_scatter the whole buffer */
    uint64_t bytes; /* COLL, SEND, RECV */
    uint64_t duration_ps;  /* COMPUTE */
    uint64_t flops;        /* COMPUTE: the model FLOPs it does (for TFLOP/s and MFU) */
    uint32_t dep0, n_deps; /* its dependencies: stream->deps[dep0 .. dep0 + n_deps) */
    uint32_t label;        /* index into stream->labels ("fwd mb3 chunk0 attn") */
    /* COLL: the SMs its kernels hold while it runs, which the compute beside
     * it does without (Transformer Engine's userbuffers overlap: its
     * num_sm); 0: NCCL's kernel, one CTA a channel of the call. */
    uint16_t sms;
    /* COMPUTE: the share of its time spent in memory-bound kernels, in
     * parts of WORK_SHARE_ONE. Beside a collective those kernels lose no
     * speed to its SMs but share HBM with its traffic (work-replay.c). */
    uint16_t memory_share;
} WorkTask;

/* A memory_share of the whole task. */
#define WORK_SHARE_ONE 10000

typedef struct WorkGroup {
    WorkCategory category;
    uint32_t n_ranks;
    uint32_t *ranks; /* ascending GPU indices */
} WorkGroup;

#define WORK_REPLICA_AXES 2

typedef struct WorkReplicas {
    uint32_t count;  /* copies along the axis, the detailed ranks' included; 1: none */
    uint32_t stride; /* GPUs between copies; 0 when count is 1 */
} WorkReplicas;

typedef struct WorkStream {
    uint32_t n_gpus; /* GPUs of the job: ranks are below it */
    WorkReplicas replicas[WORK_REPLICA_AXES];
    GArray *tasks;           /* WorkTask; a rank's tasks in issue order */
    GArray *deps;            /* uint32_t task indices */
    GPtrArray *groups;       /* WorkGroup * */
    GPtrArray *labels;       /* char *; index 0 is "" */
    GHashTable *label_index; /* label -> index + 1 */
} WorkStream;

WorkStream *work_stream_new(uint32_t n_gpus);
void work_stream_free(WorkStream *stream);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(WorkStream, work_stream_free)

/* Adds a group of n_ranks distinct ranks (copied, sorted) and returns its
 * index; an existing group with the same ranks and category is reused. */
uint32_t work_stream_group(WorkStream *stream, WorkCategory category, const uint32_t *ranks,
                           uint32_t n_ranks);

/* Appends a task (task->dep0, n_deps and label are set here) depending on
 * deps[0 .. n_deps) (tasks of the same rank, earlier in the stream) and
 * returns its index. label may be NULL. */
uint32_t work_stream_add(WorkStream *stream, const WorkTask *task, const uint32_t *deps,
                         uint32_t n_deps, const char *label);

static inline const WorkTask *
work_stream_task(const WorkStream *stream, uint32_t i)
{
    return &g_array_index(stream->tasks, WorkTask, i);
}

static inline const char *
work_stream_label(const WorkStream *stream, const WorkTask *task)
{
    return stream->labels->pdata[task->label];
}

/* How the tasks meet: a call is one collective call of a group (its
 * detailed members' k-th tasks on it) or one transfer (a SEND and its
 * RECV). Every COLL, SEND and RECV task belongs to exactly one call. */
typedef struct WorkCall {
    uint32_t group;   /* WORK_NONE for a transfer */
    uint32_t prev;    /* the group's previous call (runs before this one), or WORK_NONE */
    uint32_t task0;   /* into match->call_tasks */
    uint32_t n_tasks; /* detailed members (a transfer: 2, the SEND first) */
} WorkCall;

typedef struct WorkMatch {
    GArray *calls;      /* WorkCall */
    GArray *call_tasks; /* uint32_t task indices */
    GArray *task_call;  /* uint32_t per task: its call, WORK_NONE for COMPUTE */
} WorkMatch;

/* Pairs the tasks into calls; NULL and an error naming the tasks when the
 * members of a group disagree (op, bytes, number of calls) or a SEND has
 * no RECV of the same bytes. */
WorkMatch *work_match_new(const WorkStream *stream, GError **error);
void work_match_free(WorkMatch *match);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(WorkMatch, work_match_free)

/* Who waits for whom, as compressed rows: the tasks that depend on task i
 * are dependents[dependents0[i] .. dependents0[i + 1]); rank g's compute
 * tasks, in stream order, compute_list[compute0[g] .. compute0[g + 1]). */
typedef struct WorkIndex {
    uint32_t *dependents0; /* [n_tasks + 1] */
    uint32_t *dependents;
    uint32_t *compute0; /* [n_gpus + 1] */
    uint32_t *compute_list;
} WorkIndex;

WorkIndex *work_index_new(const WorkStream *stream);
void work_index_free(WorkIndex *index);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(WorkIndex, work_index_free)

/* Checks what the replayer relies on: ranks below n_gpus, dependencies on
 * earlier tasks of the same rank, groups whose detailed members agree on
 * every call (op, bytes, count), sends and receives that pair up (bytes,
 * count), no task waiting on a call that a member issues after something
 * that waits on it (checked by a dry run: a stream that cannot finish is an
 * error naming a stuck task). Errors name the task by index and label. */
bool work_stream_check(const WorkStream *stream, GError **error);
/* The same, giving the match it made (what the replayer needs too); NULL
 * on an error. */
WorkMatch *work_stream_check_match(const WorkStream *stream, GError **error);

/* Every rank's compute, duration_ps[task] summed over its compute tasks,
 * at most max_ps: past it a run would wrap the simulated clock (2^64 ps)
 * around, so such a stream (a trace's durations, or FLOPs on a slow GPU)
 * is an error before the run, naming the rank. */
bool work_stream_check_durations(const WorkStream *stream, const uint64_t *duration_ps,
                                 uint64_t max_ps, GError **error);

/* How many copies the detailed ranks stand for (their own included): the
 * product of the axes' counts; and the GPU offset of copy i (0 for i = 0),
 * axis 0 varying fastest. */
uint32_t work_stream_n_copies(const WorkStream *stream);
uint64_t work_stream_copy_offset(const WorkStream *stream, uint32_t i);

/* Names for CSV and tables: "compute", "coll", "send", "recv"; "compute",
 * "tp", "pp", "dp", "ep", "cp". Parsers return false on an unknown name. */
const char *work_task_kind_name(WorkTaskKind kind);
const char *work_category_name(WorkCategory category);
bool work_task_kind_parse(const char *text, WorkTaskKind *kind);
bool work_category_parse(const char *text, WorkCategory *category);

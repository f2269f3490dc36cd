/* SPDX-License-Identifier: Apache-2.0 */
/* The executor's state (coll-exec.c runs it, coll-exec-fold.c folds it):
 * private to the executor's files. */
#pragma once

#include <glib.h>

#include "coll/coll-exec.h"
#include "core/core-engine.h"

#define NONE UINT32_MAX
#define MAX_DEPTH 64 /* a connection's visible-message window is one 64-bit mask */

typedef struct Conn {
    uint32_t src, dst;               /* participants */
    uint32_t src_vertex, dst_vertex; /* theirs */
    uint32_t depth;
    double wire_factor;
    uint64_t max_bytes_per_s; /* a sending CTA's pace on it (its share); 0: none */
    double share;             /* of an operation's bytes this connection carries */
    uint32_t copies;          /* connections it stands for (itself and identical ones left out) */
    uint32_t multiple; /* identical connections over the same links it is (folded channels) */
    bool crosses_nodes;
    uint64_t flag_ps;          /* a small write from src to dst lands after this */
    uint64_t back_ps;          /* and from dst to src */
    uint32_t sender, receiver; /* programs, NONE until an operation names the connection */
    /* Run state. */
    uint64_t n_sent, n_freed, n_visible, n_taken;
    uint64_t visible_mask; /* bit (seq % depth) of landed-and-visible messages past n_visible */
} Conn;

typedef struct Op {
    uint32_t recv0, n_recv; /* into peers */
    uint32_t send0, n_send;
    uint64_t bytes, reduce_bytes;
    uint32_t repeat; /* times it runs in a row */
} Op;

typedef struct Prog {
    uint32_t participant;
    uint32_t first_op, n_runs;  /* runs of one program are contiguous once built */
    uint32_t next_op, next_rep; /* the run, and how many times it has run */
    uint64_t n_ops, n_done;     /* operations, repeats counted */
    uint32_t pending_sends;     /* Simple: sends of the running operation not landed yet */
    uint64_t reduce_done_ps;
    bool fenced; /* waits for its writes to land before its flag and next operation */
    bool running, waiting;
    uint64_t done_ps; /* SIM_TIME_NEVER until finished */
} Prog;

typedef struct Part {
    uint32_t vertex;
    bool gpu;
    uint64_t reduce_bytes_per_s;         /* a switch's reduction engine; 0: no limit */
    uint64_t sent_bytes, received_bytes; /* payload, for traffic counts */
} Part;

struct CollExec {
    const TopoGraph *graph;
    const TopoRouter *router;
    uint64_t stream_bytes_per_s; /* the GPU's streaming rate; 0: reductions cost nothing */
    CollProto proto;
    uint32_t channels_per_gpu;
    double channel_bytes_per_s;    /* what one GPU program can push; 0: no limit */
    uint64_t step_overhead_ps;     /* until a GPU sees a message it received */
    uint64_t net_step_overhead_ps; /* the same for a message from another node */
    uint64_t start_ps;
    GArray *parts, *conns, *progs, *ops, *peers;
    /* Per program, its operations while building (GArray of Op), flattened
     * into ops by coll_exec_run. */
    GPtrArray *building;
    /* Run. */
    SimEngine *engine;
    NetModel *net;
    SimHandlerId h_try, h_landed, h_visible, h_credit, h_op_done;
    uint64_t end_ps;
    uint64_t n_messages, payload_bytes;
    bool fold; /* coll_exec_set_fold */
};

#define CONN(ex, i) (&g_array_index((ex)->conns, Conn, i))
#define PROG(ex, i) (&g_array_index((ex)->progs, Prog, i))
#define OP(ex, i) (&g_array_index((ex)->ops, Op, i))
#define PEER(ex, i) (g_array_index((ex)->peers, uint32_t, i))

/* A run folded by symmetry (coll_exec_set_fold): the first participant
 * of each orbit runs for all of it, every connection leaving the kept
 * ones goes to the kept participant and program that stand for its real
 * receiver, and the network keeps each link's class of symmetric links
 * as one. */
typedef struct CollExecFold {
    uint32_t shift_nodes; /* nodes a step of the symmetry moves (0: none) */
    uint32_t turn_gpus;   /* places it turns a node's GPUs (0: none) */
    uint32_t copies;      /* how many participants each kept one stands for */
    uint32_t *link_rep;   /* [links]: the link standing for each (NetOptions.link_rep) */
    uint32_t *part_rep;   /* [participants]: the kept one standing for each */
    uint32_t *prog_rep;   /* [programs] */
    GArray *saved_conns;  /* the connections and operations' peers before the fold */
    GArray *saved_peers;
} CollExecFold;

/* Finds the shift by whole nodes and turn of each node's GPUs with the
 * most copies that maps ex's schedule onto itself and its links' loads
 * onto like links, and folds ex by it; false (ex unchanged) when there is
 * none. After coll-exec.c's flatten. */
bool coll_exec_fold(CollExec *ex, CollExecFold *fold);
/* Restores ex and gives the unkept participants and programs their
 * representatives' figures; scales result's traffic counts to the whole. */
void coll_exec_unfold(CollExec *ex, CollExecFold *fold, CollExecResult *result);

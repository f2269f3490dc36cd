/* SPDX-License-Identifier: Apache-2.0 */
/* The collective executor: programs of operations over connections, run
 * through net.h.
 *
 * A collective is described as participants (GPU or NVSwitch vertices),
 * connections (a one-way channel between two participants with a buffer of
 * `depth` messages, NCCL's slots) and programs (each a participant's list of
 * operations for one channel, run in order, as one CTA or thread group runs
 * its primitives). An operation may receive one message from each of some
 * connections, reduce, and send one message on each of some connections:
 * NCCL's send, recvReduceSend, recvCopySend, recv ... The k-th message sent
 * on a connection is the k-th received from it.
 *
 * An operation starts when every message it receives is visible and every
 * connection it sends on has a free slot. Messages are visible when they
 * land (LL and LL128 carry their flags in the data) or, for Simple, when the
 * flag written after the data lands a path latency later (programs can be
 * told otherwise: coll_exec_set_fenced). A slot is free
 * again a path latency after the receiving operation started (the receiver
 * writes its head pointer back). A Simple operation finishes when its sends
 * have landed (the fence before the flag); LL and LL128 operations finish as
 * soon as their sends are issued. A message to another node is the network
 * proxy's to carry: no sender waits for it to land, and it is visible once
 * the proxy has handed it over (the net step overhead) after it landed.
 * Reductions cost the GPU 2 bytes read per byte reduced at the GPU's
 * streaming rate (hw_gpu_stream_bytes_per_s) shared by its active
 * channels, and a
 * CTA pushes its bytes no faster than a channel can: its messages leave at
 * that rate (paced sends, so none lands before the CTA has written it) and
 * an operation finishes no earlier than either. A connection's messages to
 * another node go in order (one queue pair). NVSwitch participants
 * reduce in the switch (NVLS) and cost no GPU time; so do InfiniBand
 * switch participants (SHARP), at their reduction rate if one is set.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "coll/coll.h"
#include "hw/hw-gpu.h"
#include "net/net.h"

typedef struct CollExec CollExec;

typedef struct CollExecResult {
    uint64_t time_ps; /* from the start of the call to the last operation's end */
    uint64_t n_messages;
    uint64_t payload_bytes; /* data bytes moved (before protocol inflation) */
    NetStats net;
    uint64_t n_events;   /* simulated: a folded run's own */
    uint32_t fold;       /* the participants one kept stood for (coll_exec_set_fold); 1: none */
    uint32_t fold_nodes; /* the symmetry's step: nodes on (0: none) */
    uint32_t fold_gpus;  /* and places on among a node's GPUs (0: none) */
} CollExecResult;

/* An executor for protocol proto on graph/router; gpu gives HBM bandwidth
 * for reductions (NULL: reductions cost nothing); channels_per_gpu is how many programs share a
 * GPU's HBM; a GPU program (one CTA) moves an operation's bytes no faster than channel_bytes_per_s
 * (0: no limit). The start of every program is delayed by start_ps (the launch). */
CollExec *coll_exec_new(const TopoGraph *graph, const TopoRouter *router, const HwGpu *gpu,
                        CollProto proto, uint32_t channels_per_gpu, double channel_bytes_per_s,
                        uint64_t start_ps);
void coll_exec_free(CollExec *ex);

/* A participant at vertex (GPU, NVSwitch, or a fabric leaf or spine
 * switch); returns its index. */
uint32_t coll_exec_participant(CollExec *ex, uint32_t vertex);

/* A switch participant's operations that reduce take their reduce_bytes
 * at bytes_per_s (its SHARP engine; 0, the default: no limit). */
void coll_exec_set_reduce_rate(CollExec *ex, uint32_t participant, uint64_t bytes_per_s);

/* A connection from participant src to dst holding depth messages; each
 * message's bytes go on the wire × wire_factor (protocol lines, switch
 * efficiency). Returns its index. */
uint32_t coll_exec_connection(CollExec *ex, uint32_t src, uint32_t dst, uint32_t depth,
                              double wire_factor);

/* A GPU sees a message step_overhead_ps after it (and its flag) landed
 * (polling, synchronisation: the per-step software cost beyond the wire),
 * net_step_overhead_ps for a message from another node (the network
 * proxy's posting); 0 by default. Pipelined slices overlap it. */
void coll_exec_set_step_overhead(CollExec *ex, uint64_t step_overhead_ps,
                                 uint64_t net_step_overhead_ps);

/* Connection conn carries share (0 < share <= 1) of the bytes of the
 * operations that send on it (1 by default): an NVSwitch plane's part of
 * traffic sprayed over several planes. It stands for copies connections
 * (1 by default, share x copies <= 1): itself and copies - 1 identical
 * ones between identical participants that the schedule leaves out (switch
 * planes alike by symmetry, whose traffic takes the same time as its own);
 * the traffic counts (messages, payload bytes) count it copies times. */
void coll_exec_set_share(CollExec *ex, uint32_t conn, double share, uint32_t copies);
/* Connection conn is multiple identical connections between the same two
 * participants, over the same links (channels whose schedules are the
 * same, folded into one: coll-build.c): each message it sends is that many
 * on the network (NetSend.copies: the flow engine's links share among
 * them as among that many), and the traffic counts count it that many
 * times. Flow fidelity only. */
void coll_exec_set_multiple(CollExec *ex, uint32_t conn, uint32_t multiple);

/* Whether a flow-fidelity run may fold by symmetry (off by default):
 * where shifting every participant by p whole nodes and turning each
 * node's GPUs by r places maps the schedule onto itself (every program's
 * operations, connections and routes onto its image's, the links a route
 * crosses onto like links, as many of each as the shift's copies), one
 * participant of each orbit runs, what it sends going to the kept
 * programs that stand for the real receivers over the real routes, each
 * link standing for its class (coll-exec-fold.c). Times are the whole
 * call's; the traffic counts and every participant's bytes are scaled or
 * copied back to the whole; n_events are the folded run's. */
void coll_exec_set_fold(CollExec *ex, bool fold);

/* About the most memory a schedule of n_progs programs, n_conns
 * connections and n_runs runs of operations naming n_peers connections
 * in all takes while it is laid out and flattened (its arrays at up to
 * twice their length, as they grow by doubling; a program's array of
 * operations while building): for refusing a call before laying it out.
 * Saturates at 2^63. */
uint64_t coll_exec_schedule_bytes(uint64_t n_progs, uint64_t n_conns, uint64_t n_runs,
                                  uint64_t n_peers);

/* A new, empty program of participant p; returns its index. */
uint32_t coll_exec_program(CollExec *ex, uint32_t participant);

/* Whether prog waits for its writes to land (a fence) before flagging
 * them and going on: by default, as the protocol does (Simple yes, LL and
 * LL128 no). NVLS's multimem loads and stores need no flag. */
void coll_exec_set_fenced(CollExec *ex, uint32_t prog, bool fenced);

/* Appends an operation to program prog: receive one message from each of
 * recv[0..n_recv), reduce reduce_bytes (0: a copy), send one message of
 * bytes on each of send[0..n_send). */
void coll_exec_op(CollExec *ex, uint32_t prog, const uint32_t *recv, uint32_t n_recv,
                  const uint32_t *send, uint32_t n_send, uint64_t bytes, uint64_t reduce_bytes);

/* One connection's traffic in a whole run, as a flow between its
 * participants' vertices: its wire bytes (the protocol's inflation and its
 * share included), the pace of its sending CTA (0: none), and how many
 * identical ones it is (folded channels, switch planes alike). */
typedef struct CollFlow {
    uint32_t src, dst;
    uint64_t bytes;
    uint64_t max_bytes_per_s;
    uint32_t copies;
} CollFlow;

/* Appends the schedule's traffic to flows (a GArray of CollFlow): one flow
 * per connection with what all its operations send on it, a connection
 * standing for left-out switch planes one flow to each of the planes alike
 * (the switches its GPU reaches by the same links); flows between the
 * same vertices at the same pace are one, copies of their mean bytes
 * (channels whose parts differ by a chunk; on a link they share, the same
 * bytes in all). After a run (its operations laid out). */
void coll_exec_traffic(const CollExec *ex, GArray *flows);

/* How many participants there are (ranks first, as builders add them). */
uint32_t coll_exec_n_participants(const CollExec *ex);

/* Payload bytes participant sent and received in the last run (messages
 * land in full: sent by all == received by all). */
void coll_exec_participant_bytes(const CollExec *ex, uint32_t participant, uint64_t *sent,
                                 uint64_t *received);

/* Runs every program to the end on a fresh engine and network of the given
 * fidelity. A run that cannot finish is false and a SIM_ERROR_STALLED
 * error naming the stuck programs (the operation each waits at, and for
 * which connection), and the links still holding data: a deadlock (the
 * events run out first) or a livelock (COLL_EXEC_WATCHDOG_EVENTS events
 * without a message landing or an operation ending). */
#define COLL_EXEC_WATCHDOG_EVENTS UINT64_C(100000000)
bool coll_exec_run(CollExec *ex, NetFidelity fidelity, CollExecResult *result, GError **error);
